//! CI gates: checks recorded in the report's `assertions[]`; any failure makes the run exit 1
//! with the report still printed.

use serde::Serialize;

use crate::explain::Explanation;
use crate::file_stats::FileStats;
use crate::replay::ReplayedTable;
use crate::schema::ColumnInfo;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "name", rename_all = "snake_case")]
pub enum Assertion {
    /// `--min-pruning PCT`: the total pruning must reach the threshold.
    MinPruning {
        threshold: f64,
        actual: f64,
        result: Outcome,
    },
    /// `--assert-stats`: every file has statistics bounding each data column the predicate
    /// references (every column, without a predicate: any statistics at all).
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

impl Assertion {
    pub fn outcome(&self) -> Outcome {
        match self {
            Assertion::MinPruning { result, .. } | Assertion::StatsComplete { result, .. } => {
                *result
            }
        }
    }

    /// One line for stderr when the gate fails.
    pub fn failure_line(&self) -> String {
        match self {
            Assertion::MinPruning {
                threshold, actual, ..
            } => {
                format!(
                    "gate min_pruning failed: {actual}% pruned, below the required {threshold}%"
                )
            }
            Assertion::StatsComplete {
                columns,
                missing_count,
                ..
            } => format!(
                "gate stats_complete failed: {missing_count} file(s) lack statistics for {}",
                if columns.is_empty() {
                    "any column".to_string()
                } else {
                    columns.join(", ")
                }
            ),
        }
    }
}

fn outcome(pass: bool) -> Outcome {
    if pass { Outcome::Pass } else { Outcome::Fail }
}

pub fn min_pruning(threshold: f64, actual: f64) -> Assertion {
    Assertion::MinPruning {
        threshold,
        actual,
        result: outcome(actual >= threshold),
    }
}

/// The data columns (not partition columns: their values are exact) the predicate references.
pub fn referenced_data_columns(
    table: &ReplayedTable,
    explanation: &Explanation,
) -> Vec<ColumnInfo> {
    let Some(p) = &explanation.predicate else {
        return Vec::new();
    };
    let (_, data) = table.columns().split_columns(&p.normalized);
    data.into_iter()
        .filter(|info| info.primitive().is_some())
        .collect()
}

/// Whether data skipping can bound `column` in a file with `stats`: the table's statistics
/// configuration selects the column (else the kernel reads no bounds for it at all) and the
/// file records them.
pub fn bounds_usable(
    table: &ReplayedTable,
    stats: Option<&FileStats>,
    column: &ColumnInfo,
) -> bool {
    table.has_min_max_column(&column.stats_path)
        && stats.is_some_and(|s| s.covers(&column.stats_path))
}

pub fn stats_complete(table: &ReplayedTable, explanation: &Explanation) -> Assertion {
    let columns = referenced_data_columns(table, explanation);
    let mut missing_files = Vec::new();
    for i in 0..table.files().len() {
        let stats = FileStats::parse(table.stats_json(i));
        let covered = if columns.is_empty() {
            stats.is_some()
        } else {
            columns
                .iter()
                .all(|c| bounds_usable(table, stats.as_ref(), c))
        };
        if !covered {
            missing_files.push(table.path(i).to_string());
        }
    }
    Assertion::StatsComplete {
        columns: columns.iter().map(|c| c.column.dotted()).collect(),
        missing_count: missing_files.len(),
        result: outcome(missing_files.is_empty()),
        missing_files,
    }
}
