//! Hazards of a column's statistics whatever the predicate: float bounds without NaN, timestamp
//! bounds at millisecond precision, bounds recorded in a type the column was widened from,
//! files recording min/max but no null count; and string maxima cut to a prefix.

use delta_kernel::schema::{DataType, PrimitiveType};

use super::{
    ColumnHazard, ColumnStats, NULL_COUNT_ABSENT, StringBounds, TIMESTAMP_MILLIS_BOUNDS, WriterSpan,
};
use crate::replay::ReplayedTable;
use explain_compiler::guards::{NAN_UNGUARDED_BOUNDS, TYPE_WIDENING_STATS};

/// The top-level data columns of a primitive type `wanted` picks.
pub(super) fn columns_of_type(
    table: &ReplayedTable,
    wanted: fn(&PrimitiveType) -> bool,
) -> Vec<String> {
    let partitions = table.columns().partition_columns();
    table
        .snapshot()
        .schema()
        .fields()
        .filter(|f| !partitions.iter().any(|p| p == f.name()))
        .filter(|f| matches!(f.data_type(), DataType::Primitive(p) if wanted(p)))
        .map(|f| f.name().to_string())
        .collect()
}

/// Per string column, the maxima cut to a prefix and the prefix's length.
pub(super) fn string_bounds(table: &ReplayedTable) -> Vec<StringBounds> {
    let columns = columns_of_type(table, |p| matches!(p, PrimitiveType::String));
    let parsed: Vec<serde_json::Value> = table
        .stats_jsons()
        .filter_map(|s| s.and_then(|s| serde_json::from_str(s).ok()))
        .collect();
    columns
        .into_iter()
        .map(|column| {
            let bound = |stats: &serde_json::Value, section: &str| {
                stats[section][column.as_str()].as_str().map(str::to_string)
            };
            let maxima: Vec<String> = parsed
                .iter()
                .filter_map(|s| bound(s, "maxValues"))
                .collect();
            let minima: Vec<String> = parsed
                .iter()
                .filter_map(|s| bound(s, "minValues"))
                .collect();
            let cut: Vec<&String> = maxima
                .iter()
                .filter(|m| m.ends_with(['\u{10FFFF}', '\u{FFFD}']))
                .collect();
            StringBounds {
                truncated_maxima: cut.len(),
                prefix_length: cut.iter().map(|m| m.chars().count() - 1).max(),
                longest_bound: maxima
                    .iter()
                    .chain(&minima)
                    .map(|b| b.chars().count())
                    .max()
                    .unwrap_or(0),
                column,
            }
        })
        .collect()
}

/// Every column hazard of the table, the float columns' naming `writers`.
pub(super) fn hazards(
    table: &ReplayedTable,
    writers: &[WriterSpan],
    columns: &[ColumnStats],
) -> Vec<ColumnHazard> {
    let mut out = nan_bounds(table, writers);
    out.extend(timestamp_bounds(table));
    out.extend(widened(table));
    out.extend(null_counts(columns));
    out
}

/// `NAN_UNGUARDED_BOUNDS`: the float columns, naming the table's writers.
fn nan_bounds(table: &ReplayedTable, writers: &[WriterSpan]) -> Vec<ColumnHazard> {
    let mut names: Vec<&str> = Vec::new();
    for w in writers {
        if !names.contains(&w.writer.as_str()) {
            names.push(&w.writer);
        }
    }
    columns_of_type(table, |p| matches!(p, PrimitiveType::Float | PrimitiveType::Double))
        .into_iter()
        .map(|column| ColumnHazard {
            message: format!(
                "`{column}` is a float column: writers that take min/max from Parquet statistics leave NaN out of them (this table's writers: {}), so a comparison NaN satisfies in Spark and DuckDB (NaN above every number) may prune a file holding NaN; the default mode announces it (NAN_UNGUARDED_BOUNDS), --strict keeps such files",
                if names.is_empty() { "unknown".to_string() } else { names.join(", ") }
            ),
            code: NAN_UNGUARDED_BOUNDS,
            column,
        })
        .collect()
}

