//! How the engines read a string literal and a LIKE pattern written with a backslash
//! (issue classes 3 and 4, pitfall 28). Each reading is one engine's meaning; the predicate
//! keeps the rows any reading matches (an OR of the readings), and a note says so.
//!
//! | text as written | Spark (string literals unescaped, LIKE escapes with `\`) | DuckDB (no escapes; LIKE has no default escape) | DataFusion (no string escapes; LIKE escapes with `\`) |
//! |---|---|---|---|
//! | `'a\tb'` | `a`, TAB, `b` | `a\tb` | `a\tb` |
//! | `'a\\b'` | `a\b` | `a\\b` | `a\\b` |
//! | `'a\3'` | `a3` | `a\3` | `a\3` |
//! | `LIKE 'ab\%'` | the string `ab%` | `ab\` then anything | the string `ab%` |
//! | `LIKE 'ab\'` | refused (a pattern may not end with its escape) | the string `ab\` | refused |
//! | `LIKE 'a!%' ESCAPE '!'` | `a%` | `a%` | `a%` |
//!
//! Spark's unescaping (its `unescapeSQLString`): `\b \n \r \t \Z \0` name control characters,
//! `\uXXXX` a code point, three octal digits a byte, `\%` and `\_` stay two characters (for
//! LIKE), any other `\c` is `c`.

use crate::ast::{Literal, Predicate};
use crate::classify::Note;

pub const ENGINE_STRING_READINGS: &str = "ENGINE_STRING_READINGS";

/// A string literal as Spark reads it.
pub fn spark_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '\\' || i + 1 == chars.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let next = chars[i + 1];
        let octal = chars.get(i + 1..i + 4).filter(|d| {
            d.len() == 3
                && ('0'..='3').contains(&d[0])
                && d[1..].iter().all(|c| ('0'..='7').contains(c))
        });
        if let Some(d) = octal {
            let v = d
                .iter()
                .fold(0u32, |v, c| v * 8 + c.to_digit(8).unwrap_or(0));
            out.extend(char::from_u32(v));
            i += 4;
            continue;
        }
        if next == 'u'
            && let Some(hex) = chars.get(i + 2..i + 6)
            && let Some(c) = u32::from_str_radix(&hex.iter().collect::<String>(), 16)
                .ok()
                .and_then(char::from_u32)
        {
            out.push(c);
            i += 6;
            continue;
        }
        match next {
            '0' => out.push('\0'),
            'b' => out.push('\u{8}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'Z' => out.push('\u{1A}'),
            '%' | '_' => {
                out.push('\\');
                out.push(next);
            }
            other => out.push(other),
        }
        i += 2;
    }
    out
}

/// The readings of one literal: itself, and Spark's where it differs.
pub fn literal_readings(literal: &Literal) -> Vec<Literal> {
    match literal {
        Literal::String(s) if s.contains('\\') => {
            let spark = spark_unescape(s);
            if spark == *s {
                vec![literal.clone()]
            } else {
                vec![literal.clone(), Literal::String(spark)]
            }
        }
        Literal::String(_)
        | Literal::Number(_)
        | Literal::Boolean(_)
        | Literal::Null
        | Literal::Typed { .. }
        | Literal::Binary(_) => vec![literal.clone()],
    }
}

/// The readings of a LIKE pattern, as `(pattern, escape)` under the tool's LIKE semantics
/// (like.rs: `None` is the backslash): Spark's (the literal unescaped, then `\` or the ESCAPE
/// character), DataFusion's (as written, the same escape) and DuckDB's (as written; with no
/// ESCAPE clause no escape at all, spelled here as every backslash escaped).
pub fn like_readings(pattern: &str, escape: Option<char>) -> Vec<(String, Option<char>)> {
    if !pattern.contains('\\') {
        return vec![(pattern.to_string(), escape)];
    }
    let mut out = vec![
        (spark_unescape(pattern), escape),
        (pattern.to_string(), escape),
    ];
    if escape.is_none() {
        out.push((pattern.replace('\\', "\\\\"), None));
    }
    out.dedup();
    let mut unique: Vec<(String, Option<char>)> = Vec::new();
    for r in out {
        if !unique.contains(&r) {
            unique.push(r);
        }
    }
    unique
}

