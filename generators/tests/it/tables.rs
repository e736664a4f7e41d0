//! Every catalog table is read by delta_kernel (through explain-core) and by the oracle with
//! identical live file sets, and each file's statistics agree with its data under the declared
//! policy (the data read back by the oracle's reader, not taken from the generator's memory).

use std::collections::BTreeSet;

use arrow::array::Array;
use datafusion::scalar::ScalarValue;
use explain_core::replay::ReplayedTable;
use generators::catalog::{NAMES, named};
use generators::spec::{Kind, StringTruncation, TableSpec};
use generators::writer::{write_metadata_only, write_table};
use oracle::log::Snapshot;
use oracle::partition::typed_value;
use oracle::read::read_file;
use serde_json::Value;

fn live_sets_agree(location: &str) {
    let kernel: BTreeSet<String> = ReplayedTable::open(location, None)
        .unwrap_or_else(|e| panic!("{location}: kernel: {e}"))
        .paths()
        .map(str::to_string)
        .collect();
    let oracle: BTreeSet<String> = Snapshot::open(location, None)
        .unwrap_or_else(|e| panic!("{location}: oracle: {e}"))
        .files
        .iter()
        .map(|f| f.path.clone())
        .collect();
    assert_eq!(kernel, oracle, "{location}: live files");
    assert!(!kernel.is_empty(), "{location}: has files");
}

#[test]
fn catalog_tables_read_the_same_in_both_readers() {
    for name in NAMES {
        let dir = tempfile::tempdir().unwrap();
        let spec = named(name).unwrap();
        let written = write_table(&spec, dir.path()).unwrap();
        let location = dir.path().to_string_lossy().into_owned();
        live_sets_agree(&location);
        let live = written.files.iter().filter(|f| !f.removed).count();
        assert_eq!(
            Snapshot::open(&location, None).unwrap().files.len(),
            live,
            "{name}"
        );
        check_stats_against_data(&spec, &location);
    }
}

#[test]
fn metadata_only_tables_read_the_same_in_both_readers() {
    for (checkpoint, partitions) in [(true, 0), (true, 7), (false, 0), (false, 3)] {
        let dir = tempfile::tempdir().unwrap();
        write_metadata_only(dir.path(), 2500, partitions, checkpoint, 1000).unwrap();
        let location = dir.path().to_string_lossy().into_owned();
        live_sets_agree(&location);
        assert_eq!(Snapshot::open(&location, None).unwrap().files.len(), 2500);
    }
}

/// A bound as a typed value of the column.
fn bound(value: &Value, data_type: &arrow::datatypes::DataType) -> ScalarValue {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    typed_value(Some(&text), data_type).unwrap_or_else(|e| panic!("bound {value}: {e}"))
}

fn is_nan(v: &ScalarValue) -> bool {
    matches!(v, ScalarValue::Float32(Some(f)) if f.is_nan())
        || matches!(v, ScalarValue::Float64(Some(f)) if f.is_nan())
}

