//! A simulated file's statistics, written as Delta Spark writes them: `numRecords`, and for
//! each column the table collects statistics for (`delta.dataSkippingStatsColumns`, else the
//! first `delta.dataSkippingNumIndexedCols` columns, 32 by default, as the kernel's statistics
//! schema selects them: `replay::indexed_columns`) its `nullCount` and, where a writer records
//! them, `minValues` and `maxValues`:
//!
//! | column type | min / max as written |
//! |---|---|
//! | integers | the values |
//! | float, double | the values; none when the file holds a NaN (no NaN-free bound can be claimed) |
//! | decimal | the exact digits |
//! | string | the first 32 characters; a longer max gets a U+10FFFF tie-breaker after them |
//! | date | `YYYY-MM-DD` |
//! | timestamp | milliseconds, `...T..:..:..sssZ`: both bounds cut to the millisecond, as Spark does (the explainer widens a cut max, pitfall 3) |
//! | boolean, binary, nested | none (null counts only for the flat ones) |
//!
//! Counts of a sample are scaled up by `1 / rate`.

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimeUnit, TimestampMicrosecondType,
};
use serde_json::{Map, Value, json};

/// Characters of a string bound (Delta Spark's `stringPrefixLength`).
pub const STRING_PREFIX: usize = 32;
/// What follows a cut max string, so that it stays above every string with that prefix.
const TIE_BREAKER: char = '\u{10FFFF}';

/// The statistics JSON of a file holding `rows` (a sample of it at `rate`), for the columns
/// named in `indexed`.
pub fn file_stats(rows: &RecordBatch, rate: f64, indexed: &[String]) -> String {
    let scale = |n: usize| (n as f64 / rate).round() as u64;
    let (mut mins, mut maxs, mut nulls) = (Map::new(), Map::new(), Map::new());
    for name in indexed {
        let Some(column) = rows.column_by_name(name) else {
            continue;
        };
        if is_nested(column.data_type()) {
            continue;
        }
        nulls.insert(name.clone(), json!(scale(column.null_count())));
        if let Some((lo, hi)) = bounds(column) {
            mins.insert(name.clone(), lo);
            maxs.insert(name.clone(), hi);
        }
    }
    json!({
        "numRecords": scale(rows.num_rows()),
        "minValues": mins,
        "maxValues": maxs,
        "nullCount": nulls,
    })
    .to_string()
}

fn is_nested(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Struct(_)
            | DataType::List(_)
            | DataType::LargeList(_)
            | DataType::Map(_, _)
            | DataType::FixedSizeList(_, _)
    )
}