/// The notes naming the literals and patterns the engines read differently, if any: backslashes,
/// and double-quoted names (a string in Spark, a column in DuckDB and DataFusion).
pub fn readings_note(pred: &Predicate) -> Vec<Note> {
    let mut found: Vec<String> = Vec::new();
    collect(pred, &mut found);
    let mut notes = Vec::new();
    if !found.is_empty() {
        notes.push(Note {
            code: ENGINE_STRING_READINGS,
            message: format!(
                "{}: engines read a backslash differently (Spark unescapes string literals and escapes LIKE with it, DuckDB keeps it as a character and has no default LIKE escape, DataFusion keeps it in strings and escapes LIKE with it); the rows any reading matches are kept",
                found.join(", ")
            ),
        });
    }
    let names: Vec<String> = pred
        .quoted_names()
        .into_iter()
        .map(|n| format!("`{}`", crate::ast::Operand::QuotedName(n)))
        .collect();
    if !names.is_empty() {
        notes.push(Note {
            code: ENGINE_STRING_READINGS,
            message: format!(
                "{}: Spark reads a double-quoted text as a string, DuckDB and DataFusion as a column name; naming no column it is read as Spark's string, naming one the rows of either reading are kept",
                names.join(", ")
            ),
        });
    }
    notes
}

fn collect(pred: &Predicate, found: &mut Vec<String>) {
    let mut literal = |l: &Literal| {
        if literal_readings(l).len() > 1 {
            found.push(format!("`{l}`"));
        }
    };
    match pred {
        Predicate::Compare { left, right, .. } => {
            for side in [left, right] {
                if let crate::ast::Operand::Literal(l) = side {
                    literal(l);
                }
            }
        }
        Predicate::And(items) | Predicate::Or(items) => {
            for p in items {
                collect(p, found);
            }
        }
        Predicate::Not(inner) => collect(inner, found),
        Predicate::InList { list, .. } => list.iter().for_each(literal),
        Predicate::QuotedInList { list, .. } => {
            for item in list {
                if let crate::ast::Operand::Literal(l) = item {
                    literal(l);
                }
            }
        }
        Predicate::Between { low, high, .. } => {
            literal(low);
            literal(high);
        }
        Predicate::Like {
            pattern, escape, ..
        } => {
            if like_readings(pattern, *escape).len() > 1 {
                found.push(format!("LIKE '{pattern}'"));
            }
        }
        Predicate::IsNull { .. }
        | Predicate::BoolColumn(_)
        | Predicate::Constant(_)
        | Predicate::Unsupported { .. } => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spark_unescapes_as_measured() {
        for (written, spark) in [
            ("a\\tb", "a\tb"),
            ("a\\\\b", "a\\b"),
            ("a\\3", "a3"),
            ("it\\'s", "it's"),
            ("ab\\%", "ab\\%"),
            ("a\\_", "a\\_"),
            ("\\u0041", "A"),
            ("\\101", "A"),
            ("ab\\", "ab\\"),
            ("plain", "plain"),
        ] {
            assert_eq!(spark_unescape(written), spark, "`{written}`");
        }
    }

    #[test]
    fn like_patterns_have_a_reading_per_engine() {
        assert_eq!(like_readings("ab%", None), vec![("ab%".to_string(), None)]);
        assert_eq!(
            like_readings("ab\\%", None),
            vec![("ab\\%".to_string(), None), ("ab\\\\%".to_string(), None),]
        );
        assert_eq!(
            like_readings("a\\\\b!%", Some('!')),
            vec![
                ("a\\b!%".to_string(), Some('!')),
                ("a\\\\b!%".to_string(), Some('!')),
            ]
        );
    }
}
