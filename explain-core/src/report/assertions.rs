//! `assertions[]`: the CI gates' outcomes as the report writes them; checked by
//! [`crate::gates`].

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "name", rename_all = "snake_case")]
pub enum Assertion {
    /// `--min-pruning PCT`: the total pruning must reach the threshold.
    MinPruning {
        threshold: f64,
        actual: f64,
        result: Outcome,
    },
    /// `--min-files N`: at least N files must survive (an empty result is often a misspelt
    /// literal rather than perfect pruning).
    MinFiles {
        threshold: usize,
        actual: usize,
        result: Outcome,
    },
    /// `--assert-stats`: every file has statistics bounding each data column the predicate
    /// references (without a predicate: each column the table collects statistics for).
    StatsComplete {
        columns: Vec<String>,
        missing_count: usize,
        missing_files: Vec<String>,
        result: Outcome,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    Fail,
}
