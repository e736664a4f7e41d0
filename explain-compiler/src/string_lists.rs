//! An IN list holding a string, on a column that is no string: Spark with ANSI off types the
//! list and the column as one, and the common type of a number, date or timestamp with a
//! string is a string. `x NOT IN ('3', 'x')` on a long is `CAST(x AS STRING) NOT IN ('3',
//! 'x')` there: a row is left out only where the value's own text is an item; `'03'`, `'x'`
//! or `'1.5'` on a decimal(5,2) (printed `1.50`) leave out nothing. Spark with ANSI on casts the
//! items to the column's type (refusing `'x'`), DuckDB and DataFusion as a comparison does.
//!
//! `IN` needs nothing: a value whose text is an item equals the item cast to the column's
//! type, so the string reading matches no row the cast reading does not. `NOT IN` does: the
//! rows any reading keeps are the non-NULL rows but those whose text is an item, which is what
//! the leaf becomes (the items Spark's text of a value spells, read as values of the column).
//!
//! | column | an item kept in `NOT IN` (Spark's text of a value) | else |
//! |---|---|---|
//! | byte/short/int/long | `-?(0\|[1-9][0-9]*)` | dropped: it leaves out no row |
//! | decimal(p, s) | the integer digits as above, then exactly `s` fraction digits (none at scale 0) | dropped |
//! | date | `yyyy-mm-dd`, year 0001 to 9999 | dropped |
//! | timestamp, timestamp_ntz | `yyyy-mm-dd hh:mm:ss`, year 0001 to 9999, then `.` and one to six fraction digits not ending in `0`, or none | dropped |
//! | float, double | none is decided (Java's float text) | dropped |
//! | boolean, string, binary | the rule does not apply: Spark refuses a boolean against a string list, a string column compares as written | - |
//!
//!
//! A timestamp's text is Spark's in the session time zone, and the item read as a timestamp is
//! read in the same zone, so a text Spark prints leaves out the same rows under both readings
//! (checked on pyspark 4.3, ANSI off: `'2021-01-01 12:30:00'` leaves out the row,
//! `'2021-01-01 12:30:00.000000'`, `'2021-01-02 12:30:00.100'` and `'2021-01-02T03:04:05'`
//! leave out nothing).
//!
//! A NULL item stays (the list then leaves out every row under every reading). With no item
//! left, the leaf is `x IS NOT NULL`.

use delta_kernel::schema::PrimitiveType;

use crate::ast::{Literal, Predicate};
use crate::classify::Note;
use crate::retype::CROSS_TYPE_COMPARISON;
use crate::schema::{ColumnInfo, TableColumns};

/// The items of a `NOT IN` list every engine leaves rows out for, where Spark with ANSI off
/// compares the list as strings; `None` where it does not (no string item, or a column the
/// rule does not apply to).
pub fn not_in_items(info: &ColumnInfo, list: &[Literal]) -> Option<Vec<Literal>> {
    if !list.iter().any(|l| matches!(l, Literal::String(_))) {
        return None;
    }
    let spelled: fn(&str, &PrimitiveType) -> bool = |text, t| match t {
        PrimitiveType::Byte
        | PrimitiveType::Short
        | PrimitiveType::Integer
        | PrimitiveType::Long => is_integer_text(text),
        PrimitiveType::Decimal(d) => is_decimal_text(text, d.scale()),
        PrimitiveType::Date => is_date_text(text),
        PrimitiveType::Timestamp | PrimitiveType::TimestampNtz => is_timestamp_text(text),
        // Java's text of a float: not decided.
        PrimitiveType::Float
        | PrimitiveType::Double
        | PrimitiveType::IntervalYearMonth
        | PrimitiveType::IntervalDayTime => false,
        PrimitiveType::String
        | PrimitiveType::Binary
        | PrimitiveType::Boolean
        | PrimitiveType::Void => false,
    };
    let primitive = info.primitive()?;
    if matches!(
        primitive,
        PrimitiveType::String
            | PrimitiveType::Binary
            | PrimitiveType::Boolean
            | PrimitiveType::Void
    ) {
        return None;
    }
    Some(
        list.iter()
            .filter(|l| match l {
                Literal::Null => true,
                Literal::String(s) | Literal::Number(s) => spelled(s, primitive),
                // `DATE '2024-01-03'` is printed as its text; the other typed literals and
                // booleans are not decided.
                Literal::Typed { kind, text } => {
                    matches!(kind, crate::ast::TypedLiteralKind::Date)
                        && matches!(primitive, PrimitiveType::Date)
                        && is_date_text(text)
                }
                Literal::Boolean(_) | Literal::Binary(_) => false,
            })
            .cloned()
            .collect(),
    )
}

