//! The predicate as the explainer's SQL means it, spelled so DataFusion's parser reads it the
//! same way. The oracle accepts every predicate the explainer accepts:
//!
//! | written | respelled | why |
//! |---|---|---|
//! | a column in another case (`FARE_AMOUNT`) | the schema's spelling, quoted | the explainer resolves a unique case-insensitive match; DataFusion (identifier normalization off) is case-sensitive |
//! | `TIMESTAMP_NTZ '..'` | `TIMESTAMP '..'` | DataFusion knows no such keyword; its `TIMESTAMP` has no time zone, which is what NTZ means |
//! | `s LIKE 'a!%' ESCAPE '!'` | `s LIKE 'a\%'` | DataFusion escapes with a backslash only |
//! | a sign before a signed number (`a = - -10`) | `a = -(-10)` | written back as `- -10` is `--10`, a comment to the parser |
//! | a number with an exponent (`4.0000000000000001e0`, `1e300`) | `CAST('4.0000000000000001e0' AS DOUBLE)` | Spark, DuckDB and DataFusion (without `parse_float_as_decimal`) read it as a DOUBLE, rounded before any comparison, and compare an integer or decimal column with it as doubles (pitfall 26); the session parses numbers with a point as exact decimals, which would read it exactly |

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{
    self, CastKind, DataType as SqlType, Expr, Ident, TimezoneInfo, Value, ValueWithSpan,
    visit_expressions_mut,
};
use datafusion::sql::sqlparser::dialect::GenericDialect;
use datafusion::sql::sqlparser::parser::Parser;

use crate::error::{OracleError, one_line};

/// How deep a predicate may nest, in parser recursion levels. Both parsers get this limit (and
/// DataFusion's session the same, see `matching::session`), far above what a real predicate
/// needs: with a limit too low for a valid predicate, sqlparser 0.62 backs off level by level
/// into other readings, and its time doubles with each.
pub const PARSER_RECURSION_LIMIT: usize = 400;

/// Checks `predicate` with sqlparser 0.64 before sqlparser 0.62 (DataFusion's) reads it: 0.64
/// parses in time linear in the text, so malformed input (an unclosed `NOT (` chain, an error
/// at the bottom of a deep nest) is refused at once; what passes is valid SQL, which 0.62
/// parses without backtracking.
fn gate(predicate: &str) -> Result<(), OracleError> {
    use sqlparser_gate::dialect::GenericDialect;
    use sqlparser_gate::parser::Parser;
    use sqlparser_gate::tokenizer::Token;
    let dialect = GenericDialect {};
    let invalid = |e: String| OracleError::Predicate(one_line(&e));
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .try_with_sql(predicate)
        .map_err(|e| invalid(e.to_string()))?;
    parser.parse_expr().map_err(|e| invalid(e.to_string()))?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(invalid(format!(
            "unexpected `{}` after the predicate",
            next.token
        )));
    }
    Ok(())
}