/// Reads every file back and checks min <= v <= max and the null count, with the declared
/// lossy policies accounted for: a truncated timestamp max plus 999 us bounds the data, a
/// bare string prefix bounds the data's prefix, NaN is left out when the policy says so.
fn check_stats_against_data(spec: &TableSpec, location: &str) {
    let snapshot = Snapshot::open(location, None).unwrap();
    let schema = oracle::delta_schema::arrow_schema(&snapshot.fields);
    let mut checked = 0;
    for file in &snapshot.files {
        let rows = read_file(&snapshot, file, None).unwrap();
        let Some(stats) = &file.stats else { continue };
        for column in spec.data_columns() {
            if column.kind == Kind::Struct {
                continue;
            }
            let index = schema.index_of(&column.name).unwrap();
            let data_type = schema.field(index).data_type().clone();
            let values: Vec<ScalarValue> = rows
                .batches
                .iter()
                .flat_map(|b| {
                    let a = b.column(index).clone();
                    (0..a.len()).map(move |i| ScalarValue::try_from_array(&a, i).unwrap())
                })
                .collect();
            let ctx = format!(
                "{} ({location}): {} column {}",
                spec.name, file.path, column.name
            );
            // Statistics name a column by its physical name under column mapping.
            let key = snapshot
                .fields
                .iter()
                .find(|f| f.name == column.name)
                .and_then(|f| f.physical_name.clone())
                .unwrap_or_else(|| column.name.clone());
            if let Some(n) = stats["nullCount"].get(&key).and_then(Value::as_u64) {
                assert_eq!(
                    n as usize,
                    values.iter().filter(|v| v.is_null()).count(),
                    "{ctx}: nullCount"
                );
            }
            let (Some(min), Some(max)) =
                (stats["minValues"].get(&key), stats["maxValues"].get(&key))
            else {
                continue;
            };
            let (mut min, mut max) = (bound(min, &data_type), bound(max, &data_type));
            // A file written before a float column was widened to double records the
            // shortest decimal of each f32 bound (`TYPE_WIDENING_STATS`): read back as a
            // double it lies within half an f32 ulp of the value, on either side; as an f32
            // it is the value.
            if spec.quirks.widening.is_some()
                && spec.quirks.widening.as_ref().and_then(|w| w.before(column))
                    == Some(Kind::Float32)
                && let (ScalarValue::Float64(Some(lo)), ScalarValue::Float64(Some(hi))) =
                    (&min, &max)
            {
                let as_f32 = |v: f64| f64::from(v as f32);
                let narrow_file = values.iter().all(|v| match v {
                    ScalarValue::Float64(Some(x)) => *x == as_f32(*x),
                    _ => true,
                });
                if narrow_file {
                    (min, max) = (
                        ScalarValue::Float64(Some(as_f32(*lo))),
                        ScalarValue::Float64(Some(as_f32(*hi))),
                    );
                }
            }
            if spec.stats.truncate_timestamp_max
                && let ScalarValue::TimestampMicrosecond(Some(t), tz) = &max
            {
                max = ScalarValue::TimestampMicrosecond(Some(t + 999), tz.clone());
            }
            for v in values.iter().filter(|v| !v.is_null()) {
                if is_nan(v) {
                    assert!(
                        spec.stats.nan_excluded_bounds,
                        "{ctx}: NaN present although bounds claim NaN-free"
                    );
                    continue;
                }
                if let (true, ScalarValue::Decimal128(Some(x), _, scale)) =
                    (spec.stats.decimal_bounds_f64, v)
                {
                    // Bounds through a double: the rounding is monotone, so the rounded value
                    // lies within the rounded bounds. A bound is the double the writer
                    // printed, read back as a decimal: its text gives that double again
                    // (scaling the integer would round a second time).
                    let as_f64 = |s: &ScalarValue| match s {
                        ScalarValue::Decimal128(Some(_), _, _) => s
                            .to_string()
                            .parse::<f64>()
                            .unwrap_or_else(|e| panic!("{ctx}: decimal bound {s}: {e}")),
                        other => panic!("{ctx}: decimal bound {other}"),
                    };
                    let x = *x as f64 / 10f64.powi(i32::from(*scale));
                    assert!(
                        as_f64(&min) <= x && x <= as_f64(&max),
                        "{ctx}: {v} outside [{min}, {max}] as doubles"
                    );
                    checked += 1;
                    continue;
                }
                assert!(
                    min.partial_cmp(v).is_some_and(|o| o.is_le()),
                    "{ctx}: min {min} > {v}"
                );
                let upper = match (spec.stats.string_prefix, v) {
                    (
                        Some(
                            StringTruncation::BarePrefix(n) | StringTruncation::LegacyTieBreaker(n),
                        ),
                        ScalarValue::Utf8(Some(s)),
                    ) => ScalarValue::Utf8(Some(s.chars().take(n).collect())),
                    _ => v.clone(),
                };
                assert!(
                    upper.partial_cmp(&max).is_some_and(|o| o.is_le()),
                    "{ctx}: {v} > max {max}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "{location}: some bounds were checked");
}
