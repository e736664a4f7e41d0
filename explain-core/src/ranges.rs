//! Each file's `[min, max]` of one column against the predicate's interval on it, and how
//! well the files are clustered on it: what `--ranges COLUMN` draws in the terminal and the
//! HTML page draws per referenced column.
//!
//! **Bounds.** A data column's bounds are the file's recorded `minValues`/`maxValues`; a
//! partition column's are its value (a point). A file with no bound for the column is counted
//! (`files_without_bounds`), not drawn.
//!
//! **The axis.** Values are placed on one numeric axis: numbers as numbers; dates and
//! timestamps as microseconds since the epoch; anything else (strings) by rank among every
//! bound and literal, so order is kept and distances are not claimed.
//!
//! **The predicate's interval.** The hull of the values the predicate can accept on the
//! column, from the normalized predicate: a comparison bounds one side, `=` and `IN` both, AND
//! intersects, OR takes the hull; a leaf on another column, or one no interval expresses on
//! this column (`<>`, `LIKE`, `IS NULL`), leaves it unbounded. The hull is wider than the exact
//! set, never narrower.
//!
//! **Clustering.** As Snowflake's clustering information reports it: a file's *overlap
//! depth* is the largest number of files whose ranges cover one point of its range (itself
//! included; 1 when no other file overlaps); `average_depth` is its mean over the files with
//! bounds, `average_overlaps` the mean number of other files each one overlaps, and the
//! histogram counts files by depth (buckets 1 to 16, then powers of two).

use crate::report::ranges::{Clustering, ColumnRanges, FileRange, Interval};
use serde_json::Value;

use crate::explain::Explanation;
use crate::file_stats::FileStats;
use crate::replay::ReplayedTable;
use explain_compiler::ast::{CmpOp, ColumnRef, Literal};
use explain_compiler::error::ExplainError;
use explain_compiler::nnf::{Leaf, Nnf};
use explain_compiler::schema::ColumnInfo;

/// The ranges of `column` (as the user names it) over the files of `table`, sorted by low
/// bound then high bound, so overlap reads as stairs.
pub fn column_ranges(
    table: &ReplayedTable,
    explanation: &Explanation,
    column: &str,
) -> Result<ColumnRanges, ExplainError> {
    let column = ColumnRef::new(column.split('.'));
    let info = table.columns().resolve(&column)?;
    let name = info.column.dotted();
    let mut bounds: Vec<(usize, String, String)> = Vec::new();
    let mut without = 0usize;
    for file in 0..table.files().len() {
        match file_bounds(table, file, &info) {
            Some((min, max)) => bounds.push((file, min, max)),
            None => without += 1,
        }
    }
    let interval_text = explanation
        .predicate
        .as_ref()
        .map(|p| hull(&p.normalized, &info.column));
    let mut texts: Vec<&str> = bounds
        .iter()
        .flat_map(|(_, lo, hi)| [lo.as_str(), hi.as_str()])
        .collect();
    if let Some((lo, hi)) = &interval_text {
        texts.extend(lo.iter().chain(hi).map(String::as_str));
    }
    let axis = Axis::fit_column(&info, &texts);
    let mut files: Vec<FileRange> = bounds
        .into_iter()
        .map(|(file, min, max)| FileRange {
            path: table.path(file).to_string(),
            low: axis.place(&min),
            high: axis.place(&max),
            min,
            max,
            kept: explanation.kept[file],
            pruned_by: explanation.pruned_by(file),
        })
        .collect();
    files.sort_by(|a, b| {
        a.low
            .total_cmp(&b.low)
            .then(a.high.total_cmp(&b.high))
            .then_with(|| a.path.cmp(&b.path))
    });
    let spans: Vec<(f64, f64)> = files.iter().map(|f| (f.low, f.high)).collect();
    Ok(ColumnRanges {
        column: name,
        axis: axis.name(),
        clustering: Clustering::of(&spans),
        interval: interval_text.map(|(lo, hi)| Interval {
            low: lo.map(|t| {
                let at = axis.place(&t);
                (t, at)
            }),
            high: hi.map(|t| {
                let at = axis.place(&t);
                (t, at)
            }),
        }),
        files,
        files_without_bounds: without,
    })
}

/// The file's `[min, max]` of the column as text, if known.
fn file_bounds(table: &ReplayedTable, file: usize, info: &ColumnInfo) -> Option<(String, String)> {
    if info.is_partition {
        let value = table
            .partition_of(file)
            .get(&info.partition_key)??
            .to_string();
        return Some((value.clone(), value));
    }
    let stats = FileStats::parse(table.stats_json(file))?;
    // A timestamp without a time zone is shown without one: some writers record its bounds
    // with a `Z` that names no zone the values are in.
    let ntz = matches!(
        info.primitive(),
        Some(delta_kernel::schema::PrimitiveType::TimestampNtz)
    );
    let text = |v: &Value| match v {
        Value::String(s) if ntz => Some(s.strip_suffix('Z').unwrap_or(s).to_string()),
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    };
    Some((
        text(stats.min(&info.stats_path)?)?,
        text(stats.max(&info.stats_path)?)?,
    ))
}

