//! Tables checked before a reader is blamed: a table under test whose log contradicts its own
//! files is `invalid-table` (our table, or a writer bug a knob reproduces), never a reader's
//! finding.
//!
//! | check | what must hold | read from |
//! |---|---|---|
//! | partition values | each file's value parses in its column's type (`0.-25` is no double) | the log, the oracle's reading of a partition value |
//! | bounds | each data column's recorded min is at most, and its max at least, every non-NaN value of the file, as the oracle trusts the bounds (a truncated string maximum is no bound, a millisecond timestamp maximum covers its millisecond) | the log's statistics, the oracle's rows |
//! | null counts | a recorded null count is the file's count of NULLs (files with a deletion vector aside: their counts include deleted rows) | the same |
//! | deletion vectors | a file with a deletion vector records its data file's `numRecords` (the protocol's writer requirement for deletion vectors) | the log |

use std::cmp::Ordering;

use arrow::array::{Array, UInt32Array};
use datafusion::scalar::ScalarValue;
use oracle::delta_schema::arrow_type;
use oracle::matching::FILE_COLUMN;
use oracle::partition::typed_value;
use oracle::pruning::{logged_bound, logged_null_count};

use super::TableUnderTest;

/// The most problems said per table (the first show the cause).
const SAID: usize = 5;

/// What is wrong with `table`'s log against its files; empty when it is valid.
pub fn problems(table: &TableUnderTest) -> Vec<String> {
    let snapshot = &table.loaded.snapshot;
    let mut out = Vec::new();
    for (i, file) in snapshot.files.iter().enumerate() {
        if file.deletion_vector.is_some() && file.num_records().is_none() {
            out.push(format!(
                "file {i} ({}): a deletion vector without the data file's `numRecords` in its statistics",
                file.path
            ));
        }
        for name in snapshot.partition_columns() {
            let Some(field) = snapshot.field(name) else {
                continue;
            };
            let data_type = arrow_type(&field.data_type);
            let raw = file
                .partition_values
                .get(field.physical(snapshot.mapping))
                .or_else(|| file.partition_values.get(&field.name));
            let raw = raw.and_then(|v| v.as_deref());
            if let Err(e) = typed_value(raw, &data_type) {
                out.push(format!(
                    "file {i} ({}): the partition value {raw:?} of `{name}` is not a {data_type}: {e}",
                    file.path
                ));
            }
        }
    }
    for field in &snapshot.fields {
        if snapshot
            .partition_columns()
            .iter()
            .any(|p| p == &field.name)
            || !field.data_type.is_primitive()
        {
            continue;
        }
        let Some(seen) = seen_values(table, &field.name) else {
            continue;
        };
        for (i, (low, high, nulls)) in seen.iter().enumerate() {
            let file = &snapshot.files[i];
            let mut said = |what: String| {
                out.push(format!("file {i} ({}): `{}` {what}", file.path, field.name))
            };
            if let (Some(low), Some(logged)) = (low, logged_bound(snapshot, i, &field.name, false))
                && compare(&logged, low) == Some(Ordering::Greater)
            {
                said(format!("has {low} below its recorded min {logged}"));
            }
            if let (Some(high), Some(logged)) = (high, logged_bound(snapshot, i, &field.name, true))
                && compare(&logged, high) == Some(Ordering::Less)
            {
                said(format!("has {high} above its recorded max {logged}"));
            }
            if file.deletion_vector.is_none()
                && let Some(logged) = logged_null_count(snapshot, i, &field.name)
                && logged != *nulls
            {
                said(format!("has {nulls} NULL(s) where the log counts {logged}"));
            }
        }
    }
    out.truncate(SAID);
    out
}

/// One file's least and greatest value of a column, and its NULLs.
type Seen = (Option<ScalarValue>, Option<ScalarValue>, u64);

/// Per live file: the least and greatest non-NULL, non-NaN value of column `name` in the
/// oracle's rows, and its NULLs; `None` when the rows do not hold the column.
fn seen_values(table: &TableUnderTest, name: &str) -> Option<Vec<Seen>> {
    let mut out = vec![(None, None, 0u64); table.files()];
    for batch in table.loaded.rows() {
        let files = batch
            .column_by_name(FILE_COLUMN)?
            .as_any()
            .downcast_ref::<UInt32Array>()?;
        let column = batch.column_by_name(name)?;
        for row in 0..batch.num_rows() {
            let Some(slot) = out.get_mut(files.value(row) as usize) else {
                continue;
            };
            if column.is_null(row) {
                slot.2 += 1;
                continue;
            }
            let Ok(value) = ScalarValue::try_from_array(column, row) else {
                continue;
            };
            if is_nan(&value) {
                continue;
            }
            if slot
                .0
                .as_ref()
                .is_none_or(|lo| compare(&value, lo) == Some(Ordering::Less))
            {
                slot.0 = Some(value.clone());
            }
            if slot
                .1
                .as_ref()
                .is_none_or(|hi| compare(&value, hi) == Some(Ordering::Greater))
            {
                slot.1 = Some(value);
            }
        }
    }
    Some(out)
}

fn is_nan(v: &ScalarValue) -> bool {
    match v {
        ScalarValue::Float32(Some(x)) => x.is_nan(),
        ScalarValue::Float64(Some(x)) => x.is_nan(),
        _ => false,
    }
}

/// The order of two values of one column: as DataFusion orders them, strings of any arrow
/// encoding by their bytes, a float column's bound read as the other width; `None` where
/// the two do not compare (then nothing is said).
fn compare(a: &ScalarValue, b: &ScalarValue) -> Option<Ordering> {
    let text = |v: &ScalarValue| match v {
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => Some(s.clone()),
        _ => None,
    };
    let float = |v: &ScalarValue| match v {
        ScalarValue::Float32(Some(x)) => Some(f64::from(*x)),
        ScalarValue::Float64(Some(x)) => Some(*x),
        _ => None,
    };
    a.partial_cmp(b)
        .or_else(|| Some(text(a)?.as_bytes().cmp(text(b)?.as_bytes())))
        .or_else(|| float(a)?.partial_cmp(&float(b)?))
}
