//! The oracle's second evaluator: a small row-wise interpreter of a predicate under SQL's
//! three-valued logic, with the engines' float semantics as a parameter. It reads the parsed
//! predicate (DataFusion's parser; none of its evaluation, coercion or simplification) and
//! the loaded rows, and decides each row itself, so DataFusion's answer can be checked against
//! an independent one (harness invariant 6), and matches can be found under semantics
//! DataFusion does not implement.
//!
//! | semantics | NaN | zeros |
//! |---|---|---|
//! | [`Semantics::SparkDuckDb`] | every NaN above all numbers, NaN = NaN | `-0.0 = 0.0` |
//! | [`Semantics::DataFusion`] | Arrow's total order: a NaN with its sign bit set below `-inf` | `-0.0 = 0.0` |
//!
//! Numbers compare exactly (integers and decimals as decimals of any scale); against a float
//! both sides become doubles, as SQL compares them. A string literal compared with a date,
//! timestamp, number or boolean is read as that type, as the engines cast it.

use std::cmp::Ordering;

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{
    DataType, Date32Type, Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Like, Operator, expr::InList};
use datafusion::scalar::ScalarValue;

/// Whose comparison rules decide floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Semantics {
    /// Spark and DuckDB: every NaN above all numbers and equal to every NaN; `-0.0 = 0.0`.
    SparkDuckDb,
    /// DataFusion: Arrow's total order for NaN (by sign bit); `-0.0 = 0.0`.
    DataFusion,
}

impl Semantics {
    pub const ALL: [Semantics; 2] = [Semantics::SparkDuckDb, Semantics::DataFusion];

    pub fn name(self) -> &'static str {
        match self {
            Semantics::SparkDuckDb => "spark-duckdb",
            Semantics::DataFusion => "datafusion",
        }
    }

    /// Orders two doubles.
    fn cmp_f64(self, a: f64, b: f64) -> Ordering {
        let (a, b) = (a + 0.0, b + 0.0); // -0.0 becomes +0.0; NaN stays NaN
        match self {
            Semantics::DataFusion => a.total_cmp(&b),
            Semantics::SparkDuckDb => match (a.is_nan(), b.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
            },
        }
    }
}

/// Why the interpreter leaves a 64-bit integer overflow to DataFusion alone.
pub const OVERFLOW: &str = "64-bit integer arithmetic overflows (engines wrap, fail or widen)";

/// A construct the interpreter does not evaluate.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported(pub String);

/// One value. Numbers keep their exactness: `Exact(m, s)` is `m * 10^-s`.
#[derive(Clone, Debug, PartialEq)]
enum V {
    Null,
    Bool(bool),
    /// A value of an integer type: its arithmetic wraps at 64 bits, as DataFusion's and Spark's
    /// (non-ANSI) do.
    Int(i128),
    /// A 64-bit integer sum, difference or product that overflowed, wrapped as DataFusion
    /// wraps it beside another integer; beside anything else engines disagree.
    Overflowed(i128),
    Exact(i128, i32),
    Float(f64),
    Str(String),
    Date(i32),
    /// Nanoseconds since the epoch.
    Ts(i128),
    /// A struct that is not NULL: `IS [NOT] NULL` reads it, nothing compares it.
    Struct,
}

type R<T> = Result<T, Unsupported>;

fn unsupported<T>(what: impl std::fmt::Display) -> R<T> {
    Err(Unsupported(what.to_string()))
}

/// Evaluates `expr` on row `row` of `batch`: `Some(true)` when the row matches.
pub fn eval_row(
    expr: &Expr,
    batch: &RecordBatch,
    row: usize,
    semantics: Semantics,
) -> R<Option<bool>> {
    match eval(expr, batch, row, semantics)? {
        V::Null => Ok(None),
        V::Bool(b) => Ok(Some(b)),
        other => unsupported(format!("the predicate is not boolean ({other:?})")),
    }
}

fn truth(v: &V) -> R<Option<bool>> {
    match v {
        V::Null => Ok(None),
        V::Bool(b) => Ok(Some(*b)),
        other => unsupported(format!("{other:?} is not boolean")),
    }
}

fn of_truth(t: Option<bool>) -> V {
    t.map_or(V::Null, V::Bool)
}