/// The hull of the values `predicate` accepts on `column`: `(low, high)` as literal text,
/// `None` for an unbounded side.
type Hull = (Option<String>, Option<String>);

fn hull(predicate: &Nnf, column: &ColumnRef) -> Hull {
    match predicate {
        Nnf::Const(_) => (None, None),
        Nnf::Leaf(leaf) => leaf_hull(leaf, column),
        Nnf::And(items) => items
            .iter()
            .map(|i| hull(i, column))
            .fold((None, None), |(lo, hi), (l, h)| {
                (pick(lo, l, Side::Low, true), pick(hi, h, Side::High, true))
            }),
        Nnf::Or(items) => {
            let mut parts = items.iter().map(|i| hull(i, column));
            let first = parts.next().unwrap_or((None, None));
            parts.fold(first, |(lo, hi), (l, h)| {
                (
                    lo.zip(l).map(|(a, b)| tighter(a, b, Side::Low, false)),
                    hi.zip(h).map(|(a, b)| tighter(a, b, Side::High, false)),
                )
            })
        }
    }
}

#[derive(Clone, Copy)]
enum Side {
    Low,
    High,
}

/// Of two bounds of one side, the tighter (`intersect`) or the looser.
fn pick(a: Option<String>, b: Option<String>, side: Side, intersect: bool) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(tighter(a, b, side, intersect)),
        (a, b) => a.or(b),
    }
}

fn tighter(a: String, b: String, side: Side, intersect: bool) -> String {
    let axis = Axis::fit(&[&a, &b]);
    let a_greater = axis.place(&a) >= axis.place(&b);
    // Intersecting keeps the larger low and the smaller high; a hull the other way round.
    let keep_a = match side {
        Side::Low => a_greater == intersect,
        Side::High => a_greater != intersect,
    };
    if keep_a { a } else { b }
}

fn literal_text(literal: &Literal) -> Option<String> {
    match literal {
        Literal::Number(n) => Some(n.clone()),
        Literal::String(s) => Some(s.clone()),
        Literal::Boolean(b) => Some(b.to_string()),
        Literal::Typed { text, .. } => Some(text.clone()),
        // Bytes have no text a range of the column's values could show.
        Literal::Null | Literal::Binary(_) => None,
    }
}

fn leaf_hull(leaf: &Leaf, column: &ColumnRef) -> Hull {
    let same = |c: &ColumnRef| {
        c.path.len() == column.path.len()
            && c.path
                .iter()
                .zip(&column.path)
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
    };
    match leaf {
        Leaf::Cmp {
            column: c,
            op,
            literal,
        } if same(c) => {
            let value = literal_text(literal);
            match op {
                CmpOp::Eq => (value.clone(), value),
                CmpOp::Lt | CmpOp::LtEq => (None, value),
                CmpOp::Gt | CmpOp::GtEq => (value, None),
                CmpOp::NotEq => (None, None),
            }
        }
        Leaf::In {
            column: c,
            list,
            negated: false,
        } if same(c) => {
            let values: Vec<String> = list.iter().filter_map(literal_text).collect();
            let refs: Vec<&str> = values.iter().map(String::as_str).collect();
            let axis = Axis::fit(&refs);
            let low = values
                .iter()
                .min_by(|a, b| axis.place(a).total_cmp(&axis.place(b)));
            let high = values
                .iter()
                .max_by(|a, b| axis.place(a).total_cmp(&axis.place(b)));
            (low.cloned(), high.cloned())
        }
        // Any other leaf (another column, `<>`, NOT IN, LIKE, IS NULL, a boolean column)
        // leaves the column unbounded.
        _ => (None, None),
    }
}

/// How values become places on one axis.
enum Axis {
    Numeric,
    Time,
    /// Sorted distinct values; a value's place is its index.
    Rank(Vec<String>),
}

impl Axis {
    /// The axis of a column's values: its type decides whether a time axis may be drawn (a
    /// string column of dates is ordered text, not time: its distances are not claimed).
    fn fit_column(info: &ColumnInfo, values: &[&str]) -> Axis {
        use delta_kernel::schema::PrimitiveType as P;
        match info.primitive() {
            Some(P::Date | P::Timestamp | P::TimestampNtz) => Axis::fit(values),
            Some(
                P::Byte | P::Short | P::Integer | P::Long | P::Float | P::Double | P::Decimal(_),
            ) if values.iter().all(|v| v.trim().parse::<f64>().is_ok()) => Axis::Numeric,
            _ => Axis::rank(values),
        }
    }

