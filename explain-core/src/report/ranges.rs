//! `ranges`: each column's per-file `[min, max]` on an axis (`--ranges`, the HTML page), as
//! the report writes them; read off the files by [`crate::ranges`].

use serde::Serialize;

/// One column's picture over the files of a table.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnRanges {
    pub column: String,
    /// `numeric`, `time` (microseconds since the epoch) or `rank` (ordered, not to scale).
    pub axis: &'static str,
    pub files: Vec<FileRange>,
    pub files_without_bounds: usize,
    /// The predicate's interval on the column (null ends: unbounded; null: no predicate).
    pub interval: Option<Interval>,
    pub clustering: Clustering,
}

/// One file's range on the axis.
#[derive(Clone, Debug, Serialize)]
pub struct FileRange {
    pub path: String,
    pub min: String,
    pub max: String,
    /// `min` and `max` placed on the axis.
    pub low: f64,
    pub high: f64,
    pub kept: bool,
    pub pruned_by: Option<&'static str>,
}

/// An interval of the axis: the bound's text and its place.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Interval {
    pub low: Option<(String, f64)>,
    pub high: Option<(String, f64)>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Clustering {
    pub average_depth: f64,
    pub average_overlaps: f64,
    /// `(depth, files)`: buckets 1..=16, then 32, 64, ... (a file counts in the first bucket
    /// at least its depth).
    pub depth_histogram: Vec<(usize, usize)>,
}

impl ColumnRanges {
    /// At most `n` files, evenly spaced in sorted order (all of them when there are no more).
    pub fn sampled(&self, n: usize) -> Vec<&FileRange> {
        let len = self.files.len();
        if len <= n {
            return self.files.iter().collect();
        }
        (0..n).map(|i| &self.files[i * len / n]).collect()
    }

    /// The axis span to draw: every file's bounds and the interval's ends (finite ones), never
    /// empty (`(0, 1)` when nothing is finite; one unit wide when all coincide).
    pub fn extent(&self) -> (f64, f64) {
        let interval = self
            .interval
            .iter()
            .flat_map(|i| i.low.iter().chain(i.high.iter()).map(|(_, at)| *at));
        let (lo, hi) = self
            .files
            .iter()
            .flat_map(|f| [f.low, f.high])
            .chain(interval)
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        if !lo.is_finite() {
            (0.0, 1.0)
        } else if hi > lo {
            (lo, hi)
        } else {
            (lo, lo + 1.0)
        }
    }
}