fn eval(expr: &Expr, batch: &RecordBatch, row: usize, s: Semantics) -> R<V> {
    Ok(match expr {
        Expr::Literal(value, _) => scalar(value)?,
        Expr::Column(c) => {
            let Some(array) = batch.column_by_name(&c.name) else {
                return unsupported(format!("no column {}", c.name));
            };
            cell(array.as_ref(), row)?
        }
        Expr::ScalarFunction(f) if f.name() == "get_field" => get_field(f, batch, row)?,
        Expr::ScalarFunction(f) if matches!(f.name(), "upper" | "lower") && f.args.len() == 1 => {
            match eval(&f.args[0], batch, row, s)? {
                V::Null => V::Null,
                V::Str(t) => V::Str(if f.name() == "upper" {
                    t.to_uppercase()
                } else {
                    t.to_lowercase()
                }),
                other => return unsupported(format!("{}({other:?})", f.name())),
            }
        }
        // The first argument that is not NULL (its type is the arguments' common type, which
        // the comparisons below read as they read any value).
        Expr::ScalarFunction(f) if f.name() == "coalesce" => {
            let mut out = V::Null;
            for arg in &f.args {
                let v = eval(arg, batch, row, s)?;
                if v != V::Null {
                    out = v;
                    break;
                }
            }
            out
        }
        Expr::Negative(inner) => match exact(&eval(inner, batch, row, s)?) {
            V::Null => V::Null,
            V::Exact(m, e) => V::Exact(-m, e),
            V::Float(f) => V::Float(-f),
            other => return unsupported(format!("-{other:?}")),
        },
        Expr::Not(inner) => of_truth(truth(&eval(inner, batch, row, s)?)?.map(|b| !b)),
        Expr::IsNull(inner) => V::Bool(eval(inner, batch, row, s)? == V::Null),
        Expr::IsNotNull(inner) => V::Bool(eval(inner, batch, row, s)? != V::Null),
        Expr::IsTrue(inner) => V::Bool(truth(&eval(inner, batch, row, s)?)? == Some(true)),
        Expr::IsFalse(inner) => V::Bool(truth(&eval(inner, batch, row, s)?)? == Some(false)),
        Expr::IsNotTrue(inner) => V::Bool(truth(&eval(inner, batch, row, s)?)? != Some(true)),
        Expr::IsNotFalse(inner) => V::Bool(truth(&eval(inner, batch, row, s)?)? != Some(false)),
        Expr::BinaryExpr(BinaryExpr { left, op, right }) => binary(left, op, right, batch, row, s)?,
        Expr::Between(Between {
            expr,
            negated,
            low,
            high,
        }) => between(expr, negated, low, high, batch, row, s)?,
        Expr::InList(InList {
            expr,
            list,
            negated,
        }) => in_list(expr, list, negated, batch, row, s)?,
        Expr::Like(Like {
            negated,
            expr,
            pattern,
            escape_char,
            case_insensitive,
        }) => {
            let (v, p) = (eval(expr, batch, row, s)?, eval(pattern, batch, row, s)?);
            match (v, p) {
                (V::Null, _) | (_, V::Null) => V::Null,
                (V::Str(v), V::Str(p)) => {
                    let (v, p) = if *case_insensitive {
                        (v.to_lowercase(), p.to_lowercase())
                    } else {
                        (v, p)
                    };
                    V::Bool(like(&v, &p, escape_char.unwrap_or('\\')) != *negated)
                }
                other => return unsupported(format!("LIKE over {other:?}")),
            }
        }
        Expr::Cast(c) => cast(eval(&c.expr, batch, row, s)?, c.field.data_type())?,
        Expr::TryCast(c) => {
            cast(eval(&c.expr, batch, row, s)?, c.field.data_type()).unwrap_or(V::Null)
        }
        other => return unsupported(format!("expression {}", other.variant_name())),
    })
}

/// A struct field of a column (`get_field(st, 'a')`); NULL where the struct is.
fn get_field(
    f: &datafusion::logical_expr::expr::ScalarFunction,
    batch: &RecordBatch,
    row: usize,
) -> R<V> {
    Ok({
        let (Some(base), Some(Expr::Literal(ScalarValue::Utf8(Some(field)), _))) =
            (f.args.first(), f.args.get(1))
        else {
            return unsupported("get_field form");
        };
        let Expr::Column(c) = base else {
            return unsupported("get_field of a non-column");
        };
        let Some(array) = batch.column_by_name(&c.name) else {
            return unsupported(format!("no column {}", c.name));
        };
        let Some(strukt) = array.as_struct_opt() else {
            return unsupported("get_field of a non-struct");
        };
        if strukt.is_null(row) {
            return Ok(V::Null);
        }
        let Some(child) = strukt.column_by_name(field) else {
            return unsupported(format!("no field {field}"));
        };
        cell(child.as_ref(), row)?
    })
}

