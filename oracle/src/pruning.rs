//! A second kept set, built by code this project did not write: DataFusion's
//! `PruningPredicate` over the replayed per-file statistics.
//!
//! Each file is a container. Data columns give min/max/null counts from the file's stats (by
//! physical name); partition columns give min = max = the typed value, and a null count equal
//! to the row count when the value is NULL. Where the log's statistics are lossy the bounds
//! are widened so the kept set stays sound (pitfalls 3, 4, 7):
//! - timestamps are truncated to milliseconds: max + 999 us;
//! - a string max exactly `delta.dataSkippingStringPrefixLength` characters long (32 by
//!   default) may be a bare prefix: no max;
//! - a column widened from float keeps f32 bounds in old files: both readings of the number
//!   (as f64, and as f32 widened) bound the value.
//!
//! Nested columns are not containers of their own here: a predicate on one keeps every file.

use std::collections::HashSet;
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, UInt64Array, new_null_array};
use arrow::datatypes::DataType;
use datafusion::common::Column;
use datafusion::common::pruning::PruningStatistics;
use datafusion::physical_optimizer::pruning::{PruningPredicate, PruningPredicateBuilder};
use datafusion::scalar::ScalarValue;
use serde_json::Value;

use crate::delta_schema::{DeltaField, arrow_schema, arrow_type};
use crate::error::{OracleError, one_line};
use crate::log::replay::Snapshot;
use crate::matching::physical_predicate;
use crate::partition::typed_value;

/// Per live file: whether DataFusion's pruning over the replayed statistics keeps it.
pub fn kept_by_statistics(snapshot: &Snapshot, predicate: &str) -> Result<Vec<bool>, OracleError> {
    let pruning = pruning_predicate(snapshot, predicate)?;
    let stats = SnapshotStatistics::new(snapshot);
    pruning.prune(&stats).map_err(|e| {
        OracleError::log(format!(
            "statistics pruning failed: {}",
            one_line(&e.to_string())
        ))
    })
}

/// `predicate` planned by DataFusion as its pruning over containers of the table's logical
/// columns (files here, row groups in `row_groups.rs`).
pub(crate) fn pruning_predicate(
    snapshot: &Snapshot,
    predicate: &str,
) -> Result<PruningPredicate, OracleError> {
    let schema = arrow_schema(&snapshot.fields);
    let physical = physical_predicate(snapshot, predicate)?;
    PruningPredicateBuilder::new()
        .with_file_schema(schema)
        .try_build(physical)
        .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))
}

/// The bound the log records for data column `name` of live file `i` (its min, or its max
/// when `is_max`), as the oracle trusts it when pruning: a truncated string maximum is no
/// bound, a millisecond timestamp maximum covers its millisecond, a float widened to double
/// keeps both readings. `None`: no bound to trust (none recorded, a partition column, a
/// nested or unknown column).
pub fn logged_bound(
    snapshot: &Snapshot,
    i: usize,
    name: &str,
    is_max: bool,
) -> Option<ScalarValue> {
    let stats = SnapshotStatistics::new(snapshot);
    let (field, data_type) = stats.field(&Column::from_name(name))?;
    if stats.is_partition(&field.name)
        || matches!(
            data_type,
            DataType::Struct(_) | DataType::List(_) | DataType::Map(_, _)
        )
    {
        return None;
    }
    let section = if is_max { "maxValues" } else { "minValues" };
    stats
        .stat(i, section, field)
        .and_then(|v| stat_value(v, field, &data_type, is_max, stats.string_prefix))
}

/// The null count the log records for data column `name` of live file `i`, if any.
pub fn logged_null_count(snapshot: &Snapshot, i: usize, name: &str) -> Option<u64> {
    let stats = SnapshotStatistics::new(snapshot);
    let (field, _) = stats.field(&Column::from_name(name))?;
    stats.stat(i, "nullCount", field)?.as_u64()
}

struct SnapshotStatistics<'a> {
    snapshot: &'a Snapshot,
    string_prefix: usize,
}

impl<'a> SnapshotStatistics<'a> {
    fn new(snapshot: &'a Snapshot) -> Self {
        let string_prefix = snapshot
            .metadata
            .configuration
            .get("delta.dataSkippingStringPrefixLength")
            .and_then(|v| v.as_deref()?.parse().ok())
            .unwrap_or(32);
        Self {
            snapshot,
            string_prefix,
        }
    }

    fn field(&self, column: &Column) -> Option<(&'a DeltaField, DataType)> {
        let field = self.snapshot.field(&column.name)?;
        Some((field, arrow_type(&field.data_type)))
    }

    fn is_partition(&self, name: &str) -> bool {
        self.snapshot.partition_columns().iter().any(|p| p == name)
    }

    fn partition_value(
        &self,
        i: usize,
        field: &DeltaField,
        data_type: &DataType,
    ) -> Option<ScalarValue> {
        let file = &self.snapshot.files[i];
        let raw = file
            .partition_values
            .get(field.physical(self.snapshot.mapping))
            .or_else(|| file.partition_values.get(&field.name))?;
        typed_value(raw.as_deref(), data_type).ok()
    }

