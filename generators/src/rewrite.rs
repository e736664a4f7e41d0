//! An OPTIMIZE-style rewrite of a written table, as one commit: every live file removed and
//! its rows written again, sorted by one column, in as many files, with the statistics the
//! table's policy records. What `delta-explain diff` shows before and after (and, the
//! versions the other way round, a rewrite that made skipping worse).

use std::path::Path;

use crate::spec::{Kind, TableSpec};
use crate::stats::file_stats;
use crate::values::Cell;
use crate::writer::{
    Stage, WrittenFile, WrittenTable, add_action, parquet_schema, policy_on_disk, schema_changes,
    write_parquet,
};

/// Rewrites `table` (written from `spec`) sorted by the integer column `by`: the new version
/// and the table's live files after it.
pub fn rewrite_sorted(
    spec: &TableSpec,
    table: &WrittenTable,
    by: &str,
) -> Result<WrittenTable, String> {
    if !spec.partition_columns().is_empty() || schema_changes(spec) || spec.quirks.mapping.is_some()
    {
        return Err("a rewrite is written for unpartitioned tables of one schema".into());
    }
    let columns = spec.data_columns();
    let at = columns
        .iter()
        .position(|c| {
            c.name == by && matches!(c.kind, Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64)
        })
        .ok_or_else(|| format!("`{by}` is no integer data column"))?;
    let live: Vec<&WrittenFile> = table.files.iter().filter(|f| !f.removed).collect();
    // Every live row, its cells in column order, sorted by `by` (NULLs first).
    let mut rows: Vec<Vec<Cell>> = live
        .iter()
        .flat_map(|f| {
            let n = f.cells.first().map_or(0, Vec::len);
            (0..n).map(move |r| f.cells.iter().map(|c| c[r].clone()).collect())
        })
        .collect();
    rows.sort_by_key(|row| match &row[at] {
        Cell::Int(v) => Some(*v),
        _ => None,
    });
    let per_file = rows.len().div_ceil(live.len().max(1)).max(1);
    let schema = parquet_schema(spec, spec, Stage::After);
    let policy = policy_on_disk(spec, Stage::After);
    let mut files = Vec::new();
    for (k, chunk) in rows.chunks(per_file).enumerate() {
        let cells: Vec<Vec<Cell>> = (0..columns.len())
            .map(|c| chunk.iter().map(|row| row[c].clone()).collect())
            .collect();
        let path = format!("rewritten-{:03}-{k:05}.parquet", table.version + 1);
        write_parquet(
            &table.root.join(&path),
            &schema,
            &columns,
            &cells,
            spec.rows_per_row_group,
        )?;
        let stats = file_stats(k, &columns, &cells, chunk.len(), &policy);
        files.push(WrittenFile {
            path,
            partition: Vec::new(),
            cells,
            stats,
            removed: false,
        });
    }
    let mut actions: Vec<serde_json::Value> =
        live.iter().map(|f| delta_commit::remove(&f.path)).collect();
    for f in &files {
        actions.push(add_action(&table.root, f)?);
    }
    let version = table.version + 1;
    let log = table.root.join("_delta_log");
    delta_commit::write_commit(&log, version, &actions)
        .map_err(|e| format!("{}: {e}", Path::new(&log).display()))?;
    Ok(WrittenTable {
        root: table.root.clone(),
        version,
        files,
    })
}
