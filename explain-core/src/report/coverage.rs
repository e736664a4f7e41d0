//! `analysis.stats_coverage`: per column, how many files' statistics data skipping can read,
//! as the report writes it; counted by [`crate::coverage`].

use serde::Serialize;

/// What data skipping needs of a file's statistics for one column; serialized as its
/// [`label`](Requirement::label).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    MinMax,
    NullCount,
    NullCountAndNumRecords,
}

/// One column's statistics coverage, as the peer's schema writes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColumnCoverage {
    pub column: String,
    pub requirement: Requirement,
    pub candidate_files: usize,
    pub covered_files: usize,
    pub coverage_pct: f64,
}

impl Serialize for Requirement {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.label())
    }
}