/// The min and max a writer records for `column`, `None` where it records none.
fn bounds(column: &ArrayRef) -> Option<(Value, Value)> {
    if column.null_count() == column.len() {
        return None;
    }
    match column.data_type() {
        DataType::Int8 => ints(
            column
                .as_primitive::<Int8Type>()
                .iter()
                .flatten()
                .map(i64::from),
        ),
        DataType::Int16 => ints(
            column
                .as_primitive::<Int16Type>()
                .iter()
                .flatten()
                .map(i64::from),
        ),
        DataType::Int32 => ints(
            column
                .as_primitive::<Int32Type>()
                .iter()
                .flatten()
                .map(i64::from),
        ),
        DataType::Int64 => ints(column.as_primitive::<Int64Type>().iter().flatten()),
        DataType::Float32 => floats(
            column
                .as_primitive::<Float32Type>()
                .iter()
                .flatten()
                .map(f64::from),
        ),
        DataType::Float64 => floats(column.as_primitive::<Float64Type>().iter().flatten()),
        DataType::Decimal128(_, scale) => {
            let a = column.as_primitive::<Decimal128Type>();
            let lo = a.iter().flatten().min()?;
            let hi = a.iter().flatten().max()?;
            Some((decimal(lo, *scale)?, decimal(hi, *scale)?))
        }
        DataType::Utf8 => strings(column.as_string::<i32>().iter().flatten()),
        DataType::LargeUtf8 => strings(column.as_string::<i64>().iter().flatten()),
        DataType::Utf8View => strings(column.as_string_view().iter().flatten()),
        DataType::Date32 => {
            let a = column.as_primitive::<Date32Type>();
            let (lo, hi) = (a.iter().flatten().min()?, a.iter().flatten().max()?);
            Some((json!(date(lo)?), json!(date(hi)?)))
        }
        DataType::Timestamp(TimeUnit::Microsecond, tz) => {
            let a = column.as_primitive::<TimestampMicrosecondType>();
            let (lo, hi) = (a.iter().flatten().min()?, a.iter().flatten().max()?);
            let utc = tz.is_some();
            Some((json!(millis(lo, utc)?), json!(millis(hi, utc)?)))
        }
        // Writers record no bounds for these (booleans, binary) or the oracle's reader does not
        // produce them for a Delta table; no bound is the sound choice.
        DataType::Null
        | DataType::Boolean
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Float16
        | DataType::Timestamp(_, _)
        | DataType::Date64
        | DataType::Time32(_)
        | DataType::Time64(_)
        | DataType::Duration(_)
        | DataType::Interval(_)
        | DataType::Binary
        | DataType::FixedSizeBinary(_)
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::List(_)
        | DataType::ListView(_)
        | DataType::FixedSizeList(_, _)
        | DataType::LargeList(_)
        | DataType::LargeListView(_)
        | DataType::Struct(_)
        | DataType::Union(_, _)
        | DataType::Dictionary(_, _)
        | DataType::Decimal32(_, _)
        | DataType::Decimal64(_, _)
        | DataType::Decimal256(_, _)
        | DataType::Map(_, _)
        | DataType::RunEndEncoded(_, _) => None,
    }
}

fn ints(values: impl Iterator<Item = i64> + Clone) -> Option<(Value, Value)> {
    Some((json!(values.clone().min()?), json!(values.max()?)))
}

fn floats(values: impl Iterator<Item = f64> + Clone) -> Option<(Value, Value)> {
    if values.clone().any(f64::is_nan) {
        return None;
    }
    let lo = values.clone().fold(f64::INFINITY, f64::min);
    let hi = values.fold(f64::NEG_INFINITY, f64::max);
    // An infinite bound is not written as a JSON number: the pair is dropped whole.
    (lo.is_finite() && hi.is_finite()).then(|| (json!(lo), json!(hi)))
}

fn strings<'a>(values: impl Iterator<Item = &'a str> + Clone) -> Option<(Value, Value)> {
    let lo = values.clone().min()?;
    let hi = values.max()?;
    let prefix = |s: &str| s.chars().take(STRING_PREFIX).collect::<String>();
    let max = if hi.chars().count() > STRING_PREFIX {
        let mut cut = prefix(hi);
        cut.push(TIE_BREAKER);
        cut
    } else {
        hi.to_string()
    };
    Some((json!(prefix(lo)), json!(max)))
}

/// A decimal's exact digits as a JSON number.
fn decimal(unscaled: i128, scale: i8) -> Option<Value> {
    let text = if scale <= 0 {
        format!(
            "{}",
            unscaled * 10i128.checked_pow(u32::from(scale.unsigned_abs()))?
        )
    } else {
        let digits = unscaled.unsigned_abs().to_string();
        let scale = usize::from(scale.unsigned_abs());
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (int, frac) = padded.split_at(padded.len() - scale);
        format!("{}{int}.{frac}", if unscaled < 0 { "-" } else { "" })
    };
    serde_json::from_str(&text).ok()
}

fn date(days: i32) -> Option<String> {
    let d = chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?
        .checked_add_signed(chrono::Duration::days(i64::from(days)))?;
    Some(d.format("%Y-%m-%d").to_string())
}

/// Microseconds since the epoch as Spark writes a timestamp bound: cut to the millisecond.
fn millis(micros: i64, utc: bool) -> Option<String> {
    let t = chrono::DateTime::from_timestamp_micros(micros.div_euclid(1000) * 1000)?;
    Some(if utc {
        t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
    } else {
        t.naive_utc().format("%Y-%m-%dT%H:%M:%S%.3f").to_string()
    })
}