/// AND and OR (three-valued), the comparisons, and arithmetic.
fn binary(
    left: &Expr,
    op: &Operator,
    right: &Expr,
    batch: &RecordBatch,
    row: usize,
    s: Semantics,
) -> R<V> {
    Ok({
        let l = eval(left, batch, row, s)?;
        match op {
            Operator::And | Operator::Or => {
                let r = eval(right, batch, row, s)?;
                let (a, b) = (truth(&l)?, truth(&r)?);
                of_truth(if *op == Operator::And {
                    kleene_and(a, b)
                } else {
                    kleene_or(a, b)
                })
            }
            Operator::Eq
            | Operator::NotEq
            | Operator::Lt
            | Operator::LtEq
            | Operator::Gt
            | Operator::GtEq => {
                let r = in_width(eval(right, batch, row, s)?, left, batch, s);
                let l = in_width(l, right, batch, s);
                match (compare(&l, &r, s)?, Comparison::of(*op)) {
                    (None, _) => V::Null,
                    (Some(o), Some(cmp)) => V::Bool(cmp.holds(o)),
                    (Some(_), None) => return unsupported(format!("operator {op}")),
                }
            }
            Operator::Plus | Operator::Minus | Operator::Multiply => {
                let r = eval(right, batch, row, s)?;
                arithmetic(&l, *op, &r)?
            }
            other => return unsupported(format!("operator {other}")),
        }
    })
}

/// `x [NOT] BETWEEN low AND high`.
fn between(
    expr: &Expr,
    negated: &bool,
    low: &Expr,
    high: &Expr,
    batch: &RecordBatch,
    row: usize,
    s: Semantics,
) -> R<V> {
    Ok({
        let v = eval(expr, batch, row, s)?;
        let (mut low, mut high) = (eval(low, batch, row, s)?, eval(high, batch, row, s)?);
        // Two texts take the column's type; a number beside a text makes them doubles.
        if matches!((&low, &high), (V::Str(_) | V::Null, V::Str(_) | V::Null)) {
            low = in_width(low, expr, batch, s);
            high = in_width(high, expr, batch, s);
        }
        let ge = compare(&v, &low, s)?.map(|o| o.is_ge());
        let le = compare(&v, &high, s)?.map(|o| o.is_le());
        let t = kleene_and(ge, le);
        of_truth(if *negated { t.map(|b| !b) } else { t })
    })
}

/// `x [NOT] IN (...)`, three-valued.
fn in_list(
    expr: &Expr,
    list: &[Expr],
    negated: &bool,
    batch: &RecordBatch,
    row: usize,
    s: Semantics,
) -> R<V> {
    Ok({
        let v = eval(expr, batch, row, s)?;
        let items = list
            .iter()
            .map(|item| eval(item, batch, row, s))
            .collect::<Result<Vec<V>, Unsupported>>()?;
        // A list of texts takes the column's type; a number among them makes the list's
        // type the numbers' (a double), and the texts are read as that.
        let numbers = items
            .iter()
            .any(|i| matches!(i, V::Int(_) | V::Exact(..) | V::Float(_)));
        let items: Vec<V> = if numbers {
            items
        } else {
            items
                .into_iter()
                .map(|i| in_width(i, expr, batch, s))
                .collect()
        };
        // A list holding a double (a number with an exponent) has the double's type in
        // Spark, DuckDB and DataFusion: the value and every number in it become doubles.
        let doubles = items.iter().any(|i| matches!(i, V::Float(_)));
        let as_double = |x: &V| match x {
            V::Exact(m, e) if doubles => V::Float(exact_to_f64(*m, *e)),
            V::Int(m) if doubles => V::Float(*m as f64),
            other => other.clone(),
        };
        let v = as_double(&v);
        let mut t = Some(false);
        for item in &items {
            let eq = in_list_eq(&v, &as_double(item), s)?;
            t = kleene_or(t, eq);
        }
        of_truth(if *negated { t.map(|b| !b) } else { t })
    })
}

/// A text beside a 32-bit float column, read in the column's width under DataFusion's
/// semantics: DataFusion casts the string to the column's type (`'-1e-300'` beside a `FLOAT`
/// column is `-0.0`, equal to a `-0.0` row), while the interpreter's values are doubles. Any
/// other value, side or semantics passes through unchanged.
fn in_width(v: V, beside: &Expr, batch: &RecordBatch, s: Semantics) -> V {
    let float32 = |e: &Expr| match e {
        Expr::Column(c) => batch
            .column_by_name(&c.name)
            .is_some_and(|a| a.data_type() == &DataType::Float32),
        _ => false,
    };
    match (&v, s) {
        (V::Str(t), Semantics::DataFusion) if float32(beside) => match t.trim().parse::<f32>() {
            Ok(f) => V::Float(f64::from(f)),
            Err(_) => v,
        },
        (_, Semantics::DataFusion | Semantics::SparkDuckDb) => v,
    }
}