    fn stat(&self, i: usize, section: &str, field: &DeltaField) -> Option<&'a Value> {
        let stats = self.snapshot.files[i].stats.as_ref()?;
        stats
            .get(section)?
            .get(field.physical(self.snapshot.mapping))
            .filter(|v| !v.is_null())
    }

    /// Min (`is_max` false) or max of each file, widened where the log is lossy.
    fn bounds(&self, column: &Column, is_max: bool) -> Option<ArrayRef> {
        let (field, data_type) = self.field(column)?;
        if matches!(
            data_type,
            DataType::Struct(_) | DataType::List(_) | DataType::Map(_, _)
        ) {
            return None;
        }
        let n = self.snapshot.files.len();
        let values: Vec<ScalarValue> = (0..n)
            .map(|i| {
                let value = if self.is_partition(&field.name) {
                    self.partition_value(i, field, &data_type)
                } else {
                    self.stat(i, if is_max { "maxValues" } else { "minValues" }, field)
                        .and_then(|v| stat_value(v, field, &data_type, is_max, self.string_prefix))
                };
                value.unwrap_or_else(|| {
                    ScalarValue::try_from(&data_type).unwrap_or(ScalarValue::Null)
                })
            })
            .collect();
        ScalarValue::iter_to_array(values)
            .ok()
            .or_else(|| Some(new_null_array(&data_type, n)))
    }
}

/// A statistics JSON value as `data_type`, `None` when it cannot be trusted as a bound.
fn stat_value(
    v: &Value,
    field: &DeltaField,
    data_type: &DataType,
    is_max: bool,
    string_prefix: usize,
) -> Option<ScalarValue> {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    if *data_type == DataType::Utf8 && is_max && text.chars().count() == string_prefix {
        return None;
    }
    if field.widened_from_float && *data_type == DataType::Float64 {
        let wide: f64 = text.parse().ok()?;
        let narrow = f64::from(text.parse::<f32>().ok()?);
        return Some(ScalarValue::Float64(Some(if is_max {
            wide.max(narrow)
        } else {
            wide.min(narrow)
        })));
    }
    let value = typed_value(Some(&text), data_type).ok()?;
    match (value, is_max) {
        (ScalarValue::TimestampMicrosecond(Some(t), tz), true) => {
            Some(ScalarValue::TimestampMicrosecond(Some(t + 999), tz))
        }
        (value, _) => Some(value),
    }
}

impl PruningStatistics for SnapshotStatistics<'_> {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bounds(column, false)
    }

    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bounds(column, true)
    }

    fn num_containers(&self) -> usize {
        self.snapshot.files.len()
    }

    fn null_counts(&self, column: &Column) -> Option<ArrayRef> {
        let (field, data_type) = self.field(column)?;
        let counts: Vec<Option<u64>> = (0..self.snapshot.files.len())
            .map(|i| {
                if self.is_partition(&field.name) {
                    let value = self.partition_value(i, field, &data_type)?;
                    // A NULL partition value: every row is NULL (at least one if unknown).
                    Some(if value.is_null() {
                        self.snapshot.files[i].num_records().unwrap_or(1)
                    } else {
                        0
                    })
                } else {
                    self.stat(i, "nullCount", field)?.as_u64()
                }
            })
            .collect();
        Some(Arc::new(UInt64Array::from(counts)))
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        let counts: Vec<Option<u64>> = self
            .snapshot
            .files
            .iter()
            .map(|f| f.num_records())
            .collect();
        Some(Arc::new(UInt64Array::from(counts)))
    }

    fn contained(&self, column: &Column, values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        let (field, data_type) = self.field(column)?;
        if !self.is_partition(&field.name) {
            return None;
        }
        let flags: Vec<Option<bool>> = (0..self.snapshot.files.len())
            .map(|i| {
                let value = self.partition_value(i, field, &data_type)?;
                if value.is_null() {
                    None
                } else {
                    Some(values.contains(&value))
                }
            })
            .collect();
        Some(BooleanArray::from(flags))
    }
}

#[cfg(test)]
mod tests {
    use arrow::datatypes::TimeUnit;

    use super::*;
    use crate::delta_schema::DeltaType;

    fn field(t: &str, widened: bool) -> DeltaField {
        DeltaField {
            name: "c".into(),
            data_type: DeltaType::Primitive(t.into()),
            nullable: true,
            physical_name: None,
            field_id: None,
            widened_from_float: widened,
            spark_type: None,
            collation: None,
        }
    }

    #[test]
    fn lossy_statistics_are_widened() {
        let ts = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
        let f = field("timestamp", false);
        let max = stat_value(&Value::from("2024-01-03T10:00:00.123Z"), &f, &ts, true, 32).unwrap();
        let min = stat_value(&Value::from("2024-01-03T10:00:00.123Z"), &f, &ts, false, 32).unwrap();
        let (
            ScalarValue::TimestampMicrosecond(Some(max), _),
            ScalarValue::TimestampMicrosecond(Some(min), _),
        ) = (max, min)
        else {
            panic!("timestamps")
        };
        assert_eq!(max - min, 999, "a truncated max widens by 999 us");

        let s = field("string", false);
        let prefix = "a".repeat(32);
        assert_eq!(
            stat_value(&Value::from(prefix.clone()), &s, &DataType::Utf8, true, 32),
            None,
            "a bare prefix is no max"
        );
        assert!(
            stat_value(&Value::from(prefix), &s, &DataType::Utf8, false, 32).is_some(),
            "a prefix is a fine min"
        );

        let w = field("double", true);
        let max = stat_value(&Value::from(3.4), &w, &DataType::Float64, true, 32).unwrap();
        assert_eq!(
            max,
            ScalarValue::Float64(Some(f64::from(3.4f32))),
            "f32 3.4 widened is above f64 3.4"
        );
        let min = stat_value(&Value::from(3.4), &w, &DataType::Float64, false, 32).unwrap();
        assert_eq!(min, ScalarValue::Float64(Some(3.4)));
    }
}
