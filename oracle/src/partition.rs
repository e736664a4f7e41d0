//! Partition values typed by the schema, decoded independently of any Delta library: arrow's
//! string cast parses each value as its column's Arrow type. Policy (docs/semantics.md): a JSON
//! null is NULL; the empty string is `''` on a string column and NULL on every other type;
//! timestamp values without an offset are UTC. A value that does not parse as its type (delta-rs
//! 1.6 writes some negative decimals as `0.-25`) is NULL, as Spark's cast of a partition value
//! reads it with ANSI mode off: the table is read, never refused for it.

use std::sync::Arc;

use arrow::array::{Array, StringArray};
use arrow::compute::{CastOptions, cast_with_options};
use arrow::datatypes::DataType;
use datafusion::scalar::ScalarValue;

use crate::error::OracleError;

/// Types the raw partition value `raw` as `data_type`.
pub fn typed_value(raw: Option<&str>, data_type: &DataType) -> Result<ScalarValue, String> {
    let null = || ScalarValue::try_from(data_type).map_err(|e| e.to_string());
    let text = match raw {
        None => return null(),
        Some("") if *data_type != DataType::Utf8 => return null(),
        Some(text) => text,
    };
    let input: Arc<dyn Array> = Arc::new(StringArray::from(vec![text]));
    let options = CastOptions {
        safe: false,
        ..Default::default()
    };
    let cast = cast_with_options(&input, data_type, &options)
        .map_err(|e| format!("partition value `{text}` is not a {data_type}: {e}"))?;
    ScalarValue::try_from_array(&cast, 0).map_err(|e| e.to_string())
}

/// [`typed_value`], NULL where the value does not parse as its type (the module's policy);
/// an error only where the type has no NULL to give, with the file named.
pub fn typed_value_of(
    path: &str,
    column: &str,
    raw: Option<&str>,
    data_type: &DataType,
) -> Result<ScalarValue, OracleError> {
    typed_value(raw, data_type)
        .or_else(|_| typed_value(None, data_type))
        .map_err(|e| OracleError::file(path, format!("partition column `{column}`: {e}")))
}

#[cfg(test)]
mod tests {
    use arrow::datatypes::TimeUnit;

    use super::*;

    #[test]
    fn values_are_typed_by_the_schema() {
        let utc = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
        let ntz = DataType::Timestamp(TimeUnit::Microsecond, None);
        let cases: &[(Option<&str>, DataType, ScalarValue)] = &[
            (None, DataType::Int32, ScalarValue::Int32(None)),
            (
                Some(""),
                DataType::Utf8,
                ScalarValue::Utf8(Some(String::new())),
            ),
            (Some(""), DataType::Int64, ScalarValue::Int64(None)),
            (
                Some("2021.0"),
                DataType::Float64,
                ScalarValue::Float64(Some(2021.0)),
            ),
            (
                Some("true"),
                DataType::Boolean,
                ScalarValue::Boolean(Some(true)),
            ),
            (
                Some("2023-01-02"),
                DataType::Date32,
                ScalarValue::Date32(Some(19359)),
            ),
            (
                Some("1.50"),
                DataType::Decimal128(5, 2),
                ScalarValue::Decimal128(Some(150), 5, 2),
            ),
            (
                Some("2013-07-05 17:01:00.123456"),
                ntz.clone(),
                ScalarValue::TimestampMicrosecond(Some(1_373_043_660_123_456), None),
            ),
            (
                Some("2013-07-05 17:01:00.123456"),
                utc.clone(),
                ScalarValue::TimestampMicrosecond(Some(1_373_043_660_123_456), Some("UTC".into())),
            ),
        ];
        for (raw, data_type, expected) in cases {
            assert_eq!(
                &typed_value(*raw, data_type).unwrap(),
                expected,
                "{raw:?} as {data_type}"
            );
        }
        assert!(
            typed_value(Some("abc"), &DataType::Int32).is_err(),
            "a value that does not parse is an error"
        );
    }
}