/// A partition value as the log writes it: numbers and strings as text, dates `YYYY-MM-DD`,
/// timestamps `YYYY-MM-DD HH:MM:SS.ffffff`; `None` for a null. `None` inside `Some` is never
/// produced: a type the advisor does not partition by gives `Err`.
pub fn partition_value(column: &ArrayRef, row: usize) -> Result<Option<String>, String> {
    if column.is_null(row) {
        return Ok(None);
    }
    Ok(Some(match column.data_type() {
        DataType::Int8 => column.as_primitive::<Int8Type>().value(row).to_string(),
        DataType::Int16 => column.as_primitive::<Int16Type>().value(row).to_string(),
        DataType::Int32 => column.as_primitive::<Int32Type>().value(row).to_string(),
        DataType::Int64 => column.as_primitive::<Int64Type>().value(row).to_string(),
        DataType::Utf8 => column.as_string::<i32>().value(row).to_string(),
        DataType::LargeUtf8 => column.as_string::<i64>().value(row).to_string(),
        DataType::Boolean => column.as_boolean().value(row).to_string(),
        DataType::Date32 => {
            date(column.as_primitive::<Date32Type>().value(row)).ok_or("a date out of range")?
        }
        other => {
            return Err(format!(
                "the advisor does not partition by a {other} column"
            ));
        }
    }))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Float64Array, Int64Array, StringArray, TimestampMicrosecondArray};
    use arrow::datatypes::{Field, Schema};

    use super::*;

    #[test]
    fn statistics_follow_the_writers_rules() {
        let long = "x".repeat(40);
        let schema = Arc::new(Schema::new(vec![
            Field::new("i", DataType::Int64, true),
            Field::new("f", DataType::Float64, true),
            Field::new("s", DataType::Utf8, true),
            Field::new(
                "t",
                DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                true,
            ),
            Field::new("n", DataType::Float64, true),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(Int64Array::from(vec![Some(3), None, Some(-7)])),
                Arc::new(Float64Array::from(vec![1.5, 2.5, f64::NAN])),
                Arc::new(StringArray::from(vec![
                    Some("b"),
                    Some(long.as_str()),
                    None,
                ])),
                Arc::new(
                    TimestampMicrosecondArray::from(vec![1_000_999, 2_000_999, 3_000_999])
                        .with_timezone("UTC"),
                ),
                Arc::new(Float64Array::from(vec![Some(1.0), None, Some(2.0)])),
            ],
        )
        .unwrap();
        let indexed: Vec<String> = ["i", "f", "s", "t"].map(String::from).to_vec();
        let stats: Value = serde_json::from_str(&file_stats(&batch, 0.5, &indexed)).unwrap();
        assert_eq!(stats["numRecords"], 6);
        assert_eq!(stats["minValues"]["i"], -7);
        assert_eq!(stats["maxValues"]["i"], 3);
        assert_eq!(stats["nullCount"]["i"], 2);
        // A NaN leaves the column without bounds.
        assert!(stats["minValues"].get("f").is_none());
        assert_eq!(stats["minValues"]["s"], "b");
        let max = stats["maxValues"]["s"].as_str().unwrap();
        assert_eq!(max.chars().count(), 33);
        assert!(max.ends_with('\u{10FFFF}') && max > long.as_str());
        assert_eq!(stats["minValues"]["t"], "1970-01-01T00:00:01.000Z");
        assert_eq!(stats["maxValues"]["t"], "1970-01-01T00:00:03.000Z");
        // Not an indexed column: no statistics at all.
        assert!(stats["nullCount"].get("n").is_none());
    }

    #[test]
    fn decimals_keep_their_digits() {
        assert_eq!(decimal(12345, 2).unwrap().to_string(), "123.45");
        assert_eq!(decimal(-5, 3).unwrap().to_string(), "-0.005");
        assert_eq!(decimal(7, 0).unwrap().to_string(), "7");
    }
}
