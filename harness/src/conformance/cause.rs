//! A finding's identity: its cause, as close as the harness can get from outside the reader.
//!
//! Two failing cases share a cause when the same reader gives the same verdict for a predicate
//! of the same shape on a table with the same features, and (for an error or a refusal) in
//! words of the same pattern:
//!
//! | part | what it keeps | what it forgets |
//! |---|---|---|
//! | reader, verdict | `polars`, `missing-rows` | the reader's version |
//! | shape | operators, each column's kind (`partition long`, `string`), each literal's class (`?int`, `?str`, `NULL`), an expression's text with its numbers and strings abstracted | column names, literal values, the order of AND and OR items |
//! | features | the table's protocol features, partitioned or not, column mapping's mode | the catalog table's name, the seed |
//! | message | an error's or refusal's words with numbers, quoted text and paths abstracted, cut before the query or expression the reader quotes back | the values in it, the predicate it echoes |
//!
//! An error or a refusal is keyed by its words, not by the predicate's shape: the words name
//! what failed, and the generator spells the same failure in many shapes (Polars' `cannot
//! compare string with numeric type (f64)` from `x > 'NaN'` and from `x + 1.0 > 'NaN'`).
//! Missing and extra rows have no words: their shape is the cause's, unless a float hazard
//! (NaN, a signed zero) can account for every row the reader got wrong: then the hazard is
//! (`hazard.rs`).
//!
//! The campaign counts every case under its cause (`seen`), minimizes the first case of a
//! cause it has not seen (the minimized predicate's shape is the cause's), and lists causes,
//! not cases. A reader that fails on the table whatever the predicate is one cause of the
//! table's (`(the table)`, see `table_level.rs`).

use explain_compiler::ast::{ColumnRef, Literal, Operand, Predicate, TypedLiteralKind};
use oracle::delta_schema::{DeltaField, DeltaType};
use oracle::log::Snapshot;

use super::Verdict;

/// What a table is, as far as a cause goes: its protocol features, partitioned or not, column
/// mapping's mode; sorted, joined.
pub fn features(snapshot: &Snapshot) -> String {
    let mut out: Vec<String> = Vec::new();
    for list in [
        &snapshot.protocol.reader_features,
        &snapshot.protocol.writer_features,
    ]
    .into_iter()
    .flatten()
    {
        out.extend(list.iter().cloned());
    }
    if !snapshot.metadata.partition_columns.is_empty() {
        out.push("partitioned".into());
    }
    if let Some(Some(mode)) = snapshot
        .metadata
        .configuration
        .get("delta.columnMapping.mode")
        && mode != "none"
    {
        out.push(format!("columnMapping={mode}"));
    }
    out.sort();
    out.dedup();
    if out.is_empty() {
        "plain".into()
    } else {
        out.join(",")
    }
}

/// A column's kind: its Delta type, `partition` before it for a partition column; `?` for a
/// name the table does not have.
pub fn kind_of(snapshot: &Snapshot, column: &ColumnRef) -> String {
    let Some((first, rest)) = column.path.split_first() else {
        return "?".into();
    };
    let Some(field) = snapshot
        .fields
        .iter()
        .find(|f| f.name.eq_ignore_ascii_case(first))
    else {
        return "?".into();
    };
    let partition = snapshot
        .metadata
        .partition_columns
        .iter()
        .any(|p| p.eq_ignore_ascii_case(first));
    let kind = nested_kind(field, rest);
    if partition {
        format!("partition {kind}")
    } else {
        kind
    }
}

fn nested_kind(field: &DeltaField, rest: &[String]) -> String {
    match (rest.split_first(), &field.data_type) {
        (None, t) => type_name(t),
        (Some((next, rest)), DeltaType::Struct(fields)) => {
            match fields.iter().find(|f| f.name.eq_ignore_ascii_case(next)) {
                Some(f) => format!("struct.{}", nested_kind(f, rest)),
                None => "?".into(),
            }
        }
        (Some(_), _) => "?".into(),
    }
}