/// Respells `predicate` over a table whose top-level columns are `fields`.
pub fn respell(predicate: &str, fields: &[String]) -> Result<String, OracleError> {
    gate(predicate)?;
    let mut expr = Parser::new(&GenericDialect {})
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .try_with_sql(predicate)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| OracleError::Predicate(one_line(&e.to_string())))?;
    let _ = visit_expressions_mut(&mut expr, |e: &mut Expr| {
        match e {
            Expr::Identifier(ident) => column(ident, fields),
            Expr::CompoundIdentifier(idents) => {
                if let Some(first) = idents.first_mut() {
                    column(first, fields);
                }
            }
            Expr::TypedString(typed) if is_timestamp_ntz(&typed.data_type) => {
                typed.data_type = SqlType::Timestamp(None, TimezoneInfo::None);
            }
            Expr::Like {
                pattern,
                escape_char,
                ..
            }
            | Expr::ILike {
                pattern,
                escape_char,
                ..
            } => {
                escape_with_backslash(pattern, escape_char);
            }
            // `- -10` is written back as `--10`, which starts a comment: the inner sign is
            // parenthesized (`-(-10)`), the value unchanged.
            Expr::UnaryOp {
                op: ast::UnaryOperator::Minus | ast::UnaryOperator::Plus,
                expr: inner,
            } if matches!(**inner, Expr::UnaryOp { .. }) => {
                let signed = std::mem::replace(&mut **inner, Expr::Value(Value::Null.into()));
                **inner = Expr::Nested(Box::new(signed));
            }
            Expr::Value(ValueWithSpan {
                value: Value::Number(text, _),
                ..
            }) if has_exponent(text) => {
                let text = text.clone();
                *e = Expr::Cast {
                    kind: CastKind::Cast,
                    expr: Box::new(Expr::Value(Value::SingleQuotedString(text).into())),
                    data_type: SqlType::Double(ast::ExactNumberInfo::None),
                    array: false,
                    format: None,
                };
            }
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    Ok(expr.to_string())
}

/// A column named in another case takes the schema's spelling, when exactly one matches.
fn column(ident: &mut Ident, fields: &[String]) {
    if fields.contains(&ident.value) {
        return;
    }
    let matches: Vec<&String> = fields
        .iter()
        .filter(|f| same_ignoring_case(f, &ident.value))
        .collect();
    if let [only] = matches.as_slice() {
        *ident = Ident::with_quote('"', only.as_str());
    }
}

/// Spark's column-name comparison ignoring case (Java's `equalsIgnoreCase`: per character,
/// by the one-character case mappings), as explain-core's `schema::same_ignoring_case`.
fn same_ignoring_case(a: &str, b: &str) -> bool {
    fn single(mut it: impl Iterator<Item = char>) -> Option<char> {
        let c = it.next()?;
        it.next().is_none().then_some(c)
    }
    a.chars().count() == b.chars().count()
        && a.chars().zip(b.chars()).all(|(x, y)| {
            x == y
                || single(x.to_uppercase()).is_some_and(|u| Some(u) == single(y.to_uppercase()))
                || single(x.to_lowercase()).is_some_and(|l| Some(l) == single(y.to_lowercase()))
        })
}

fn is_timestamp_ntz(t: &SqlType) -> bool {
    match t {
        SqlType::Custom(name, _) => name.to_string().eq_ignore_ascii_case("timestamp_ntz"),
        other => other.to_string().eq_ignore_ascii_case("timestamp_ntz"),
    }
}

/// Rewrites a literal pattern escaped by another character into the backslash form.
fn escape_with_backslash(pattern: &mut Expr, escape_char: &mut Option<ValueWithSpan>) {
    let Some(ValueWithSpan {
        value: Value::SingleQuotedString(esc),
        ..
    }) = escape_char.as_ref()
    else {
        return;
    };
    let mut chars = esc.chars();
    let (Some(escape), None) = (chars.next(), chars.next()) else {
        return;
    };
    if escape == '\\' {
        *escape_char = None;
        return;
    }
    let Expr::Value(ValueWithSpan {
        value: Value::SingleQuotedString(p),
        ..
    }) = pattern
    else {
        return;
    };
    let mut out = String::new();
    let mut it = p.chars();
    while let Some(c) = it.next() {
        if c == escape {
            match it.next() {
                Some(n @ ('%' | '_' | '\\')) => {
                    out.push('\\');
                    out.push(n);
                }
                Some(n) => out.push(n),
                None => out.push(c),
            }
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    *p = out;
    *escape_char = None;
}

/// Whether a number token has an exponent: a DOUBLE literal in every engine.
fn has_exponent(text: &str) -> bool {
    text.contains(['e', 'E'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: &str) {
        let fields = [
            "fare_amount".to_string(),
            "Mixed".to_string(),
            "ts".to_string(),
            "s".to_string(),
        ];
        assert_eq!(
            respell(input, &fields).unwrap(),
            expected,
            "respelled `{input}`"
        );
    }

    #[test]
    fn respells_what_datafusion_reads_otherwise() {
        check("FARE_AMOUNT > 5", "\"fare_amount\" > 5");
        check("mixed = 1", "\"Mixed\" = 1");
        check("fare_amount > 5", "fare_amount > 5");
        check(
            "ts > TIMESTAMP_NTZ '2021-01-01 00:00:00'",
            "ts > TIMESTAMP '2021-01-01 00:00:00'",
        );
        check("s LIKE 'a!%b' ESCAPE '!'", "s LIKE 'a\\%b'");
        check("s LIKE 'a\\b!_' ESCAPE '!'", "s LIKE 'a\\\\b\\_'");
        check(
            "fare_amount > 1e300",
            "fare_amount > CAST('1e300' AS DOUBLE)",
        );
        check(
            "fare_amount > 1e-300",
            "fare_amount > CAST('1e-300' AS DOUBLE)",
        );
        check("fare_amount > 1e30", "fare_amount > CAST('1e30' AS DOUBLE)");
        check(
            "fare_amount = 4.0000000000000001e0",
            "fare_amount = CAST('4.0000000000000001e0' AS DOUBLE)",
        );
        check("fare_amount = 4.5", "fare_amount = 4.5");
        check("fare_amount = - -10", "fare_amount = -(-10)");
        check("fare_amount = - + -10", "fare_amount = -(+(-10))");
        check(
            "fare_amount > - -1e30",
            "fare_amount > -(-CAST('1e30' AS DOUBLE))",
        );
    }
}