/// The notes naming the `NOT IN` lists read so.
pub fn notes(pred: &Predicate, columns: &TableColumns) -> Vec<Note> {
    let mut found = Vec::new();
    collect(pred, false, columns, &mut found);
    if found.is_empty() {
        return Vec::new();
    }
    vec![Note {
        code: CROSS_TYPE_COMPARISON,
        message: format!(
            "{}: a NOT IN list holding a string, on a column of another type: Spark with ANSI off compares the column's text with the items, leaving out only the rows whose text is an item; the rows any reading keeps are kept",
            found.join(", ")
        ),
    }]
}

fn collect(pred: &Predicate, negated: bool, columns: &TableColumns, out: &mut Vec<String>) {
    let mut list_found = |column, list: Vec<Literal>, n: bool| {
        if n != negated
            && let Ok(info) = columns.resolve(column)
            && not_in_items(&info, &list).is_some()
        {
            out.push(format!("`{pred}`"));
        }
    };
    match pred {
        Predicate::InList {
            column,
            list,
            negated: n,
        } => list_found(column, list.clone(), *n),
        Predicate::QuotedInList {
            column,
            list,
            negated: n,
        } => {
            if let Some(strings) = crate::ast::spark_strings(list) {
                list_found(column, strings, *n)
            }
        }
        Predicate::And(items) | Predicate::Or(items) => {
            for p in items {
                collect(p, negated, columns, out);
            }
        }
        Predicate::Not(inner) => collect(inner, !negated, columns, out),
        Predicate::Compare { .. }
        | Predicate::IsNull { .. }
        | Predicate::Between { .. }
        | Predicate::Like { .. }
        | Predicate::BoolColumn(_)
        | Predicate::Constant(_)
        | Predicate::Unsupported { .. } => {}
    }
}

fn is_integer_text(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && text != "-0"
}

fn is_decimal_text(text: &str, scale: u8) -> bool {
    if scale == 0 {
        return is_integer_text(text);
    }
    let Some((whole, fraction)) = text.split_once('.') else {
        return false;
    };
    // Spark prints a negative decimal below one as `-0.50`: the whole part `-0` is its text.
    let whole_ok = is_integer_text(whole) || whole == "-0";
    whole_ok && fraction.len() == usize::from(scale) && fraction.bytes().all(|b| b.is_ascii_digit())
}

fn is_date_text(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && [0, 1, 2, 3, 5, 6, 8, 9]
            .iter()
            .all(|&i| b[i].is_ascii_digit())
        && &text[..4] != "0000"
        && chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_ok()
}

/// Spark's text of a timestamp (with or without a time zone): the date as `is_date_text`,
/// a space, `hh:mm:ss`, then the microseconds with their trailing zeros left out (none when
/// they are zero).
fn is_timestamp_text(text: &str) -> bool {
    let Some((date, time)) = text.split_once(' ') else {
        return false;
    };
    let (clock, fraction) = match time.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (time, None),
    };
    let fraction_ok = fraction.is_none_or(|f| {
        (1..=6).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()) && !f.ends_with('0')
    });
    let b = clock.as_bytes();
    is_date_text(date)
        && fraction_ok
        && b.len() == 8
        && b[2] == b':'
        && b[5] == b':'
        && [0, 1, 3, 4, 6, 7].iter().all(|&i| b[i].is_ascii_digit())
        && chrono::NaiveTime::parse_from_str(clock, "%H:%M:%S").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_texts_spark_prints() {
        for (text, ok) in [
            ("3", true),
            ("-3", true),
            ("0", true),
            ("03", false),
            ("-0", false),
            ("+3", false),
            ("3.0", false),
            ("", false),
        ] {
            assert_eq!(is_integer_text(text), ok, "`{text}`");
        }
        for (text, scale, ok) in [
            ("1.50", 2, true),
            ("1.5", 2, false),
            ("-0.50", 2, true),
            ("0.00", 2, true),
            ("01.50", 2, false),
            ("2", 0, true),
            ("2.", 0, false),
        ] {
            assert_eq!(is_decimal_text(text, scale), ok, "`{text}` at {scale}");
        }
        for (text, ok) in [
            ("2024-01-03", true),
            ("2024-1-3", false),
            ("2024-02-30", false),
            ("0000-01-01", false),
            ("0001-01-01", true),
        ] {
            assert_eq!(is_date_text(text), ok, "`{text}`");
        }
        for (text, ok) in [
            ("2021-01-03 12:30:00.002002", true),
            ("2021-01-01 12:30:00", true),
            ("2021-01-02 12:30:00.1", true),
            ("0999-01-02 00:00:00", true),
            ("2021-01-01 12:30:00.000000", false),
            ("2021-01-02 12:30:00.100", false),
            ("2021-01-02 12:30:00.", false),
            ("2021-01-02 12:30:00.1234567", false),
            ("2021-01-02T03:04:05.000001", false),
            ("2021-01-01 12:30:00Z", false),
            ("2021-01-01 12:30", false),
            ("2021-01-01 24:00:00", false),
            ("2021-01-01 1:30:00", false),
            ("2021-01-01", false),
        ] {
            assert_eq!(is_timestamp_text(text), ok, "`{text}`");
        }
    }
}