fn type_name(t: &DeltaType) -> String {
    match t {
        DeltaType::Primitive(name) => name.clone(),
        DeltaType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
        DeltaType::Struct(_) => "struct".into(),
        DeltaType::Array { .. } => "array".into(),
        DeltaType::Map { .. } => "map".into(),
    }
}

/// The class of a literal: what its spelling says, not its value.
fn literal_class(l: &Literal) -> &'static str {
    match l {
        Literal::Number(n) if n.contains(['e', 'E']) => "?double",
        Literal::Number(n) if n.contains('.') => "?decimal",
        Literal::Number(_) => "?int",
        Literal::String(_) => "?str",
        Literal::Boolean(_) => "?bool",
        Literal::Null => "NULL",
        Literal::Typed {
            kind: TypedLiteralKind::Date,
            ..
        } => "?date",
        Literal::Typed {
            kind: TypedLiteralKind::Timestamp,
            ..
        } => "?timestamp",
        Literal::Typed {
            kind: TypedLiteralKind::TimestampNtz,
            ..
        } => "?timestamp_ntz",
        Literal::Binary(_) => "?binary",
    }
}

/// The shape of `p`: operators and column kinds (`kind`), literals by class; the items of AND
/// and OR sorted and each shape once, an IN list's classes once each.
pub fn shape(p: &Predicate, kind: &dyn Fn(&ColumnRef) -> String) -> String {
    let operand = |o: &Operand| match o {
        Operand::Column(c) => kind(c),
        Operand::Literal(l) => literal_class(l).to_string(),
        Operand::QuotedName(_) => "?quoted".to_string(),
    };
    let not = |negated: bool| if negated { "NOT " } else { "" };
    let classes = |list: &mut dyn Iterator<Item = String>| {
        let mut all: Vec<String> = list.collect();
        all.sort();
        all.dedup();
        all.join(", ")
    };
    match p {
        Predicate::Compare { left, op, right } => {
            format!("{} {} {}", operand(left), op.sql(), operand(right))
        }
        Predicate::And(items) | Predicate::Or(items) => {
            let mut parts: Vec<String> = items.iter().map(|i| shape(i, kind)).collect();
            parts.sort();
            parts.dedup();
            let joiner = if matches!(p, Predicate::And(_)) {
                " AND "
            } else {
                " OR "
            };
            format!("({})", parts.join(joiner))
        }
        Predicate::Not(inner) => format!("NOT {}", shape(inner, kind)),
        Predicate::IsNull { column, negated } => {
            format!("{} IS {}NULL", kind(column), not(*negated))
        }
        Predicate::InList {
            column,
            list,
            negated,
        } => format!(
            "{} {}IN ({})",
            kind(column),
            not(*negated),
            classes(&mut list.iter().map(|l| literal_class(l).to_string()))
        ),
        Predicate::QuotedInList {
            column,
            list,
            negated,
        } => format!(
            "{} {}IN ({})",
            kind(column),
            not(*negated),
            classes(&mut list.iter().map(operand))
        ),
        Predicate::Between {
            column,
            low,
            high,
            negated,
        } => format!(
            "{} {}BETWEEN {} AND {}",
            kind(column),
            not(*negated),
            literal_class(low),
            literal_class(high)
        ),
        Predicate::Like {
            column, negated, ..
        } => format!("{} {}LIKE ?pattern", kind(column), not(*negated)),
        Predicate::BoolColumn(column) => kind(column),
        Predicate::Constant(l) => literal_class(l).to_string(),
        Predicate::Unsupported { sql, columns } => {
            let mut text = abstracted(sql);
            // Longest names first, so `id` does not eat `idx`.
            let mut columns: Vec<&ColumnRef> = columns.iter().collect();
            columns.sort_by_key(|c| std::cmp::Reverse(c.dotted().len()));
            for c in columns {
                text = replace_word(&text, &c.dotted(), &format!("<{}>", kind(c)));
            }
            format!("expr({text})")
        }
    }
}

