//! A simulated layout as a Delta table of statistics without data: one commit with the
//! protocol, the metadata (the workload's columns with the table's types, the layout's
//! partition column) and an add per simulated file carrying its size, partition value and
//! statistics. The explainer reads it as it reads any table, with the same phase scans.

use std::path::Path;

use serde_json::{Value, json};

use crate::layout::SimFile;
use explain_compiler::error::ExplainError;

/// Writes the table at `root`: `fields` are the schema's fields (Delta's JSON), partitioned by
/// `partition_columns`; each of `files` with its partition values, and its statistics JSON
/// beside it in `stats`.
pub fn write_table(
    root: &Path,
    fields: &[Value],
    partition_columns: &[String],
    files: &[SimFile],
    stats: &[String],
) -> Result<(), ExplainError> {
    let schema = delta_commit::schema_string(fields);
    let partition_columns: Vec<&str> = partition_columns.iter().map(String::as_str).collect();
    let mut actions = vec![
        delta_commit::protocol_for_schema(&schema),
        delta_commit::metadata(
            "delta-explain-advise",
            &schema,
            &partition_columns,
            Default::default(),
        ),
    ];
    actions.extend(files.iter().zip(stats).map(|(file, stats)| {
        delta_commit::add(
            &file.path,
            &file.partition,
            file.size,
            Some(stats),
            Default::default(),
        )
    }));
    delta_commit::write_commit(&root.join("_delta_log"), 0, &actions)
        .map(|_| ())
        .map_err(|e| ExplainError::Output(format!("a simulated table: {e}")))
}

/// The fields of the schema `schema_string` named in `columns`, in the schema's order, with
/// their metadata dropped (column mapping names and ids belong to the real table's files).
pub fn fields_of(schema_string: &str, columns: &[String]) -> Result<Vec<Value>, ExplainError> {
    let schema: Value = serde_json::from_str(schema_string)
        .map_err(|e| ExplainError::Usage(format!("the table's schema: {e}")))?;
    Ok(schema["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| {
            f["name"]
                .as_str()
                .is_some_and(|n| columns.iter().any(|c| c == n))
        })
        .map(|f| {
            let mut f = f.clone();
            f["metadata"] = json!({});
            f
        })
        .collect())
}
