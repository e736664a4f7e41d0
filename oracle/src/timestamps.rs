//! Timestamp literals in the column's own unit.
//!
//! DataFusion compares a timestamp column with a string (`ts < '9999-12-31'`) or a typed
//! literal (`TIMESTAMP '0001-01-01'`) by casting both to nanoseconds, which hold only
//! 1677-09-21 to 2262-04-11: it fails on a far literal, and on a column value beyond that
//! range (a partition at `0001-01-01`) whatever the literal. Delta timestamps are
//! microseconds, and the explainer accepts any year from 1 to 9999. Every timestamp text
//! beside a timestamp column (with an offset or a zone name too, as arrow's parser reads it),
//! and every date (`DATE '0001-01-01'`, at midnight), is written here as a literal of the
//! column's own unit and time zone, so the comparison is made in microseconds without the
//! detour; digits below the unit are cut, as Spark and DuckDB read a timestamp text.

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::DFSchema;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::logical_expr::expr::InList;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, ExprSchemable};
use datafusion::scalar::ScalarValue;

use crate::error::{OracleError, one_line};

/// `expr` with every string or typed timestamp literal beside a timestamp column written as a
/// literal of the column's type.
pub fn far_timestamps_in_column_units(expr: Expr, schema: &DFSchema) -> Result<Expr, OracleError> {
    let unit_of = |e: &Expr| match e.get_type(schema) {
        Ok(DataType::Timestamp(unit, tz)) if !is_literal(e) => Some((unit, tz)),
        _ => None,
    };
    let rewritten = expr.transform_up(|e| {
        Ok(match e {
            Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
                let (l, r) = match (unit_of(&left), unit_of(&right)) {
                    (Some(t), None) => (*left, in_unit(*right, &t)),
                    (None, Some(t)) => (in_unit(*left, &t), *right),
                    _ => (*left, *right),
                };
                Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
                    Box::new(l),
                    op,
                    Box::new(r),
                )))
            }
            Expr::Between(b) => match unit_of(&b.expr) {
                Some(t) => Transformed::yes(Expr::Between(Between::new(
                    b.expr,
                    b.negated,
                    Box::new(in_unit(*b.low, &t)),
                    Box::new(in_unit(*b.high, &t)),
                ))),
                None => Transformed::no(Expr::Between(b)),
            },
            Expr::InList(list) => match unit_of(&list.expr) {
                Some(t) => Transformed::yes(Expr::InList(InList::new(
                    list.expr,
                    list.list.into_iter().map(|i| in_unit(i, &t)).collect(),
                    list.negated,
                ))),
                None => Transformed::no(Expr::InList(list)),
            },
            other => Transformed::no(other),
        })
    });
    rewritten
        .map(|t| t.data)
        .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))
}

fn is_literal(e: &Expr) -> bool {
    match e {
        Expr::Literal(..) => true,
        Expr::Cast(c) => is_literal(&c.expr),
        Expr::TryCast(c) => is_literal(&c.expr),
        _ => false,
    }
}

/// A literal beside a timestamp column, in nanoseconds since the epoch at any year: a
/// timestamp text (bare, or cast by `TIMESTAMP '..'`) read as DataFusion's cast reads it, with
/// an offset or a zone name where it has one and else in the column's zone; a date (`DATE
/// '..'`, a date value) at midnight in the column's zone. Digits below the microsecond are cut.
fn instant(e: &Expr, tz: Option<&str>) -> Option<i128> {
    match e {
        Expr::Literal(ScalarValue::Utf8(Some(t)) | ScalarValue::LargeUtf8(Some(t)), _) => {
            text_instant(t, tz)
        }
        Expr::Literal(ScalarValue::Date32(Some(days)), _) => {
            midnight(i128::from(*days) * NANOS_PER_DAY, tz)
        }
        Expr::Cast(c) => match c.field.data_type() {
            DataType::Timestamp(..) => instant(&c.expr, tz),
            DataType::Date32 => match c.expr.as_ref() {
                Expr::Literal(ScalarValue::Utf8(Some(t)) | ScalarValue::LargeUtf8(Some(t)), _) => {
                    let date = chrono::NaiveDate::parse_from_str(t.trim(), "%Y-%m-%d").ok()?;
                    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?;
                    let days = date.signed_duration_since(epoch).num_days();
                    midnight(i128::from(days) * NANOS_PER_DAY, tz)
                }
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

const NANOS_PER_DAY: i128 = 86_400 * 1_000_000_000;

/// Midnight UTC `utc_nanos` as midnight in the zone `tz` (DataFusion casts a date to a
/// timestamp of a zone at that zone's midnight).
fn midnight(utc_nanos: i128, tz: Option<&str>) -> Option<i128> {
    let Some(tz) = tz else {
        return Some(utc_nanos);
    };
    let zone: arrow::array::timezone::Tz = tz.parse().ok()?;
    let secs = i64::try_from(utc_nanos / 1_000_000_000).ok()?;
    let naive = chrono::DateTime::from_timestamp(secs, 0)?.naive_utc();
    use chrono::TimeZone;
    let local = zone.from_local_datetime(&naive).single()?;
    Some(i128::from(local.timestamp()) * 1_000_000_000)
}

/// A timestamp text as an instant: without a zone, in the column's (UTC where it has none:
/// the interpreter's reading, any year); with an offset or a zone name, there (arrow's own
/// parser, which DataFusion's cast uses).
fn text_instant(t: &str, tz: Option<&str>) -> Option<i128> {
    let zone: arrow::array::timezone::Tz = tz.unwrap_or("+00:00").parse().ok()?;
    if tz.is_none_or(|z| matches!(z, "UTC" | "+00:00" | "Z"))
        && let Some(nanos) = crate::interpret::parse_timestamp(t)
    {
        return Some(nanos);
    }
    let at = arrow::compute::kernels::cast_utils::string_to_datetime(&zone, t.trim()).ok()?;
    let micros = i128::from(at.timestamp_subsec_nanos()) / 1_000;
    Some(i128::from(at.timestamp()) * 1_000_000_000 + micros * 1_000)
}

/// `literal` as a literal of the column's `unit` and zone (digits below the unit cut), if it
/// is a timestamp text or a date; otherwise unchanged.
fn in_unit(literal: Expr, (unit, tz): &(TimeUnit, Option<std::sync::Arc<str>>)) -> Expr {
    let Some(nanos) = instant(&literal, tz.as_deref()) else {
        return literal;
    };
    let per = match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => return literal,
    };
    let Ok(value) = i64::try_from(nanos.div_euclid(per)) else {
        return literal;
    };
    let tz = tz.clone();
    let scalar = match unit {
        TimeUnit::Second => ScalarValue::TimestampSecond(Some(value), tz),
        TimeUnit::Millisecond => ScalarValue::TimestampMillisecond(Some(value), tz),
        TimeUnit::Microsecond => ScalarValue::TimestampMicrosecond(Some(value), tz),
        TimeUnit::Nanosecond => return literal,
    };
    datafusion::logical_expr::lit(scalar)
}