/// `text` with every number, quoted string and path abstracted (`?n`, `?s`, `?path`), and
/// runs of white space made one: the pattern of a message or an expression.
pub fn abstracted(text: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // An apostrophe between letters (`didn't`) opens no quote.
        let apostrophe = c == '\''
            && i > 0
            && chars[i - 1].is_alphabetic()
            && chars.get(i + 1).is_some_and(|n| n.is_alphabetic());
        if (c == '\'' || c == '"' || c == '`') && !apostrophe {
            // A quoted run to its closing quote (a doubled quote inside it included).
            let mut j = i + 1;
            while j < chars.len() {
                if chars[j] == c {
                    if chars.get(j + 1) == Some(&c) {
                        j += 2;
                        continue;
                    }
                    break;
                }
                j += 1;
            }
            out.push_str("?s");
            i = j + 1;
        } else if c.is_ascii_digit()
            && !out
                .chars()
                .last()
                .is_some_and(|p| p.is_alphanumeric() || p == '_')
        {
            let mut j = i;
            while j < chars.len()
                && (chars[j].is_ascii_alphanumeric() || matches!(chars[j], '.' | '_' | '-' | ':'))
            {
                j += 1;
            }
            out.push_str("?n");
            i = j;
        } else if c == '/' && chars.get(i + 1).is_some_and(|n| !n.is_whitespace()) {
            let mut j = i;
            while j < chars.len() && !chars[j].is_whitespace() && !matches!(chars[j], ',' | ')') {
                j += 1;
            }
            out.push_str("?path");
            i = j;
        } else if c.is_whitespace() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out.trim().to_string()
}

