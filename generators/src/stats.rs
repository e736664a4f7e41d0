//! A file's statistics JSON, computed from the cells it holds and recorded under the table's
//! stats policy: exact, missing, limited to the first N columns, truncated strings (safe or
//! not), NaN left out of float bounds, timestamp max truncated to milliseconds, loose bounds.

use serde_json::{Map, Value, json};

use crate::spec::{ColumnSpec, Kind, StatsPolicy, StringTruncation};
use crate::values::Cell;

/// Formats microseconds since the epoch as the log writes timestamps (`Z` for UTC).
pub fn format_micros(micros: i64, utc: bool) -> String {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:06}{}",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        if utc { "Z" } else { "" }
    )
}

pub fn format_date(days: i32) -> String {
    let (y, m, d) = civil_from_days(i64::from(days));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Ordering of the cells a bound is taken over (nulls excluded by the caller).
fn cmp(a: &Cell, b: &Cell) -> std::cmp::Ordering {
    match (a, b) {
        (Cell::Int(x), Cell::Int(y)) => x.cmp(y),
        (Cell::Float(x), Cell::Float(y)) => x.total_cmp(y),
        (Cell::Decimal(x), Cell::Decimal(y)) => x.cmp(y),
        (Cell::Str(x), Cell::Str(y)) => x.cmp(y),
        (Cell::Date(x), Cell::Date(y)) => x.cmp(y),
        (Cell::Micros(x), Cell::Micros(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    }
}

/// A bound as JSON, `None` when it cannot be written (infinities have no JSON number).
fn bound_json(kind: Kind, cell: &Cell, is_max: bool, policy: &StatsPolicy) -> Option<Value> {
    Some(match cell {
        Cell::Int(v) => {
            let v = if policy.loose_bounds {
                if is_max {
                    v.saturating_add(1)
                } else {
                    v.saturating_sub(1)
                }
            } else {
                *v
            };
            json!(clamp_int(kind, v))
        }
        Cell::Float(v) if v.is_finite() => {
            let v = if policy.loose_bounds {
                if is_max { v + 1.0 } else { v - 1.0 }
            } else {
                *v
            };
            if kind == Kind::Float32 {
                json!(v as f32)
            } else {
                json!(v)
            }
        }
        Cell::Decimal(v) if kind == Kind::WideDecimal && !policy.decimal_bounds_f64 => {
            // The exact digits (serde_json keeps a number's text with arbitrary_precision).
            serde_json::from_str(&crate::values::decimal_text(*v, 18)).ok()?
        }
        Cell::Decimal(v) if kind == Kind::WideDecimal => json!((*v as f64) / 1e18),
        Cell::Decimal(v) => json!((*v as f64) / 100.0),
        Cell::Str(s) => json!(truncate(s, is_max, policy.string_prefix)?),
        Cell::Date(d) => json!(format_date(*d)),
        Cell::Micros(t) => {
            let t = if is_max && policy.truncate_timestamp_max {
                t.div_euclid(1000) * 1000
            } else {
                *t
            };
            json!(format_micros(t, kind == Kind::Timestamp))
        }
        _ => return None,
    })
}

fn clamp_int(kind: Kind, v: i64) -> i64 {
    match kind {
        Kind::Int8 => v.clamp(i64::from(i8::MIN), i64::from(i8::MAX)),
        Kind::Int16 => v.clamp(i64::from(i16::MIN), i64::from(i16::MAX)),
        Kind::Int32 => v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)),
        _ => v,
    }
}

/// A string bound truncated to a prefix: the min is a prefix (always a lower bound); the max
/// gets a U+10FFFF tie-breaker (Spark) or stays a bare prefix (unsound).
fn truncate(s: &str, is_max: bool, truncation: Option<StringTruncation>) -> Option<String> {
    let (n, spark) = match truncation {
        None => return Some(s.to_string()),
        Some(StringTruncation::SparkStyle(n)) => (n, true),
        Some(StringTruncation::BarePrefix(n)) => (n, false),
        Some(StringTruncation::LegacyTieBreaker(n)) => {
            if s.chars().count() <= n {
                return Some(s.to_string());
            }
            let prefix: String = s.chars().take(n).collect();
            if !is_max {
                return Some(prefix);
            }
            // The comparison the old writer made: U+FFFD against the next UTF-16 unit.
            let next = s.chars().nth(n).map(|c| c.encode_utf16(&mut [0; 2])[0]);
            return next
                .filter(|unit| *unit < 0xFFFD)
                .map(|_| format!("{prefix}\u{FFFD}"));
        }
    };
    if s.chars().count() <= n {
        return Some(s.to_string());
    }
    let prefix: String = s.chars().take(n).collect();
    Some(if is_max && spark {
        format!("{prefix}\u{10FFFF}")
    } else {
        prefix
    })
}

/// Min, max and null count of one leaf column's cells under the policy.
fn leaf_stats(
    kind: Kind,
    cells: &[Cell],
    policy: &StatsPolicy,
) -> (Option<Value>, Option<Value>, usize) {
    let nulls = cells.iter().filter(|c| matches!(c, Cell::Null)).count();
    if kind == Kind::Boolean {
        return (None, None, nulls); // Writers record no bounds for booleans.
    }
    let has_nan = cells
        .iter()
        .any(|c| matches!(c, Cell::Float(v) if v.is_nan()));
    if has_nan && !policy.nan_excluded_bounds {
        return (None, None, nulls); // No NaN-free bound can be claimed.
    }
    let values: Vec<&Cell> = cells
        .iter()
        .filter(|c| !matches!(c, Cell::Null) && !matches!(c, Cell::Float(v) if v.is_nan()))
        .collect();
    let min = values.iter().copied().min_by(|a, b| cmp(a, b));
    let max = values.iter().copied().max_by(|a, b| cmp(a, b));
    let min = min.and_then(|c| bound_json(kind, c, false, policy));
    let max = max.and_then(|c| bound_json(kind, c, true, policy));
    // A half-written pair (one infinite bound) is dropped whole.
    match (min, max) {
        (Some(a), Some(b)) => (Some(a), Some(b), nulls),
        _ => (None, None, nulls),
    }
}

/// The stats JSON of a file, `None` when the policy writes none for it.
pub fn file_stats(
    file_index: usize,
    data_columns: &[&ColumnSpec],
    cells: &[Vec<Cell>],
    rows: usize,
    policy: &StatsPolicy,
) -> Option<String> {
    if policy.files_without_stats.contains(&file_index) {
        return None;
    }
    let (mut mins, mut maxs, mut nulls) = (Map::new(), Map::new(), Map::new());
    let mut leaves_seen = 0usize;
    // Stats columns name the columns that get statistics, whatever their position; else the
    // first N leaves do.
    let indexed = |leaves_seen: usize, column: &str| match &policy.stats_columns {
        Some(names) => names.iter().any(|n| n == column),
        None => policy.num_indexed_cols.is_none_or(|n| leaves_seen < n),
    };
    for (column, cells) in data_columns.iter().zip(cells) {
        if column.kind == Kind::Struct {
            let (mut smin, mut smax, mut snull) = (Map::new(), Map::new(), Map::new());
            let a: Vec<Cell> = cells
                .iter()
                .map(|c| match c {
                    Cell::Struct(Some(a), _) => Cell::Int(i64::from(*a)),
                    _ => Cell::Null,
                })
                .collect();
            let b: Vec<Cell> = cells
                .iter()
                .map(|c| match c {
                    Cell::Struct(_, Some(b)) => Cell::Str(b.clone()),
                    _ => Cell::Null,
                })
                .collect();
            for (name, kind, leaf) in [("a", Kind::Int32, a), ("b", Kind::String, b)] {
                let counted = indexed(leaves_seen, &column.name);
                leaves_seen += 1;
                if !counted || policy.missing_columns.contains(&column.name) {
                    continue;
                }
                let (lo, hi, n) = leaf_stats(kind, &leaf, policy);
                if let (Some(lo), Some(hi)) = (lo, hi) {
                    smin.insert(name.into(), lo);
                    smax.insert(name.into(), hi);
                }
                snull.insert(name.into(), json!(n));
            }
            for (target, map) in [(&mut mins, smin), (&mut maxs, smax), (&mut nulls, snull)] {
                if !map.is_empty() {
                    target.insert(column.name.clone(), Value::Object(map));
                }
            }
            continue;
        }
        let counted = indexed(leaves_seen, &column.name);
        leaves_seen += 1;
        if !counted || policy.missing_columns.contains(&column.name) {
            continue;
        }
        let (lo, hi, n) = leaf_stats(column.kind, cells, policy);
        if let (Some(lo), Some(hi)) = (lo, hi) {
            mins.insert(column.name.clone(), lo);
            maxs.insert(column.name.clone(), hi);
        }
        nulls.insert(column.name.clone(), json!(n));
    }
    let mut stats =
        json!({"numRecords": rows, "minValues": mins, "maxValues": maxs, "nullCount": nulls});
    if policy.loose_bounds {
        stats["tightBounds"] = json!(false);
    }
    Some(stats.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_timestamps_render_as_the_log_does() {
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(18_262), "2020-01-01");
        assert_eq!(format_date(2_932_896), "9999-12-31");
        assert_eq!(
            format_micros(1_609_459_200_000_123, true),
            "2021-01-01T00:00:00.000123Z"
        );
        assert_eq!(format_micros(-1, false), "1969-12-31T23:59:59.999999");
    }

    #[test]
    fn strings_truncate_safely_or_not() {
        let long = "abcdefgh";
        assert_eq!(
            truncate(long, true, Some(StringTruncation::SparkStyle(3))).unwrap(),
            "abc\u{10FFFF}"
        );
        assert_eq!(
            truncate(long, false, Some(StringTruncation::SparkStyle(3))).unwrap(),
            "abc"
        );
        assert_eq!(
            truncate(long, true, Some(StringTruncation::BarePrefix(3))).unwrap(),
            "abc"
        );
        assert_eq!(
            truncate("ab", true, Some(StringTruncation::BarePrefix(3))).unwrap(),
            "ab"
        );
    }

    #[test]
    fn nan_policy_decides_float_bounds() {
        let cells = vec![
            Cell::Float(1.0),
            Cell::Float(f64::NAN),
            Cell::Float(2.0),
            Cell::Null,
        ];
        let exact = StatsPolicy::default();
        assert_eq!(
            leaf_stats(Kind::Float64, &cells, &exact),
            (None, None, 1),
            "no NaN-free bound is claimed"
        );
        let arrow_like = StatsPolicy {
            nan_excluded_bounds: true,
            ..StatsPolicy::default()
        };
        assert_eq!(
            leaf_stats(Kind::Float64, &cells, &arrow_like),
            (Some(json!(1.0)), Some(json!(2.0)), 1)
        );
    }
}