/// The digits after the second's point of a recorded timestamp (`2024-01-03T05:00:00.123Z`:
/// `123`), without trailing zeros.
fn fraction_digits(text: &str) -> usize {
    let Some((_, time)) = text.split_once('T').or_else(|| text.split_once(' ')) else {
        return 0;
    };
    let Some((_, after)) = time.split_once('.') else {
        return 0;
    };
    after
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .trim_end_matches('0')
        .len()
}

/// `TIMESTAMP_MILLIS_BOUNDS`: a timestamp column whose recorded maxima are all at millisecond
/// precision or coarser (the protocol lets writers truncate them), so each may lie up to
/// 999 µs below its file's largest value.
fn timestamp_bounds(table: &ReplayedTable) -> Vec<ColumnHazard> {
    let parsed: Vec<serde_json::Value> = table
        .stats_jsons()
        .filter_map(|s| s.and_then(|s| serde_json::from_str(s).ok()))
        .collect();
    columns_of_type(table, |p| {
        matches!(p, PrimitiveType::Timestamp | PrimitiveType::TimestampNtz)
    })
    .into_iter()
    .filter_map(|column| {
        let maxima: Vec<&str> = parsed
            .iter()
            .filter_map(|s| s["maxValues"][column.as_str()].as_str())
            .collect();
        let finer = maxima.iter().any(|m| fraction_digits(m) > 3);
        (!maxima.is_empty() && !finer).then(|| ColumnHazard {
            message: format!(
                "`{column}`'s recorded maxima ({} file(s)) are at millisecond precision, as the protocol lets writers truncate them: each may lie up to 999 µs below its file's largest value; pruning allows for it (the kernel compares with the maximum plus 999 µs), so a filter within a millisecond above a maximum keeps the file",
                maxima.len()
            ),
            code: TIMESTAMP_MILLIS_BOUNDS,
            column,
        })
    })
    .collect()
}

/// `TYPE_WIDENING_STATS`: a column whose `delta.typeChanges` records a widening: files written
/// before it record bounds in the old type.
fn widened(table: &ReplayedTable) -> Vec<ColumnHazard> {
    let schema = table.snapshot().schema();
    schema
        .fields()
        .filter_map(|field| {
            let delta_kernel::schema::MetadataValue::Other(serde_json::Value::Array(changes)) =
                field.metadata().get("delta.typeChanges")?
            else {
                return None;
            };
            let said: Vec<String> = changes
                .iter()
                .map(|c| {
                    let text = |k: &str| c.get(k).and_then(serde_json::Value::as_str).unwrap_or("?");
                    let at = c
                        .get("tableVersion")
                        .and_then(serde_json::Value::as_u64)
                        .map_or(String::new(), |v| format!(" at version {v}"));
                    format!("{} -> {}{at}", text("fromType"), text("toType"))
                })
                .collect();
            Some(ColumnHazard {
                column: field.name().to_string(),
                code: TYPE_WIDENING_STATS,
                message: format!(
                    "`{}` was widened ({}): files written before record bounds in the old type, read as the new one (integers exactly; a float widened to double is read both ways, TYPE_WIDENING_STATS); a rewrite of those files records bounds in the new type",
                    field.name(),
                    said.join(", ")
                ),
            })
        })
        .collect()
}

/// `NULL_COUNT_ABSENT`: files recording a column's min/max but not its null count: `IS NULL`
/// cannot prune them.
fn null_counts(columns: &[ColumnStats]) -> Vec<ColumnHazard> {
    columns
        .iter()
        .filter(|c| c.files_with_null_count < c.files_with_min_max)
        .map(|c| ColumnHazard {
            column: c.column.clone(),
            code: NULL_COUNT_ABSENT,
            message: format!(
                "{} file(s) record `{}`'s min/max but no null count: `{} IS NULL` keeps them whatever they hold",
                c.files_with_min_max - c.files_with_null_count,
                c.column,
                c.column
            ),
        })
        .collect()
}