    fn rank(values: &[&str]) -> Axis {
        let mut sorted: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        sorted.sort();
        sorted.dedup();
        Axis::Rank(sorted)
    }

    fn fit(values: &[&str]) -> Axis {
        if values.iter().all(|v| v.trim().parse::<f64>().is_ok()) {
            Axis::Numeric
        } else if values.iter().all(|v| time_micros(v).is_some()) {
            Axis::Time
        } else {
            Axis::rank(values)
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Axis::Numeric => "numeric",
            Axis::Time => "time",
            Axis::Rank(_) => "rank",
        }
    }

    fn place(&self, value: &str) -> f64 {
        match self {
            Axis::Numeric => value.trim().parse().unwrap_or(f64::NAN),
            Axis::Time => time_micros(value).map_or(f64::NAN, |t| t as f64),
            Axis::Rank(sorted) => match sorted.binary_search_by(|v| v.as_str().cmp(value)) {
                Ok(i) | Err(i) => i as f64,
            },
        }
    }
}

/// A date or timestamp as microseconds since the epoch (UTC when no zone is written).
pub(crate) fn time_micros(text: &str) -> Option<i64> {
    let text = text.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(t.timestamp_micros());
    }
    for format in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"] {
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(text, format) {
            return Some(t.and_utc().timestamp_micros());
        }
    }
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_micros())
}

impl Clustering {
    /// The depths each bucket of the histogram holds, as a label: `7` for one depth, `17-20`
    /// for a power-of-two bucket (cut at `files`, the deepest a file can be).
    pub fn depth_labels(&self, files: usize) -> Vec<String> {
        let mut from = 1usize;
        self.depth_histogram
            .iter()
            .map(|(upto, _)| {
                let to = (*upto).min(files.max(from));
                let label = if to <= from {
                    from.to_string()
                } else {
                    format!("{from}-{to}")
                };
                from = upto + 1;
                label
            })
            .collect()
    }

    /// The clustering figures of `spans` (`[low, high]` each; NaN ends are left out).
    pub fn of(spans: &[(f64, f64)]) -> Clustering {
        let spans: Vec<(f64, f64)> = spans
            .iter()
            .filter(|(l, h)| !l.is_nan() && !h.is_nan())
            .map(|&(l, h)| if l <= h { (l, h) } else { (h, l) })
            .collect();
        let n = spans.len();
        if n == 0 {
            return Clustering {
                average_depth: 0.0,
                average_overlaps: 0.0,
                depth_histogram: Vec::new(),
            };
        }
        let mut lows: Vec<f64> = spans.iter().map(|s| s.0).collect();
        let mut highs: Vec<f64> = spans.iter().map(|s| s.1).collect();
        lows.sort_by(f64::total_cmp);
        highs.sort_by(f64::total_cmp);
        // Files covering point p: lows at or before p, less highs before p.
        let covering =
            |p: f64| lows.partition_point(|&l| l <= p) - highs.partition_point(|&h| h < p);
        // Coverage only rises at a low bound: a file's depth is the largest coverage at a
        // low bound inside its range (its own low included).
        let mut points = lows.clone();
        points.dedup();
        let coverage: Vec<usize> = points.iter().map(|&p| covering(p)).collect();
        let table = SparseMax::new(&coverage);
        let mut depth_sum = 0usize;
        let mut overlap_sum = 0usize;
        let mut histogram: Vec<(usize, usize)> = (1..=16)
            .map(|d| (d, 0))
            .chain((5..=40).map(|k| (1usize << k, 0)))
            .collect();
        for &(low, high) in &spans {
            let from = points.partition_point(|&p| p < low);
            let to = points.partition_point(|&p| p <= high);
            let depth = table.max(from, to).max(1);
            depth_sum += depth;
            // Others overlapping: every file but those wholly before or wholly after.
            let before = highs.partition_point(|&h| h < low);
            let after = n - lows.partition_point(|&l| l <= high);
            overlap_sum += n - 1 - before - after;
            if let Some(bucket) = histogram.iter_mut().find(|(d, _)| *d >= depth) {
                bucket.1 += 1;
            }
        }
        while histogram.last().is_some_and(|(_, files)| *files == 0) {
            histogram.pop();
        }
        let round = |x: f64| (x * 100.0).round() / 100.0;
        Clustering {
            average_depth: round(depth_sum as f64 / n as f64),
            average_overlaps: round(overlap_sum as f64 / n as f64),
            depth_histogram: histogram,
        }
    }
}

