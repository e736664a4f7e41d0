//! `analysis.stats_coverage`: for each data column a statistics-safe fragment needs, how many
//! of the files data skipping sees (the partition pruning's survivors, files without
//! statistics among them) record the statistics it needs. Only what data skipping can use
//! counts: a fragment of another bucket needs no statistics of the file.
//!
//! | leaf of a stats-safe fragment | requirement | a file covers it with |
//! |---|---|---|
//! | a comparison, `IN`, `BETWEEN` (two comparisons), a prefix `LIKE` (a range), a boolean column | `min_max` | both bounds, or a null count equal to its record count (every row NULL) |
//! | `IS NULL` | `null_count` | a null count |
//! | `IS NOT NULL` | `null_count_and_num_records` | a null count and a record count |
//!
//! A column the table's statistics configuration leaves out (`delta.dataSkippingStatsColumns`,
//! `delta.dataSkippingNumIndexedCols`) is covered by no file: data skipping reads none of its
//! statistics, whatever a file recorded.

use crate::report::coverage::{ColumnCoverage, Requirement};
use std::borrow::Cow;

use crate::explain::Explanation;
use crate::file_stats::{FileStats, StatsNeeds};
use crate::gates::bounds_usable;
use crate::replay::ReplayedTable;
use explain_compiler::classify::Bucket;
use explain_compiler::nnf::Leaf;
use explain_compiler::schema::{ColumnInfo, TableColumns};

impl Requirement {
    /// The requirement of one leaf of a statistics-safe fragment; `None` for a leaf that
    /// reads no statistics of a column.
    fn of(leaf: &Leaf) -> Option<Requirement> {
        match leaf {
            Leaf::Cmp { .. } | Leaf::In { .. } | Leaf::Bool { .. } | Leaf::Like { .. } => {
                Some(Requirement::MinMax)
            }
            Leaf::IsNull { negated: false, .. } => Some(Requirement::NullCount),
            Leaf::IsNull { negated: true, .. } => Some(Requirement::NullCountAndNumRecords),
            // Never in a stats-safe fragment (classify.rs); it needs nothing of a file.
            Leaf::Unsupported { .. } => None,
        }
    }

    /// Its name in the report and on the text page (the schema's enum).
    pub fn label(self) -> &'static str {
        match self {
            Requirement::MinMax => "min_max",
            Requirement::NullCount => "null_count",
            Requirement::NullCountAndNumRecords => "null_count_and_num_records",
        }
    }
}

/// The (column, requirement) pairs of one explanation, in predicate order, and the
/// statistics they read.
#[derive(Clone, Debug)]
pub struct CoveragePlan {
    items: Vec<(ColumnInfo, Requirement)>,
    needs: StatsNeeds,
}

impl CoveragePlan {
    /// The statistics the plan reads of each candidate file.
    pub fn needs(&self) -> &StatsNeeds {
        &self.needs
    }

    pub fn new(columns: &TableColumns, explanation: &Explanation) -> CoveragePlan {
        let mut items: Vec<(ColumnInfo, Requirement)> = Vec::new();
        if let Some(compiled) = &explanation.predicate {
            for fragment in compiled.classification.in_bucket(Bucket::StatsSafe) {
                for leaf in fragment.leaves() {
                    let (Some(column), Some(requirement)) = (leaf.column(), Requirement::of(leaf))
                    else {
                        continue;
                    };
                    let Ok(info) = columns.resolve(column) else {
                        continue;
                    };
                    if !items
                        .iter()
                        .any(|(i, r)| i.column == info.column && *r == requirement)
                    {
                        items.push((info, requirement));
                    }
                }
            }
        }
        let needs = StatsNeeds::columns(items.iter().map(|(i, _)| i.stats_path.as_slice()));
        CoveragePlan { items, needs }
    }
}

/// The counts over some files (a window of a streamed replay, or the whole table).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coverage {
    /// Files data skipping sees: the partition pruning's survivors.
    pub candidates: usize,
    /// Per item of the plan, the candidates that cover it.
    pub covered: Vec<usize>,
}

impl Coverage {
    /// The counts of two disjoint sets of files, for one plan.
    pub fn plus(self, other: Coverage) -> Coverage {
        Coverage {
            candidates: self.candidates + other.candidates,
            covered: if self.covered.is_empty() {
                other.covered
            } else {
                self.covered
                    .iter()
                    .zip(&other.covered)
                    .map(|(a, b)| a + b)
                    .collect()
            },
        }
    }

    /// The report's entries, one per item of `plan`.
    pub fn entries(&self, plan: &CoveragePlan) -> Vec<ColumnCoverage> {
        plan.items
            .iter()
            .enumerate()
            .map(|(k, (info, requirement))| {
                let covered = self.covered.get(k).copied().unwrap_or(0);
                ColumnCoverage {
                    column: info.column.dotted(),
                    requirement: *requirement,
                    candidate_files: self.candidates,
                    covered_files: covered,
                    coverage_pct: if self.candidates == 0 {
                        100.0
                    } else {
                        (covered as f64 * 1000.0 / self.candidates as f64).round() / 10.0
                    },
                }
            })
            .collect()
    }
}

/// The coverage of `plan` over the files of `table`, for `explanation`'s partition survivors
/// (their statistics parsed here, only what the plan reads).
pub fn gather(table: &ReplayedTable, explanation: &Explanation, plan: &CoveragePlan) -> Coverage {
    count(table, explanation, plan, |_, json| {
        FileStats::parse_only(json, &plan.needs).map(Cow::Owned)
    })
}

/// [`gather`] over statistics parsed already, one entry per file of `table`, holding at least
/// what `plan.needs()` names.
pub fn gather_parsed(
    table: &ReplayedTable,
    explanation: &Explanation,
    plan: &CoveragePlan,
    stats: &[Option<FileStats>],
) -> Coverage {
    count(table, explanation, plan, |i, _| {
        stats[i].as_ref().map(Cow::Borrowed)
    })
}

/// Counts, per item of `plan`, the partition survivors whose statistics (`stats_of` file `i`
/// with its JSON) cover it.
fn count<'s>(
    table: &ReplayedTable,
    explanation: &Explanation,
    plan: &CoveragePlan,
    stats_of: impl Fn(usize, Option<&str>) -> Option<Cow<'s, FileStats>>,
) -> Coverage {
    let candidates = explanation.after_partition.count();
    if plan.items.is_empty() {
        return Coverage {
            candidates,
            covered: Vec::new(),
        };
    }
    let mut covered = vec![0usize; plan.items.len()];
    for (i, json) in table.stats_jsons().enumerate() {
        if !explanation.after_partition.contains(i) {
            continue;
        }
        let stats = stats_of(i, json);
        for (k, (info, requirement)) in plan.items.iter().enumerate() {
            if covers(table, stats.as_deref(), info, *requirement) {
                covered[k] += 1;
            }
        }
    }
    Coverage {
        candidates,
        covered,
    }
}

/// Whether one file's statistics give data skipping what `requirement` needs of `info`.
fn covers(
    table: &ReplayedTable,
    stats: Option<&FileStats>,
    info: &ColumnInfo,
    requirement: Requirement,
) -> bool {
    let path = &info.stats_path;
    match requirement {
        Requirement::MinMax => bounds_usable(table, stats, info),
        Requirement::NullCount => {
            table.has_null_count_column(path) && stats.is_some_and(|s| s.nulls(path).is_some())
        }
        Requirement::NullCountAndNumRecords => {
            table.has_null_count_column(path)
                && stats.is_some_and(|s| s.nulls(path).is_some() && s.num_records.is_some())
        }
    }
}
