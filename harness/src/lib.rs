//! The harness: checks every claim of explain-core against the oracle, which shares no code
//! with it.
//!
//! - [`subject`]: a table loaded once for both;
//! - [`checks`]: the invariants, one (table, predicate) at a time;
//! - [`corpus`]: predicate corpora and minimized regressions under `corpora/`;
//! - [`shrink`]: minimizing a failing predicate;
//! - [`engine_truth`]: Spark, DuckDB and DataFusion themselves as the soundness check's truth;
//! - [`campaign`], [`page`]: the fuzz campaign and its report.

pub mod campaign;
pub mod checks;
pub mod conformance;
pub mod corpus;
pub mod engine_truth;
pub mod one_core;
pub mod page;
pub mod scaling;
pub mod shrink;
pub mod subject;
pub mod tightness;
pub mod two_paths;

use std::collections::BTreeSet;

use explain_core::explain::Explanation;
use explain_core::replay::ReplayedTable;
use oracle::log::Snapshot;

/// The live file paths of a kernel replay, as the log writes them.
pub fn kernel_paths(table: &ReplayedTable) -> BTreeSet<String> {
    table.paths().map(str::to_string).collect()
}

/// The live file paths of the oracle's replay.
pub fn oracle_paths(snapshot: &Snapshot) -> BTreeSet<String> {
    snapshot.files.iter().map(|f| f.path.clone()).collect()
}

/// The paths explain-core keeps after every phase.
pub fn kept_paths(table: &ReplayedTable, explanation: &Explanation) -> BTreeSet<String> {
    table
        .paths()
        .zip(explanation.kept.iter())
        .filter(|(_, k)| *k)
        .map(|(path, _)| path.to_string())
        .collect()
}

/// The paths of files with at least one matching live row.
pub fn matching_paths(snapshot: &Snapshot, matching_rows: &[u64]) -> BTreeSet<String> {
    snapshot
        .files
        .iter()
        .zip(matching_rows)
        .filter(|(_, n)| **n > 0)
        .map(|(f, _)| f.path.clone())
        .collect()
}
