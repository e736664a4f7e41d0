//! CI gates: checks recorded in the report's `assertions[]`; any failure makes the run exit 1
//! with the report still printed.

use crate::report::assertions::{Assertion, Outcome};

use crate::explain::Explanation;
use crate::file_stats::{FileStats, StatsNeeds};
use crate::replay::ReplayedTable;
use explain_compiler::schema::ColumnInfo;

impl Assertion {
    pub fn outcome(&self) -> Outcome {
        match self {
            Assertion::MinPruning { result, .. }
            | Assertion::MinFiles { result, .. }
            | Assertion::StatsComplete { result, .. } => *result,
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
            Assertion::MinFiles {
                threshold, actual, ..
            } => format!(
                "gate min_files failed: {actual} file(s) kept, fewer than the required {threshold}"
            ),
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

impl Assertion {
    /// `--assert-stats` over two disjoint sets of files of one table, for one explanation
    /// (the streamed explanation checks window by window); any other pair is returned as the
    /// first, since their gates read the whole counts, not files.
    pub fn plus(self, other: Assertion) -> Assertion {
        match (self, other) {
            (
                Assertion::StatsComplete {
                    columns,
                    missing_count,
                    mut missing_files,
                    ..
                },
                Assertion::StatsComplete {
                    missing_count: more_count,
                    missing_files: more_files,
                    ..
                },
            ) => {
                missing_files.extend(more_files);
                let missing_count = missing_count + more_count;
                Assertion::StatsComplete {
                    columns,
                    missing_count,
                    missing_files,
                    result: outcome(missing_count == 0),
                }
            }
            (first, _) => first,
        }
    }
}

fn outcome(pass: bool) -> Outcome {
    if pass { Outcome::Pass } else { Outcome::Fail }
}

/// `--min-pruning`: `pruned` of `total` files must reach `threshold` percent. Decided on the
/// exact counts, never on the rounded percentage the report shows: one file left of a million
/// is 99.9999%, shown as 100, and does not pass a gate of 100.
pub fn min_pruning(threshold: f64, pruned: usize, total: usize, shown: f64) -> Assertion {
    // pruned / total >= threshold / 100, without dividing (counts are exact in an f64 far
    // beyond any table's file count).
    let pass = pruned as f64 * 100.0 >= threshold * total as f64;
    Assertion::MinPruning {
        threshold,
        actual: shown,
        result: outcome(pass),
    }
}

/// `--min-files N`: at least `threshold` files survive.
pub fn min_files(threshold: usize, actual: usize) -> Assertion {
    Assertion::MinFiles {
        threshold,
        actual,
        result: outcome(actual >= threshold),
    }
}

/// The data columns (not partition columns: their values are exact) the predicate references.
pub fn referenced_data_columns(
    columns: &explain_compiler::schema::TableColumns,
    explanation: &Explanation,
) -> Vec<ColumnInfo> {
    let Some(p) = &explanation.predicate else {
        return Vec::new();
    };
    let (_, data) = columns.split_columns(&p.normalized);
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

/// Every data column the table collects min/max statistics for (`--assert-stats` without a
/// predicate checks them all, rather than passing on any statistics at all).
pub fn statistics_columns(table: &ReplayedTable) -> Vec<ColumnInfo> {
    let columns = table.columns();
    columns
        .leaf_paths()
        .into_iter()
        .filter_map(|path| {
            columns
                .resolve(&explain_compiler::ast::ColumnRef { path })
                .ok()
        })
        .filter(|info| {
            !info.is_partition
                && info.primitive().is_some()
                && table.has_min_max_column(&info.stats_path)
        })
        .collect()
}

pub fn stats_complete(table: &ReplayedTable, explanation: &Explanation) -> Assertion {
    let columns = if explanation.predicate.is_some() {
        referenced_data_columns(table.columns(), explanation)
    } else {
        statistics_columns(table)
    };
    let needs = StatsNeeds::columns(columns.iter().map(|c| c.stats_path.as_slice()));
    let mut missing_files = Vec::new();
    for (i, json) in table.stats_jsons().enumerate() {
        let stats = FileStats::parse_only(json, &needs);
        let covered = if columns.is_empty() {
            // A predicate on partition columns only, or a table collecting no statistics.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_pruning_decides_on_exact_counts_not_the_rounded_percentage() {
        // One file left of a million shows as 100.0 and must not pass a gate of 100.
        let shown = ((999_999f64 * 10000.0 / 1_000_000f64).round()) / 100.0;
        assert_eq!(shown, 100.0);
        assert_eq!(
            min_pruning(100.0, 999_999, 1_000_000, shown).outcome(),
            Outcome::Fail
        );
        assert_eq!(
            min_pruning(100.0, 1_000_000, 1_000_000, 100.0).outcome(),
            Outcome::Pass
        );
        assert_eq!(min_pruning(90.0, 18, 20, 90.0).outcome(), Outcome::Pass);
        assert_eq!(min_pruning(90.01, 18, 20, 90.0).outcome(), Outcome::Fail);
        assert_eq!(min_pruning(0.0, 0, 0, 0.0).outcome(), Outcome::Pass);
    }
}
