//! Comparisons whose literal is of no type the column can hold (`x = TRUE` on a number,
//! `x = 'abc'` on an integer, `s = 5` on a string, `d < TIMESTAMP '..'` on a date). DuckDB,
//! DataFusion and Spark with ANSI on refuse most of them, but Spark with ANSI off runs nearly
//! all of them with an implicit cast (measured with Spark 4.3, DuckDB 2.0, DataFusion 55.2;
//! docs/semantics.md). Such a leaf is read as the engines that run it read it, never refused:
//!
//! | column | literal | engines | rewrite |
//! |---|---|---|---|
//! | number | `TRUE`, `FALSE` | Spark (ANSI off) and DuckDB cast it to 1 and 0; the others refuse | the number 1 or 0 |
//! | number | a string that does not start as a number (`'abc'`), nor spells NaN or infinity | Spark (ANSI off) casts it to NULL, which no row equals (nor differs from); the others refuse | FALSE; in an `IN` list the leaf is kept whole (Spark then compares as strings) |
//! | date | `TIMESTAMP '..'` without an offset | all promote the date to midnight of that day | at midnight: the date; else `=` FALSE, `!=` not null, `<`/`<=` `<= day`, `>`/`>=` `> day` |
//! | string | `DATE 'yyyy-mm-dd'` (a year of four digits) | Spark casts the column's values to dates (`2024-1-3` and ` 2024-01-03` read as 2024-01-03; ANSI on fails on a value that is none); DuckDB does for `=` and refuses an order | the value's text compared with the date's, or a value spelled otherwise (kept) |
//! | any other (a number or a date against a string column, a string a cast may or may not read, a time zone against `timestamp_ntz`) | | Spark (ANSI off) casts the column's values or the literal; its answer depends on the data or the session | the leaf is unsupported: it keeps every file |
//!
//! A literal the column's type holds is not this module's business (`retype.rs` spells it);
//! a comparison with a struct, map or array column stays refused (no engine runs it).

use delta_kernel::schema::{DataType, PrimitiveType};

use crate::ast::{CmpOp, ColumnRef, Literal, TypedLiteralKind};
use crate::coerce::{ParsedTimestamp, coerce, parse_timestamp};
use crate::nnf::{Leaf, Nnf};
use crate::schema::ColumnInfo;

/// The rewrite of a leaf whose literal `info`'s type cannot hold, and why; `None` where every
/// literal coerces (or no engine runs the comparison).
pub fn mistyped(leaf: &Leaf, info: &ColumnInfo) -> Option<(Nnf, String)> {
    let DataType::Primitive(primitive) = &info.data_type else {
        return None;
    };
    let fails = |l: &Literal| coerce(l, info).is_err();
    match leaf {
        Leaf::Cmp {
            column,
            op,
            literal,
        } if fails(literal) => cmp(column, *op, literal, primitive, leaf),
        Leaf::In { list, .. } if list.iter().any(fails) => Some((
            unsupported(leaf),
            "Spark with ANSI off finds one type for the column and the list's members and may compare as strings".into(),
        )),
        Leaf::Cmp { .. }
        | Leaf::In { .. }
        | Leaf::IsNull { .. }
        | Leaf::Like { .. }
        | Leaf::Bool { .. }
        | Leaf::Unsupported { .. } => None,
    }
}

fn cmp(
    column: &ColumnRef,
    op: CmpOp,
    literal: &Literal,
    primitive: &PrimitiveType,
    leaf: &Leaf,
) -> Option<(Nnf, String)> {
    let spark_casts = || {
        (
            unsupported(leaf),
            "Spark with ANSI off casts the column's values or the literal; its answer depends on the data or the session".to_string(),
        )
    };
    let number = matches!(
        primitive,
        PrimitiveType::Byte
            | PrimitiveType::Short
            | PrimitiveType::Integer
            | PrimitiveType::Long
            | PrimitiveType::Float
            | PrimitiveType::Double
            | PrimitiveType::Decimal(_)
    );
    Some(match (primitive, literal) {
        (_, Literal::Boolean(b)) if number => (
            Nnf::Leaf(Leaf::Cmp {
                column: column.clone(),
                op,
                literal: Literal::Number(if *b { "1" } else { "0" }.into()),
            }),
            format!(
                "Spark with ANSI off and DuckDB read {literal} as {}, DataFusion and Spark with ANSI on refuse it",
                u8::from(*b)
            ),
        ),
        (_, Literal::String(s)) if number && !spark_may_cast(s) => (
            Nnf::Const(false),
            format!(
                "Spark with ANSI off reads {literal} as NULL, which matches no row; DuckDB, DataFusion and Spark with ANSI on refuse it"
            ),
        ),
        (
            PrimitiveType::Date,
            Literal::Typed {
                kind: TypedLiteralKind::Timestamp | TypedLiteralKind::TimestampNtz,
                text,
            },
        ) => match parse_timestamp(text) {
            Ok(ParsedTimestamp::Local(micros)) => (
                against_a_date(column, op, micros),
                "every engine compares the date as midnight of its day".into(),
            ),
            Ok(ParsedTimestamp::Utc(_)) | Err(_) => spark_casts(),
        },
        (
            PrimitiveType::String,
            Literal::Typed {
                kind: TypedLiteralKind::Date,
                text,
            },
        ) => match canonical_date(text) {
            Some(date) => (
                a_string_against_a_date(column, op, date),
                "Spark casts the string column's values to dates (NULL, or an error with ANSI on, where a value is none; `2024-1-3` and ` 2024-01-03` read as 2024-01-03) and DuckDB does for = (it refuses an order): a value spelled yyyy-mm-dd compares as its date, in the order of its text; any other spelling keeps its file".into(),
            ),
            None => spark_casts(),
        },
        (
            PrimitiveType::Byte
            | PrimitiveType::Short
            | PrimitiveType::Integer
            | PrimitiveType::Long
            | PrimitiveType::Float
            | PrimitiveType::Double
            | PrimitiveType::Decimal(_)
            | PrimitiveType::String
            | PrimitiveType::Boolean
            | PrimitiveType::Binary
            | PrimitiveType::Date
            | PrimitiveType::Timestamp
            | PrimitiveType::TimestampNtz,
            _,
        ) => spark_casts(),
        // Types a Delta column does not take: refused as before.
        (
            PrimitiveType::Void | PrimitiveType::IntervalYearMonth | PrimitiveType::IntervalDayTime,
            _,
        ) => return None,
    })
}

