//! A simulated layout as a Delta table of statistics without data: one commit with the
//! protocol, the metadata (the workload's columns with the table's types, the layout's
//! partition column) and an add per simulated file carrying its size, partition value and
//! statistics. The explainer reads it as it reads any table, with the same phase scans.

use std::path::Path;

use serde_json::{Value, json};

use crate::layout::SimFile;
use explain_core::error::ExplainError;

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
    let failed = |e: std::io::Error| ExplainError::Output(format!("a simulated table: {e}"));
    let log = root.join("_delta_log");
    std::fs::create_dir_all(&log).map_err(failed)?;
    let schema = json!({"type": "struct", "fields": fields}).to_string();
    // A `timestamp_ntz` column needs its table feature.
    let protocol = if schema.contains("\"timestamp_ntz\"") {
        json!({"protocol": {"minReaderVersion": 3, "minWriterVersion": 7,
            "readerFeatures": ["timestampNtz"], "writerFeatures": ["timestampNtz"]}})
    } else {
        json!({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}})
    };
    let mut lines = vec![
        protocol,
        json!({"metaData": {
            "id": "delta-explain-advise",
            "format": {"provider": "parquet", "options": {}},
            "schemaString": schema,
            "partitionColumns": partition_columns,
            "configuration": {},
            "createdTime": 0,
        }}),
    ];
    for (file, stats) in files.iter().zip(stats) {
        let partition: serde_json::Map<String, Value> = file
            .partition
            .iter()
            .map(|(c, v)| (c.clone(), json!(v)))
            .collect();
        lines.push(json!({"add": {
            "path": file.path,
            "partitionValues": partition,
            "size": file.size,
            "modificationTime": 0,
            "dataChange": true,
            "stats": stats,
        }}));
    }
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(log.join(format!("{:020}.json", 0)), text).map_err(failed)
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