/// Range maximum over a fixed array in O(1) after O(n log n) preparation.
struct SparseMax {
    levels: Vec<Vec<usize>>,
}

impl SparseMax {
    fn new(values: &[usize]) -> Self {
        let mut levels = vec![values.to_vec()];
        let mut width = 1;
        while width * 2 <= values.len() {
            let previous = &levels[levels.len() - 1];
            let next: Vec<usize> = (0..=values.len() - width * 2)
                .map(|i| previous[i].max(previous[i + width]))
                .collect();
            levels.push(next);
            width *= 2;
        }
        Self { levels }
    }

    /// The maximum over `[from, to)` (0 when empty).
    fn max(&self, from: usize, to: usize) -> usize {
        if from >= to {
            return 0;
        }
        let level = (usize::BITS - 1 - (to - from).leading_zeros()) as usize;
        let width = 1 << level;
        self.levels[level][from].max(self.levels[level][to - width])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_buckets_are_labelled_with_the_depths_they_hold() {
        let c = Clustering {
            average_depth: 0.0,
            average_overlaps: 0.0,
            depth_histogram: (1..=16).map(|d| (d, 0)).chain([(32, 20)]).collect(),
        };
        let labels = c.depth_labels(20);
        assert_eq!(labels[0], "1");
        assert_eq!(labels[15], "16");
        // Not "32" on a table of 20 files.
        assert_eq!(labels[16], "17-20");
    }

    #[test]
    fn disjoint_files_have_depth_one_and_stacked_files_their_count() {
        let disjoint = Clustering::of(&[(0.0, 1.0), (2.0, 3.0), (4.0, 5.0)]);
        assert_eq!(disjoint.average_depth, 1.0);
        assert_eq!(disjoint.average_overlaps, 0.0);
        assert_eq!(disjoint.depth_histogram, vec![(1, 3)]);
        let stacked = Clustering::of(&[(0.0, 10.0), (0.0, 10.0), (0.0, 10.0), (0.0, 10.0)]);
        assert_eq!(stacked.average_depth, 4.0);
        assert_eq!(stacked.average_overlaps, 3.0);
        // A chain: each file overlaps its neighbours, never more than two at one point.
        let chain = Clustering::of(&[(0.0, 2.0), (1.0, 3.0), (2.5, 4.0)]);
        assert_eq!(chain.average_depth, 2.0);
        assert_eq!(chain.average_overlaps, 1.33);
    }

    #[test]
    fn depth_is_the_deepest_point_of_a_files_range_by_brute_force() {
        // Overlap depth against a brute-force count at every low bound.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % 100
        };
        for _ in 0..50 {
            let spans: Vec<(f64, f64)> = (0..20)
                .map(|_| {
                    let a = next() as f64;
                    let b = a + (next() % 30) as f64;
                    (a, b)
                })
                .collect();
            let brute: f64 = spans
                .iter()
                .map(|&(l, h)| {
                    spans
                        .iter()
                        .filter(|s| s.0 >= l && s.0 <= h)
                        .map(|s| spans.iter().filter(|t| t.0 <= s.0 && t.1 >= s.0).count())
                        .chain(std::iter::once(
                            spans.iter().filter(|t| t.0 <= l && t.1 >= l).count(),
                        ))
                        .max()
                        .unwrap_or(1) as f64
                })
                .sum::<f64>()
                / spans.len() as f64;
            assert_eq!(
                Clustering::of(&spans).average_depth,
                (brute * 100.0).round() / 100.0
            );
        }
    }

    #[test]
    fn the_interval_is_the_hull_of_what_the_predicate_accepts() {
        let x = ColumnRef::new(["x"]);
        let cmp = |op, v: &str| {
            Nnf::Leaf(Leaf::Cmp {
                column: x.clone(),
                op,
                literal: Literal::Number(v.into()),
            })
        };
        let and = Nnf::And(vec![cmp(CmpOp::Gt, "5"), cmp(CmpOp::LtEq, "10")]);
        assert_eq!(hull(&and, &x), (Some("5".into()), Some("10".into())));
        let or = Nnf::Or(vec![cmp(CmpOp::Eq, "3"), cmp(CmpOp::Eq, "12")]);
        assert_eq!(hull(&or, &x), (Some("3".into()), Some("12".into())));
        let open = Nnf::Or(vec![cmp(CmpOp::Eq, "3"), cmp(CmpOp::Gt, "12")]);
        assert_eq!(hull(&open, &x), (Some("3".into()), None));
        let other = Nnf::Leaf(Leaf::Cmp {
            column: ColumnRef::new(["y"]),
            op: CmpOp::Eq,
            literal: Literal::Number("1".into()),
        });
        assert_eq!(hull(&other, &x), (None, None));
    }
}