fn kleene_and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        (None, Some(true) | None) | (Some(true), None) => None,
    }
}

fn kleene_or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        (None, Some(false) | None) | (Some(false), None) => None,
    }
}

fn scalar(value: &ScalarValue) -> R<V> {
    if value.is_null() {
        return Ok(V::Null);
    }
    Ok(match value {
        ScalarValue::Boolean(Some(b)) => V::Bool(*b),
        ScalarValue::Int8(Some(v)) => V::Int(i128::from(*v)),
        ScalarValue::Int16(Some(v)) => V::Int(i128::from(*v)),
        ScalarValue::Int32(Some(v)) => V::Int(i128::from(*v)),
        ScalarValue::Int64(Some(v)) => V::Int(i128::from(*v)),
        ScalarValue::UInt64(Some(v)) => V::Int(i128::from(*v)),
        ScalarValue::Float32(Some(v)) => V::Float(f64::from(*v)),
        ScalarValue::Float64(Some(v)) => V::Float(*v),
        ScalarValue::Decimal128(Some(v), _, scale) => V::Exact(*v, i32::from(*scale)),
        ScalarValue::Decimal256(Some(v), _, scale) => {
            // Beyond i128: keep the value as a double (only ever ordered against far smaller
            // column values).
            match v.to_i128() {
                Some(m) => V::Exact(m, i32::from(*scale)),
                None => V::Float(
                    format!("{v}e{}", -i32::from(*scale))
                        .parse()
                        .unwrap_or(f64::NAN),
                ),
            }
        }
        ScalarValue::Utf8(Some(t))
        | ScalarValue::LargeUtf8(Some(t))
        | ScalarValue::Utf8View(Some(t)) => V::Str(t.clone()),
        ScalarValue::Date32(Some(d)) => V::Date(*d),
        ScalarValue::TimestampSecond(Some(t), _) => V::Ts(i128::from(*t) * 1_000_000_000),
        ScalarValue::TimestampMillisecond(Some(t), _) => V::Ts(i128::from(*t) * 1_000_000),
        ScalarValue::TimestampMicrosecond(Some(t), _) => V::Ts(i128::from(*t) * 1_000),
        ScalarValue::TimestampNanosecond(Some(t), _) => V::Ts(i128::from(*t)),
        other => return unsupported(format!("literal {other:?}")),
    })
}

fn cell(array: &dyn Array, row: usize) -> R<V> {
    if array.is_null(row) {
        return Ok(V::Null);
    }
    Ok(match array.data_type() {
        DataType::Boolean => V::Bool(array.as_boolean().value(row)),
        DataType::Int8 => V::Int(i128::from(array.as_primitive::<Int8Type>().value(row))),
        DataType::Int16 => V::Int(i128::from(array.as_primitive::<Int16Type>().value(row))),
        DataType::Int32 => V::Int(i128::from(array.as_primitive::<Int32Type>().value(row))),
        DataType::Int64 => V::Int(i128::from(array.as_primitive::<Int64Type>().value(row))),
        DataType::UInt8 => V::Int(i128::from(array.as_primitive::<UInt8Type>().value(row))),
        DataType::UInt16 => V::Int(i128::from(array.as_primitive::<UInt16Type>().value(row))),
        DataType::UInt32 => V::Int(i128::from(array.as_primitive::<UInt32Type>().value(row))),
        DataType::UInt64 => V::Int(i128::from(array.as_primitive::<UInt64Type>().value(row))),
        DataType::Float32 => V::Float(f64::from(array.as_primitive::<Float32Type>().value(row))),
        DataType::Float64 => V::Float(array.as_primitive::<Float64Type>().value(row)),
        DataType::Decimal128(_, scale) => V::Exact(
            array.as_primitive::<Decimal128Type>().value(row),
            i32::from(*scale),
        ),
        DataType::Utf8 => V::Str(array.as_string::<i32>().value(row).to_string()),
        DataType::LargeUtf8 => V::Str(array.as_string::<i64>().value(row).to_string()),
        DataType::Utf8View => V::Str(array.as_string_view().value(row).to_string()),
        DataType::Date32 => V::Date(array.as_primitive::<Date32Type>().value(row)),
        DataType::Timestamp(unit, _) => V::Ts(match unit {
            TimeUnit::Second => {
                i128::from(array.as_primitive::<TimestampSecondType>().value(row)) * 1_000_000_000
            }
            TimeUnit::Millisecond => {
                i128::from(array.as_primitive::<TimestampMillisecondType>().value(row)) * 1_000_000
            }
            TimeUnit::Microsecond => {
                i128::from(array.as_primitive::<TimestampMicrosecondType>().value(row)) * 1_000
            }
            TimeUnit::Nanosecond => {
                i128::from(array.as_primitive::<TimestampNanosecondType>().value(row))
            }
        }),
        DataType::Struct(_) => V::Struct,
        other => return unsupported(format!("column type {other}")),
    })
}