/// `text` with each whole-word `word` replaced by `by`.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    if word.is_empty() {
        return text.to_string();
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().last();
        let after = rest[at + word.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(is_word) || after.is_some_and(is_word) {
            out.push_str(word);
        } else {
            out.push_str(by);
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

/// The shape of a failure that is the table's, whatever the predicate (`table_level.rs`).
pub const THE_TABLE: &str = "(the table)";

/// What stands for the shape in an error's or a refusal's cause: its words are the cause.
pub const A_PREDICATE: &str = "(a predicate)";

/// The cause of a failing case: the reader, the verdict, the predicate's shape (or, for a
/// predicate that does not parse, its abstracted text; [`THE_TABLE`] for a failure of the
/// table's), the table's features; for an error or a refusal, the pattern of its words in
/// place of the shape.
pub fn cause(engine: &str, verdict: Verdict, shape: &str, features: &str, detail: &str) -> String {
    // The words name the failure; the shape is how the predicate that met it was spelled. The
    // table's own failure keeps saying so.
    if verdict.has_words() {
        let scope = if shape == THE_TABLE {
            THE_TABLE
        } else {
            A_PREDICATE
        };
        return format!(
            "{engine} {} | {scope} | {features} | {}",
            verdict.name(),
            message_pattern(detail)
        );
    }
    format!("{engine} {} | {shape} | {features}", verdict.name())
}

/// Where a reader's message stops saying what failed and starts quoting what it was asked:
/// DuckDB's query with its caret (`... LINE 1: SELECT ... WHERE x > ... ^`), Polars' expression
/// context (`This error occurred in the following expression: [...]`), an engine's stack of
/// contexts.
const QUOTED_BACK: [&str; 4] = [
    "LINE 1:",
    "This error occurred",
    "while evaluating",
    "context stack",
];

/// An error's pattern: its first line up to what the reader quotes back of the query
/// ([`QUOTED_BACK`]), abstracted, cut to 160 characters (a long message's tail is the values
/// it quotes).
pub fn message_pattern(detail: &str) -> String {
    let mut first = detail.lines().next().unwrap_or_default();
    for marker in QUOTED_BACK {
        if let Some(at) = first.find(marker) {
            first = &first[..at];
        }
    }
    abstracted(first).chars().take(160).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use explain_compiler::sql::parse_predicate;

    fn shaped(sql: &str) -> String {
        let kinds = |c: &ColumnRef| match c.dotted().as_str() {
            "p" => "partition long".to_string(),
            "s" => "string".to_string(),
            _ => "long".to_string(),
        };
        shape(&parse_predicate(sql).unwrap(), &kinds)
    }

    #[test]
    fn a_shape_forgets_names_values_and_order() {
        assert_eq!(shaped("a > 5 AND s = 'x'"), shaped("s = 'zz' AND b > -7"));
        assert_eq!(shaped("p IN (1, 2, 3)"), "partition long IN (?int)");
        assert_ne!(shaped("a > 5"), shaped("a > 5.5"));
        assert_ne!(shaped("p > 5"), shaped("a > 5"));
        assert_ne!(shaped("a > 5 AND s = 'x'"), shaped("a > 5 OR s = 'x'"));
        assert_eq!(shaped("a + 1 > 847"), shaped("b + 1 > 12"));
        assert_eq!(shaped("a + 1 > 847"), "expr(<long> + ?n > ?n)");
        assert_ne!(shaped("a + 1 > 847"), shaped("s || 'x' = 'y'"));
    }

    #[test]
    fn a_message_pattern_forgets_values_and_paths() {
        let a = "invalid primitive value found during CSV parsing: '0.-25' at /tmp/x/p=0.-25/part-1.parquet";
        let b = "invalid primitive value found during CSV parsing: '7.-1' at /tmp/y/p=7.-1/part-9.parquet";
        assert_eq!(message_pattern(a), message_pattern(b));
        assert_ne!(
            message_pattern(a),
            message_pattern("Overflow in integer addition at 3")
        );
        assert_eq!(abstracted("a  b\n c 12 'x''y' d"), "a b c ?n ?s d");
        assert_eq!(abstracted("didn't find 'x' at 3"), "didn't find ?s at ?n");
    }

    /// What a reader quotes back of the query is not its words: DuckDB's failing query and
    /// Polars' expression context leave one pattern per failure, whatever the predicate.
    #[test]
    fn a_message_pattern_forgets_the_query_the_reader_quotes_back() {
        let duck = |w: &str| {
            format!(
                "IO Error: DeltaKernel InvalidCheckpoint (39): Invalid Checkpoint: Had a _last_checkpoint hint but didn't find any checkpoints LINE 1: SELECT filename, count(*) FROM delta_scan('/tmp/.tmpzOenxr', filename=true) WHERE {w}... ^"
            )
        };
        assert_eq!(
            message_pattern(&duck("st IS")),
            message_pattern(&duck("NOT "))
        );
        assert_eq!(
            message_pattern(&duck("NOT ")),
            "IO Error: DeltaKernel InvalidCheckpoint (?n): Invalid Checkpoint: Had a _last_checkpoint hint but didn't find any checkpoints"
        );
        let polars = |e: &str| {
            format!(
                "cannot compare string with numeric type (f64) This error occurred in the following expression: [{e}] while evaluating this larger expression: [({e}) | x]"
            )
        };
        assert_eq!(
            message_pattern(&polars("(col(\"x\")) > (\"NaN\")")),
            message_pattern(&polars("([(col(\"f64\")) + (1.0)]) <= (\"NaN\")"))
        );
        assert_eq!(
            message_pattern(&polars("x")),
            "cannot compare string with numeric type (f64)"
        );
        assert_ne!(
            message_pattern(&polars("x")),
            message_pattern(&polars("x").replace("f64", "f32"))
        );
    }

    /// An error's cause is its words: two shapes that meet the same words are one cause; rows
    /// keep their shape.
    #[test]
    fn an_errors_cause_is_its_words_and_rows_keep_their_shape() {
        let a = cause("r", Verdict::Error, "float > ?str", "plain", "boom at 3");
        let b = cause(
            "r",
            Verdict::Error,
            "expr(<float> + ?n > ?str)",
            "plain",
            "boom at 9",
        );
        assert_eq!(a, b);
        assert_ne!(
            a,
            cause("r", Verdict::Error, "float > ?str", "partitioned", "boom")
        );
        assert_ne!(
            cause("r", Verdict::MissingRows, "float > ?str", "plain", ""),
            cause("r", Verdict::MissingRows, "float >= ?str", "plain", "")
        );
    }
}
