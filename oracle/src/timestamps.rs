//! Timestamp literals beyond DataFusion's nanosecond range.
//!
//! DataFusion compares a timestamp column with a string (`ts < '9999-12-31'`) or a typed
//! literal (`TIMESTAMP '0001-01-01'`) by casting the literal to nanoseconds, which holds only
//! 1677-09-21 to 2262-04-11, and fails beyond. Delta timestamps are microseconds, and the
//! explainer accepts any year from 1 to 9999. Such a literal, beside a timestamp column, is
//! written here as a literal in the column's own unit and time zone, so the comparison is
//! made in microseconds without the detour. Literals inside the range are left alone (the
//! engines' own cast decides them), and so is one with digits below the column's unit, which
//! no column value could equal and which would need rounding per operator.

use arrow::datatypes::{DataType, TimeUnit};
use datafusion::common::DFSchema;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::logical_expr::expr::InList;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, ExprSchemable};
use datafusion::scalar::ScalarValue;

use crate::error::{OracleError, one_line};

/// The nanosecond range of `i64`, as nanoseconds since the epoch.
const NANOS: std::ops::RangeInclusive<i128> = (i64::MIN as i128)..=(i64::MAX as i128);

/// `expr` with every string or typed timestamp literal beside a timestamp column, outside
/// the nanosecond range, written as a literal of the column's type.
pub fn far_timestamps_in_column_units(expr: Expr, schema: &DFSchema) -> Result<Expr, OracleError> {
    let unit_of = |e: &Expr| match e.get_type(schema) {
        Ok(DataType::Timestamp(unit, tz)) if !is_literal(e) => Some((unit, tz)),
        _ => None,
    };
    let rewritten = expr.transform_up(|e| {
        Ok(match e {
            Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
                let (l, r) = match (unit_of(&left), unit_of(&right)) {
                    (Some(t), None) => (*left, in_unit(*right, &t, false)),
                    (None, Some(t)) => (in_unit(*left, &t, false), *right),
                    _ => (*left, *right),
                };
                Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
                    Box::new(l),
                    op,
                    Box::new(r),
                )))
            }
            // The bounds of a BETWEEN and the items of an IN list are cast to one common type:
            // once one of them is far, every one goes to the column's unit.
            Expr::Between(b) => match unit_of(&b.expr) {
                Some(t) => {
                    let far = is_far(&b.low) || is_far(&b.high);
                    Transformed::yes(Expr::Between(Between::new(
                        b.expr,
                        b.negated,
                        Box::new(in_unit(*b.low, &t, far)),
                        Box::new(in_unit(*b.high, &t, far)),
                    )))
                }
                None => Transformed::no(Expr::Between(b)),
            },
            Expr::InList(list) => match unit_of(&list.expr) {
                Some(t) => {
                    let far = list.list.iter().any(is_far);
                    Transformed::yes(Expr::InList(InList::new(
                        list.expr,
                        list.list.into_iter().map(|i| in_unit(i, &t, far)).collect(),
                        list.negated,
                    )))
                }
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

/// The text of a string literal, bare or cast to a timestamp (`TIMESTAMP '..'`).
fn timestamp_text(e: &Expr) -> Option<&str> {
    match e {
        Expr::Literal(ScalarValue::Utf8(Some(t)) | ScalarValue::LargeUtf8(Some(t)), _) => Some(t),
        Expr::Cast(c) if matches!(c.field.data_type(), DataType::Timestamp(..)) => {
            timestamp_text(&c.expr)
        }
        _ => None,
    }
}

/// Whether `e` is a timestamp text outside the nanosecond range.
fn is_far(e: &Expr) -> bool {
    timestamp_text(e)
        .and_then(crate::interpret::parse_timestamp)
        .is_some_and(|nanos| !NANOS.contains(&nanos))
}

/// `literal` as a literal of the column's `unit` and zone, if it is a timestamp text outside
/// the nanosecond range (any timestamp text with `all`) that the unit holds exactly;
/// otherwise unchanged.
fn in_unit(literal: Expr, (unit, tz): &(TimeUnit, Option<std::sync::Arc<str>>), all: bool) -> Expr {
    let Some(nanos) = timestamp_text(&literal).and_then(crate::interpret::parse_timestamp) else {
        return literal;
    };
    if NANOS.contains(&nanos) && !all {
        return literal;
    }
    let per = match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => return literal,
    };
    if nanos % per != 0 {
        return literal;
    }
    let Ok(value) = i64::try_from(nanos / per) else {
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