/// A value cast to `to` (the literal casts the parser writes: `DATE '..'`, `TIMESTAMP '..'`).
fn cast(v: V, to: &DataType) -> R<V> {
    Ok(match (v, to) {
        (V::Null, _) => V::Null,
        (V::Str(t), DataType::Date32) => match parse_date(&t) {
            Some(d) => V::Date(d),
            None => return unsupported(format!("the date text {t:?}")),
        },
        (V::Str(t), DataType::Timestamp(..)) => match parse_ts(&t) {
            Some(ts) => V::Ts(ts),
            None => return unsupported(format!("the timestamp text {t:?}")),
        },
        (v @ V::Date(_), DataType::Date32) => v,
        (v @ V::Ts(_), DataType::Timestamp(..)) => v,
        (V::Str(t), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) => V::Str(t),
        (V::Str(t), DataType::Float64 | DataType::Float32) => {
            t.trim().parse::<f64>().map_or(V::Null, V::Float)
        }
        (v @ V::Float(_), DataType::Float64) => v,
        (V::Exact(m, s), DataType::Float64 | DataType::Float32) => V::Float(exact_to_f64(m, s)),
        (V::Int(m), DataType::Float64 | DataType::Float32) => V::Float(m as f64),
        (v, to) => return unsupported(format!("CAST({v:?} AS {to})")),
    })
}

/// `YYYY-MM-DD` as days since the epoch.
fn parse_date(t: &str) -> Option<i32> {
    let d = chrono::NaiveDate::parse_from_str(t.trim(), "%Y-%m-%d").ok()?;
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?;
    i32::try_from(d.signed_duration_since(epoch).num_days()).ok()
}

/// `YYYY-MM-DD[( |T)HH:MM[:SS[.f]]]` (read as UTC) as nanoseconds since the epoch.
/// A timestamp text (date and time, or a date) read as UTC, in nanoseconds since the epoch at
/// any year: the engines read a string compared with a timestamp so.
pub(crate) fn parse_timestamp(t: &str) -> Option<i128> {
    parse_ts(t)
}

fn parse_ts(t: &str) -> Option<i128> {
    let t = t.trim().trim_end_matches('Z');
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(dt) = chrono::NaiveDateTime::parse_from_str(t, fmt) {
            let utc = dt.and_utc();
            // Digits below the microsecond are cut, as Spark and DuckDB read a timestamp text
            // (measured with both: `ts = '2021-01-01 00:00:00.0000009'` matches midnight).
            let micros = i128::from(utc.timestamp_subsec_nanos()) / 1_000;
            return Some(i128::from(utc.timestamp()) * 1_000_000_000 + micros * 1_000);
        }
    }
    parse_date(t).map(|d| i128::from(d) * 86_400 * 1_000_000_000)
}

/// `m * 10^-s` as the nearest double (through its decimal text, correctly rounded).
fn exact_to_f64(m: i128, s: i32) -> f64 {
    format!("{m}e{}", -s).parse().unwrap_or(f64::NAN)
}

/// A string read as a number, exactly when it has no exponent and fits.
fn parse_number(t: &str) -> Option<V> {
    let t = t.trim();
    if let Some((int, frac)) = t.split_once('.') {
        let digits = format!("{int}{frac}");
        let m: i128 = digits.parse().ok()?;
        return Some(V::Exact(m, i32::try_from(frac.len()).ok()?));
    }
    if let Ok(m) = t.parse::<i128>() {
        return Some(V::Exact(m, 0));
    }
    t.parse::<f64>().ok().map(V::Float)
}