/// Whether Spark's cast of the string `text` to a number, date, timestamp or boolean may give
/// a value rather than NULL: after blanks it starts as a number or a date does (a digit, a
/// sign, a point), or it spells a boolean, NaN or infinity. A string that does not (`'abc'`,
/// `'col1'`) casts to NULL, which no row equals or differs from.
pub fn spark_may_cast(text: &str) -> bool {
    let trimmed = text.trim();
    let lower = trimmed.to_ascii_lowercase();
    trimmed.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.'))
        || ["t", "f", "y", "n", "yes", "no", "true", "false"].contains(&lower.as_str())
        || lower.contains("nan")
        || lower.contains("inf")
}

/// `d op T` for a date column and a timestamp `T` without an offset: the date is midnight of
/// its day.
fn against_a_date(column: &ColumnRef, op: CmpOp, micros: i64) -> Nnf {
    const DAY: i64 = 86_400_000_000;
    let day = micros.div_euclid(DAY);
    let midnight = micros.rem_euclid(DAY) == 0;
    let date = |op: CmpOp| {
        let text = chrono::DateTime::from_timestamp(day * 86_400, 0)
            .map(|t| t.date_naive().format("%Y-%m-%d").to_string());
        match text {
            Some(text) => Nnf::Leaf(Leaf::Cmp {
                column: column.clone(),
                op,
                literal: Literal::Typed {
                    kind: TypedLiteralKind::Date,
                    text,
                },
            }),
            // Outside chrono's range no date column holds a value either side: keep the rows.
            None => Nnf::Const(true),
        }
    };
    if midnight {
        return date(op);
    }
    match op {
        CmpOp::Eq => Nnf::Const(false),
        CmpOp::NotEq => Nnf::Leaf(Leaf::IsNull {
            column: column.clone(),
            negated: true,
        }),
        CmpOp::Lt | CmpOp::LtEq => date(CmpOp::LtEq),
        CmpOp::Gt | CmpOp::GtEq => date(CmpOp::Gt),
    }
}

/// The date a `DATE` literal names, spelled `yyyy-mm-dd`, where its year has four digits
/// (1000 to 9999): a string column's value of another spelling can then name no date equal to
/// it, nor one that orders against it otherwise than its text does.
fn canonical_date(text: &str) -> Option<String> {
    let date = chrono::NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").ok()?;
    let year = chrono::Datelike::year(&date);
    (1000..=9999)
        .contains(&year)
        .then(|| date.format("%Y-%m-%d").to_string())
}

/// `s op DATE 'd'` on a string column: the values spelled as `d` is (`____-__-__`: ten
/// characters, dashes at the fifth and eighth) compare as their text, whose order is the
/// dates' order where they are dates and which no engine reads as `d` otherwise; a value of
/// any other spelling may be read as any date (`2024-1-3`, ` 2024-01-03`, a time after it):
/// it is kept. The partition evaluator decides both per value; min/max statistics cannot
/// bound the LIKE, so on a data column every file is kept, as before.
fn a_string_against_a_date(column: &ColumnRef, op: CmpOp, date: String) -> Nnf {
    Nnf::or([
        Nnf::Leaf(Leaf::Cmp {
            column: column.clone(),
            op,
            literal: Literal::String(date),
        }),
        Nnf::Leaf(Leaf::Like {
            column: column.clone(),
            pattern: "____-__-__".into(),
            escape: None,
            negated: true,
        }),
    ])
}

fn unsupported(leaf: &Leaf) -> Nnf {
    Nnf::Leaf(Leaf::Unsupported {
        sql: leaf.to_string(),
        columns: leaf.column().into_iter().cloned().collect(),
        negated: false,
    })
}