/// Orders two exact numbers of any scale without rounding.
fn cmp_exact(a: (i128, i32), b: (i128, i32)) -> Ordering {
    let scale = a.1.max(b.1);
    let widen = |(m, s): (i128, i32)| -> Option<i128> {
        m.checked_mul(10i128.checked_pow(u32::try_from(scale - s).ok()?)?)
    };
    match (widen(a), widen(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        // Out of i128 at a common scale: ordered by their digits, never through a double (two
        // numbers a double cannot tell apart are still two numbers, pitfall 25).
        (None, _) | (_, None) => cmp_digits(a, b),
    }
}

/// Orders `m * 10^-s` against `n * 10^-t` by sign, then by the place of the leading digit, then
/// digit by digit.
fn cmp_digits((m, s): (i128, i32), (n, t): (i128, i32)) -> Ordering {
    let by_sign = m.signum().cmp(&n.signum());
    if by_sign != Ordering::Equal || m == 0 {
        return by_sign;
    }
    let (x, y) = (m.unsigned_abs().to_string(), n.unsigned_abs().to_string());
    // The leading digit (never 0) stands at 10^(digits - scale - 1).
    let place = |digits: &str, scale: i32| digits.len() as i64 - i64::from(scale);
    let width = x.len().max(y.len());
    let magnitude = place(&x, s)
        .cmp(&place(&y, t))
        .then_with(|| format!("{x:0<width$}").cmp(&format!("{y:0<width$}")));
    if m < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

/// Compares two values as SQL does after the engines' implicit casts; `None` when either is
/// NULL (or a string literal does not read as the other side's type, which makes the cast NULL).
fn compare(a: &V, b: &V, s: Semantics) -> R<Option<Ordering>> {
    let (a, b) = match (a, b) {
        (V::Overflowed(w), V::Int(_)) => (V::Int(*w), b.clone()),
        (V::Int(_), V::Overflowed(w)) => (a.clone(), V::Int(*w)),
        (V::Overflowed(_), _) | (_, V::Overflowed(_)) => return unsupported(OVERFLOW),
        _ => (a.clone(), b.clone()),
    };
    let (a, b) = (&exact(&a), &exact(&b));
    Ok(Some(match (a, b) {
        (V::Null, _) | (_, V::Null) => return Ok(None),
        (V::Bool(x), V::Bool(y)) => x.cmp(y),
        (V::Exact(m, x), V::Exact(n, y)) => cmp_exact((*m, *x), (*n, *y)),
        (V::Float(x), V::Float(y)) => s.cmp_f64(*x, *y),
        (V::Float(x), V::Exact(m, e)) => s.cmp_f64(*x, exact_to_f64(*m, *e)),
        (V::Exact(m, e), V::Float(y)) => s.cmp_f64(exact_to_f64(*m, *e), *y),
        (V::Str(x), V::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (V::Date(x), V::Date(y)) => x.cmp(y),
        (V::Ts(x), V::Ts(y)) => x.cmp(y),
        (V::Date(x), V::Ts(y)) => (i128::from(*x) * 86_400 * 1_000_000_000).cmp(y),
        (V::Ts(x), V::Date(y)) => x.cmp(&(i128::from(*y) * 86_400 * 1_000_000_000)),
        // A string beside another type is read as that type.
        (V::Str(t), other) => return compare(&read_as(t, other)?, other, s),
        (other, V::Str(t)) => return compare(other, &read_as(t, other)?, s),
        (x, y) => return unsupported(format!("comparison of {x:?} with {y:?}")),
    }))
}

/// An integer as an exact number (for comparisons, where width does not matter).
fn exact(v: &V) -> V {
    match v {
        V::Int(m) => V::Exact(*m, 0),
        other => other.clone(),
    }
}

/// Equality of an `IN` list item: DataFusion's lists compare floats in total order (so `-0.0`
/// and `0.0` differ there, unlike its `=`); Spark's and DuckDB's as `=`.
fn in_list_eq(a: &V, b: &V, s: Semantics) -> R<Option<bool>> {
    // DataFusion casts a string item to the number's type, sign of zero kept, then compares
    // floats in total order (`-0.0 NOT IN ('0')` holds, `-0.0 IN ('-0.0')` too).
    let read;
    let b = if let (V::Float(_), V::Str(t), Semantics::DataFusion) = (a, b, s) {
        read = match t.trim().parse::<f64>() {
            Ok(f) => V::Float(f),
            Err(_) => read_as(t, a)?,
        };
        &read
    } else {
        b
    };
    let float = |v: &V| match exact(v) {
        V::Float(f) => Some(f),
        V::Exact(m, e) => Some(exact_to_f64(m, e)),
        _ => None,
    };
    if s == Semantics::DataFusion
        && (matches!(a, V::Float(_)) || matches!(b, V::Float(_)))
        && let (Some(x), Some(y)) = (float(a), float(b))
    {
        return Ok(Some(x.total_cmp(&y).is_eq()));
    }
    Ok(compare(a, b, s)?.map(|o| o.is_eq()))
}

/// A string compared with a value of another type, read as that type. A date or timestamp
/// text of another shape (a time after a date, a zone name, an offset) the engines read each
/// their own way: the interpreter does not decide it.
fn read_as(t: &str, like: &V) -> R<V> {
    Ok(match like {
        V::Date(_) => match parse_date(t) {
            Some(d) => V::Date(d),
            None => return unsupported(format!("the date text {t:?}")),
        },
        V::Ts(_) => match parse_ts(t) {
            Some(ts) => V::Ts(ts),
            None => return unsupported(format!("the timestamp text {t:?}")),
        },
        V::Int(_) | V::Overflowed(_) | V::Exact(..) | V::Float(_) => {
            match t.trim().to_ascii_lowercase().as_str() {
                "nan" => V::Float(f64::NAN),
                "infinity" | "inf" => V::Float(f64::INFINITY),
                "-infinity" | "-inf" => V::Float(f64::NEG_INFINITY),
                _ => parse_number(t).unwrap_or(V::Null),
            }
        }
        V::Bool(_) => match t.trim().to_ascii_lowercase().as_str() {
            "true" => V::Bool(true),
            "false" => V::Bool(false),
            _ => V::Null,
        },
        V::Null | V::Str(_) => V::Str(t.to_string()),
        // No engine casts a string to a struct.
        V::Struct => return unsupported(format!("the text {t:?} beside a struct")),
    })
}

/// The comparison operators the interpreter decides, one arm each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Comparison {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl Comparison {
    /// `op` as a comparison; `None` for any other operator (the caller does not decide it).
    fn of(op: Operator) -> Option<Comparison> {
        Some(match op {
            Operator::Eq => Comparison::Eq,
            Operator::NotEq => Comparison::NotEq,
            Operator::Lt => Comparison::Lt,
            Operator::LtEq => Comparison::LtEq,
            Operator::Gt => Comparison::Gt,
            Operator::GtEq => Comparison::GtEq,
            _ => return None,
        })
    }

    fn holds(self, o: Ordering) -> bool {
        match self {
            Comparison::Eq => o.is_eq(),
            Comparison::NotEq => o.is_ne(),
            Comparison::Lt => o.is_lt(),
            Comparison::LtEq => o.is_le(),
            Comparison::Gt => o.is_gt(),
            Comparison::GtEq => o.is_ge(),
        }
    }
}

/// The arithmetic the interpreter decides, one arm each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arithmetic {
    Plus,
    Minus,
    Times,
}

fn arithmetic(a: &V, op: Operator, b: &V) -> R<V> {
    let op = match op {
        Operator::Plus => Arithmetic::Plus,
        Operator::Minus => Arithmetic::Minus,
        Operator::Multiply => Arithmetic::Times,
        other => return unsupported(format!("operator {other}")),
    };
    let float = |x: f64, y: f64| match op {
        Arithmetic::Plus => x + y,
        Arithmetic::Minus => x - y,
        Arithmetic::Times => x * y,
    };
    if matches!(a, V::Overflowed(_)) || matches!(b, V::Overflowed(_)) {
        return unsupported(OVERFLOW);
    }
    if let (V::Int(m), V::Int(n)) = (a, b) {
        let exact = match op {
            Arithmetic::Plus => m + n,
            Arithmetic::Minus => m - n,
            Arithmetic::Times => m.checked_mul(*n).unwrap_or(i128::MAX),
        };
        let (m, n) = (*m as i64, *n as i64);
        let wrapped = i128::from(match op {
            Arithmetic::Plus => m.wrapping_add(n),
            Arithmetic::Minus => m.wrapping_sub(n),
            Arithmetic::Times => m.wrapping_mul(n),
        });
        // Overflow: Spark (non-ANSI) wraps, DuckDB and ANSI Spark fail, DataFusion wraps or
        // widens to a decimal depending on what the result meets. No one answer to check.
        return Ok(if wrapped == exact {
            V::Int(exact)
        } else {
            V::Overflowed(wrapped)
        });
    }
    let (a, b) = (&exact(a), &exact(b));
    Ok(match (a, b) {
        (V::Null, _) | (_, V::Null) => V::Null,
        (V::Exact(m, x), V::Exact(n, y)) => {
            let scale = *x.max(y);
            let widen = |m: i128, s: i32| {
                m.checked_mul(10i128.checked_pow(u32::try_from(scale - s).ok()?)?)
            };
            let exact = match op {
                Arithmetic::Plus => widen(*m, *x)
                    .zip(widen(*n, *y))
                    .and_then(|(p, q)| p.checked_add(q))
                    .map(|v| (v, scale)),
                Arithmetic::Minus => widen(*m, *x)
                    .zip(widen(*n, *y))
                    .and_then(|(p, q)| p.checked_sub(q))
                    .map(|v| (v, scale)),
                Arithmetic::Times => m.checked_mul(*n).map(|v| (v, x + y)),
            };
            match exact {
                Some((v, s)) => V::Exact(v, s),
                None => return unsupported("arithmetic overflow"),
            }
        }
        (V::Float(x), V::Float(y)) => V::Float(float(*x, *y)),
        (V::Float(x), V::Exact(m, e)) => V::Float(float(*x, exact_to_f64(*m, *e))),
        (V::Exact(m, e), V::Float(y)) => V::Float(float(exact_to_f64(*m, *e), *y)),
        (x, y) => return unsupported(format!("arithmetic on {x:?} and {y:?}")),
    })
}

/// SQL LIKE: `%` any run, `_` one character, `escape` makes the next character literal.
fn like(value: &str, pattern: &str, escape: char) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Tok {
        Any,
        One,
        Char(char),
    }
    let mut toks = Vec::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        toks.push(match c {
            c if c == escape => Tok::Char(chars.next().unwrap_or(escape)),
            '%' => Tok::Any,
            '_' => Tok::One,
            c => Tok::Char(c),
        });
    }
    let v: Vec<char> = value.chars().collect();
    // Dynamic programming over (token, character) positions.
    let mut reach = vec![false; v.len() + 1];
    reach[0] = true;
    for tok in toks {
        let mut next = vec![false; v.len() + 1];
        for i in 0..=v.len() {
            if !reach[i] {
                continue;
            }
            match tok {
                Tok::Any => {
                    for slot in next.iter_mut().skip(i) {
                        *slot = true;
                    }
                }
                Tok::One if i < v.len() => next[i + 1] = true,
                Tok::Char(c) if i < v.len() && v[i] == c => next[i + 1] = true,
                _ => {}
            }
        }
        reach = next;
    }
    reach[v.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_order_by_each_engines_rules() {
        let neg_nan = -f64::NAN;
        let cases = [
            (Semantics::SparkDuckDb, neg_nan, 5.0, Ordering::Greater),
            (Semantics::DataFusion, neg_nan, 5.0, Ordering::Less),
            (
                Semantics::DataFusion,
                neg_nan,
                f64::NEG_INFINITY,
                Ordering::Less,
            ),
            (
                Semantics::DataFusion,
                f64::NAN,
                f64::INFINITY,
                Ordering::Greater,
            ),
            (Semantics::SparkDuckDb, neg_nan, f64::NAN, Ordering::Equal),
            (Semantics::SparkDuckDb, -0.0, 0.0, Ordering::Equal),
            (Semantics::DataFusion, -0.0, 0.0, Ordering::Equal),
        ];
        for (s, a, b, expected) in cases {
            assert_eq!(s.cmp_f64(a, b), expected, "{s:?}: {a} vs {b}");
        }
    }

    #[test]
    fn like_matches_as_sql_does() {
        for (v, p, expected) in [
            ("abc", "a%", true),
            ("abc", "a_c", true),
            ("abc", "%b", false),
            ("a%c", "a\\%c", true),
            ("abc", "a\\%c", false),
            ("", "%", true),
            ("ab", "_", false),
        ] {
            assert_eq!(like(v, p, '\\'), expected, "`{v}` LIKE `{p}`");
        }
    }

    #[test]
    fn exact_numbers_compare_without_rounding() {
        assert_eq!(
            cmp_exact((1_000_000_000_000_000_001, 18), (1, 0)),
            Ordering::Greater
        );
        assert_eq!(cmp_exact((10, 1), (1, 0)), Ordering::Equal);
        assert_eq!(cmp_exact((1, -1), (10, 0)), Ordering::Equal, "1e1 is ten");
    }

    #[test]
    fn exact_numbers_order_by_their_digits_beyond_i128() {
        let big = 99_999_999_999_999_999_999_999_999_999_999_999_999i128;
        // At a common scale these overflow i128; a double reads both as 1e38.
        assert_eq!(cmp_exact((big, 0), (big - 1, 0)), Ordering::Greater);
        assert_eq!(cmp_exact((big, 0), (big, -1)), Ordering::Less);
        assert_eq!(cmp_exact((big, 0), (big, 40)), Ordering::Greater);
        assert_eq!(cmp_exact((-big, 0), (-big, 40)), Ordering::Less);
        assert_eq!(cmp_exact((1, 40), (10, 41)), Ordering::Equal);
        assert_eq!(cmp_exact((big, 1), (big - 1, 1)), Ordering::Greater);
        assert_eq!(cmp_exact((5, -39), (big, 0)), Ordering::Greater);
        assert_eq!(cmp_exact((-5, -39), (big, 0)), Ordering::Less);
        assert_eq!(cmp_exact((0, 50), (0, -50)), Ordering::Equal);
        assert_eq!(cmp_exact((1, 45), (-1, -45)), Ordering::Greater);
        assert_eq!(cmp_digits((123, 0), (1_230, 1)), Ordering::Equal);
        assert_eq!(cmp_digits((123, 0), (1_231, 1)), Ordering::Less);
    }
}
