//! SQL text -> owned AST. **The only module that names sqlparser types.**
//!
//! Parsing uses sqlparser's generic dialect (double quotes and backticks both quote
//! identifiers) with a bounded recursion depth, so an absurdly deep predicate is a clean usage
//! error, never a stack overflow. Anything the owned AST has no node for becomes
//! [`Predicate::Unsupported`] carrying its original SQL text and the columns it references.

use std::ops::ControlFlow;

use sqlparser::ast::{self as sql, BinaryOperator, Expr, UnaryOperator, Value};
use sqlparser::dialect::GenericDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use crate::ast::{CmpOp, ColumnRef, Literal, Operand, Predicate, TypedLiteralKind};
use crate::error::ExplainError;

/// The deepest nesting accepted: parentheses and `NOT`s open at one point of the predicate
/// (`NOT (NOT (a = 1))` nests 4 deep). Deeper input is a usage error, found by one pass over
/// the tokens before the parser runs: every later stage recurses over the tree, and this keeps
/// them all bounded. Hand-written and generated predicates stay far below it.
pub const MAX_PREDICATE_DEPTH: usize = 100;

/// The parser's own recursion limit: above what [`MAX_PREDICATE_DEPTH`] lets through (about
/// one parser level per nesting level, two for `NOT (`), so that an accepted predicate never
/// reaches it. Reaching it would make the parser back off to another reading of the text (a
/// function named `NOT`), which is why the nesting is checked first.
const PARSER_RECURSION_LIMIT: usize = 4 * MAX_PREDICATE_DEPTH;

/// Parses a SQL WHERE predicate into the owned AST.
///
/// The work is linear in the text: the tokens are read once to check that parentheses balance
/// and nest at most [`MAX_PREDICATE_DEPTH`] deep, then parsed by sqlparser (0.64 caches failed
/// speculative parses, which made nested `NOT (` exponential before).
pub fn parse_predicate(text: &str) -> Result<Predicate, ExplainError> {
    if text.trim().is_empty() {
        return Err(ExplainError::InvalidPredicate(
            "the predicate is empty".into(),
        ));
    }
    // sqlparser prefixes its messages with what they are ("sql parser error: Expected: an
    // expression, found: EOF"); after "malformed SQL:" that says it twice.
    fn parser_words(message: &str) -> String {
        let rest = message
            .strip_prefix("sql parser error: ")
            .or_else(|| message.strip_prefix("sql tokenizer error: "))
            .unwrap_or(message);
        rest.replacen("Expected: ", "expected ", 1)
            .replacen(", found: EOF", " at the end of the predicate", 1)
            .replacen(", found: ", ", found ", 1)
    }
    let dialect = GenericDialect {};
    let tokens = match Tokenizer::new(&dialect, text).tokenize_with_location() {
        Ok(tokens) => tokens,
        // Spark ends no string at a backslash-escaped quote (`'it\'s'`); the other engines
        // refuse such text. Read as Spark tokenizes it, the strings kept as written (their
        // readings, Spark's unescaped one among them, are string_readings.rs's).
        Err(e) => Tokenizer::new(&SparkStrings, text)
            .with_unescape(false)
            .tokenize_with_location()
            .map_err(|_| {
                ExplainError::InvalidPredicate(format!(
                    "malformed SQL: {}",
                    parser_words(&e.to_string())
                ))
            })?,
    };
    check_nesting(&tokens)?;
    let tokens = spark_suffixes(tokens)?;
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(PARSER_RECURSION_LIMIT)
        .with_tokens_with_locations(tokens);
    let expr = parser.parse_expr().map_err(|e| {
        ExplainError::InvalidPredicate(match e {
            ParserError::RecursionLimitExceeded => format!(
                "the predicate nests too deeply to parse; at most {MAX_PREDICATE_DEPTH} levels of parentheses and NOT are accepted"
            ),
            other => format!("malformed SQL: {}", parser_words(&other.to_string())),
        })
    })?;
    let next = parser.peek_token();
    if next.token != Token::EOF {
        return Err(ExplainError::InvalidPredicate(format!(
            "malformed SQL: unexpected `{}` after the predicate at {}",
            next.token,
            place(next.span.start)
        )));
    }
    convert_predicate(&expr)
}

/// Spark's typed number literals, a number with a suffix and no space (`2Y`, `2S`, `2L`,
/// `1.5D`, `1.5F`, `1.0BD`, any case), which the generic dialect splits into a number and a
/// word: each becomes the one number token that means the same. Only Spark runs them; DuckDB
/// and DataFusion refuse them, so Spark's reading is the only one.
///
/// | suffix | Spark's type | becomes |
/// |---|---|---|
/// | `Y`, `S`, `L` | TINYINT, SMALLINT, BIGINT (digits only; out of range refused) | the integer |
/// | `D` | DOUBLE | the number with an exponent (`1.5E0`): a double token |
/// | `F` | FLOAT, widened to double against a double column | the double the float rounds to, with an exponent |
/// | `BD` | DECIMAL, exact | the number as written (no exponent) |
fn spark_suffixes(tokens: Vec<TokenWithSpan>) -> Result<Vec<TokenWithSpan>, ExplainError> {
    let mut out: Vec<TokenWithSpan> = Vec::with_capacity(tokens.len());
    let mut it = tokens.into_iter().peekable();
    while let Some(t) = it.next() {
        // The whitespace between tokens is a token of its own: a word next is adjacent.
        let suffix = match (&t.token, it.peek().map(|n| &n.token)) {
            (Token::Number(_, false), Some(Token::Word(w))) if w.quote_style.is_none() => {
                w.value.to_ascii_uppercase()
            }
            _ => {
                out.push(t);
                continue;
            }
        };
        let Token::Number(text, _) = &t.token else {
            out.push(t);
            continue;
        };
        let integer = text.bytes().all(|b| b.is_ascii_digit());
        let exponent = text.contains(['e', 'E']);
        let invalid = |why: &str| {
            Err(ExplainError::InvalidPredicate(format!(
                "malformed SQL: `{text}{suffix}` at {}: {why}",
                place(t.span.start)
            )))
        };
        let respelled = match suffix.as_str() {
            "Y" | "S" | "L" if !integer => {
                return invalid("Spark's integer suffixes take digits only");
            }
            "Y" | "S" | "L" => {
                let max: u64 = match suffix.as_str() {
                    "Y" => i8::MAX as u64,
                    "S" => i16::MAX as u64,
                    _ => i64::MAX as u64,
                };
                if text.parse::<u64>().map_or(true, |v| v > max) {
                    return invalid("out of the type's range (Spark refuses it)");
                }
                text.clone()
            }
            "D" if exponent => text.clone(),
            "D" => format!("{text}E0"),
            "F" => match text.parse::<f32>() {
                Ok(v) if v.is_finite() => format!("{:e}", f64::from(v)),
                _ => return invalid("out of the float range (Spark refuses it)"),
            },
            "BD" if exponent => {
                return invalid("a decimal with an exponent is not read here; write its digits");
            }
            "BD" => text.clone(),
            _ => {
                out.push(t);
                continue;
            }
        };
        it.next();
        out.push(TokenWithSpan {
            token: Token::Number(respelled, false),
            span: t.span,
        });
    }
    Ok(out)
}

/// The generic dialect's tokens with Spark's string literals: a backslash escapes the next
/// character, a quote included.
#[derive(Debug)]
struct SparkStrings;

impl sqlparser::dialect::Dialect for SparkStrings {
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        GenericDialect {}.is_delimited_identifier_start(ch)
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        GenericDialect {}.is_identifier_start(ch)
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        GenericDialect {}.is_identifier_part(ch)
    }

    fn supports_unicode_string_literal(&self) -> bool {
        GenericDialect {}.supports_unicode_string_literal()
    }

    fn supports_literal_prefix_in_qualified_name(&self) -> bool {
        GenericDialect {}.supports_literal_prefix_in_qualified_name()
    }

    fn supports_string_literal_backslash_escape(&self) -> bool {
        true
    }
}

/// A place in the predicate's text, for an error message.
fn place(at: sqlparser::tokenizer::Location) -> String {
    format!("line {}, column {}", at.line, at.column)
}

/// One pass over the tokens: every `)` closes an open `(`, every `(` is closed, and no point
/// is nested deeper than [`MAX_PREDICATE_DEPTH`] (open parentheses plus the `NOT`s applied
/// to what follows). Errors name the place, so a predicate taken from a log can be fixed.
fn check_nesting(tokens: &[TokenWithSpan]) -> Result<(), ExplainError> {
    let invalid = |m: String| Err(ExplainError::InvalidPredicate(m));
    // Per open parenthesis: where it opens, and the NOTs pending just before it.
    let mut open: Vec<(sqlparser::tokenizer::Location, usize)> = Vec::new();
    // NOTs applied to what follows, at this parenthesis level: `NOT NOT (` counts 2 there.
    let mut nots = 0usize;
    let depth = |open: &[(sqlparser::tokenizer::Location, usize)], nots: usize| {
        open.iter().map(|(_, n)| n + 1).sum::<usize>() + nots
    };
    for t in tokens {
        match &t.token {
            Token::LParen => {
                open.push((t.span.start, nots));
                nots = 0;
            }
            Token::RParen => match open.pop() {
                Some(_) => nots = 0,
                None => {
                    return invalid(format!(
                        "malformed SQL: `)` at {} closes no `(`",
                        place(t.span.start)
                    ));
                }
            },
            Token::Word(w) if w.quote_style.is_none() && w.keyword == Keyword::NOT => {
                nots += 1;
            }
            Token::Whitespace(_) => {}
            // An operand or an operator ends the run of NOTs that applied to it; `a NOT IN`,
            // `NOT LIKE` and `IS NOT NULL` start a new one that the next operand ends.
            _ => nots = 0,
        }
        let d = depth(&open, nots);
        if d > MAX_PREDICATE_DEPTH {
            return invalid(format!(
                "the predicate nests more than {MAX_PREDICATE_DEPTH} levels of parentheses and NOT deep at {}; simplify it or split it",
                place(t.span.start)
            ));
        }
    }
    if let Some((first, _)) = open.first() {
        return invalid(format!(
            "malformed SQL: {} `(` never closed; the first opens at {}",
            open.len(),
            place(*first)
        ));
    }
    Ok(())
}

fn convert_predicate(expr: &Expr) -> Result<Predicate, ExplainError> {
    Ok(match expr {
        Expr::Nested(inner) => convert_predicate(inner)?,
        Expr::BinaryOp {
            op: BinaryOperator::And,
            ..
        } => Predicate::And(
            chain(expr, &BinaryOperator::And)
                .into_iter()
                .map(convert_predicate)
                .collect::<Result<_, _>>()?,
        ),
        Expr::BinaryOp {
            op: BinaryOperator::Or,
            ..
        } => Predicate::Or(
            chain(expr, &BinaryOperator::Or)
                .into_iter()
                .map(convert_predicate)
                .collect::<Result<_, _>>()?,
        ),
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr: inner,
        } => Predicate::Not(Box::new(convert_predicate(inner)?)),
        // A value, not a truth value: Spark refuses `WHERE p >> 5` (FILTER_NOT_BOOLEAN, ANSI
        // on and off) and so does DataFusion; DuckDB alone casts a number to a boolean (non-zero
        // is true). Bad input with the comparison DuckDB reads, not a fragment that keeps
        // every file.
        Expr::BinaryOp { op, .. } if computes_a_value(op) => {
            return Err(ExplainError::InvalidPredicate(format!(
                "`{expr}` computes a value, not a condition; write the comparison meant, e.g. `({expr}) <> 0`"
            )));
        }
        Expr::UnaryOp {
            op: UnaryOperator::Plus | UnaryOperator::Minus | UnaryOperator::BitwiseNot,
            expr: inner,
        } if column(inner).is_some() => {
            return Err(ExplainError::InvalidPredicate(format!(
                "`{expr}` computes a value, not a condition; write the comparison meant, e.g. `{expr} <> 0`"
            )));
        }
        Expr::BinaryOp { left, op, right } => comparison(expr, left, op, right)?,
        Expr::IsNull(inner) | Expr::IsNotNull(inner) => match column(inner) {
            Some(column) => Predicate::IsNull {
                column,
                negated: matches!(expr, Expr::IsNotNull(_)),
            },
            None => unsupported(expr),
        },
        Expr::In {
            expr: target,
            target: sql::InTarget::List(list),
            negated,
            global: false,
        } if list.iter().any(is_double_quoted) => quoted_in_list(expr, target, list, *negated)?,
        Expr::In {
            expr: target,
            target: sql::InTarget::List(list),
            negated,
            global: false,
        } => in_list(expr, target, list, *negated)?,
        Expr::Between {
            expr: target,
            negated,
            low,
            high,
        } if is_double_quoted(low) || is_double_quoted(high) => {
            quoted_between(expr, target, *negated, low, high)?
        }
        Expr::Between {
            expr: target,
            negated,
            low,
            high,
        } => match (column(target), literal(low)?, literal(high)?) {
            (Some(column), Some(low), Some(high)) => Predicate::Between {
                column,
                low,
                high,
                negated: *negated,
            },
            _ => unsupported(expr),
        },
        Expr::Like {
            negated,
            any: false,
            expr: target,
            pattern,
            escape_char,
        } => like(expr, target, pattern, escape_char.as_deref(), *negated)?,
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => match column(expr) {
            Some(c) => Predicate::BoolColumn(c),
            None => unsupported(expr),
        },
        Expr::Value(_)
        | Expr::TypedString(_)
        | Expr::UnaryOp {
            op: UnaryOperator::Minus,
            ..
        } => constant(expr)?,
        // The parser reads `NOT (..)` as a call of a function named NOT only after failing to
        // read it as the operator; taking that reading would explain a different predicate.
        Expr::Function(f)
            if f.name.0.len() == 1
                && f.name.0[0].as_ident().is_some_and(|i| {
                    i.quote_style.is_none() && i.value.eq_ignore_ascii_case("not")
                }) =>
        {
            return Err(ExplainError::InvalidPredicate(format!(
                "malformed SQL: `{expr}` reads as a function named NOT; check the parentheses around it"
            )));
        }
        _ => unsupported(expr),
    })
}

/// A comparison of a column with a literal (either side); any other comparison is kept as
/// an unsupported fragment.
fn comparison(
    expr: &Expr,
    left: &Expr,
    op: &BinaryOperator,
    right: &Expr,
) -> Result<Predicate, ExplainError> {
    Ok(match comparison_op(op) {
        Some(op) => match (operand(left)?, operand(right)?) {
            (Some(l), Some(r)) if !matches!((&l, &r), (Operand::Column(_), Operand::Column(_))) => {
                Predicate::Compare {
                    left: l,
                    op,
                    right: r,
                }
            }
            _ => unsupported(expr),
        },
        None => unsupported(expr),
    })
}

/// A literal standing alone: TRUE, FALSE or NULL is a constant predicate; any other value is
/// not a condition.
fn constant(expr: &Expr) -> Result<Predicate, ExplainError> {
    Ok(match literal(expr)? {
        Some(l @ (Literal::Boolean(_) | Literal::Null)) => Predicate::Constant(l),
        Some(other) => {
            return Err(ExplainError::InvalidPredicate(format!(
                "`{other}` is not a boolean predicate"
            )));
        }
        None => unsupported(expr),
    })
}

/// `x [NOT] IN (...)` holding double-quoted items.
fn quoted_in_list(
    expr: &Expr,
    target: &Expr,
    list: &[Expr],
    negated: bool,
) -> Result<Predicate, ExplainError> {
    Ok({
        // A double-quoted item is a string in Spark and a column in DuckDB and DataFusion:
        // normalization settles it against the table's columns.
        let items: Option<Vec<Operand>> = list
            .iter()
            .map(|item| match item {
                Expr::Identifier(_) if is_double_quoted(item) => operand(item),
                other => Ok(literal(other)?.map(Operand::Literal)),
            })
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .collect();
        match (column(target), items) {
            (Some(column), Some(list)) => Predicate::QuotedInList {
                column,
                list,
                negated,
            },
            _ => unsupported(expr),
        }
    })
}

/// `x [NOT] IN (...)` of literals.
fn in_list(
    expr: &Expr,
    target: &Expr,
    list: &[Expr],
    negated: bool,
) -> Result<Predicate, ExplainError> {
    Ok({
        let literals: Option<Vec<Literal>> = list
            .iter()
            .map(literal)
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .collect();
        match (column(target), literals) {
            (Some(column), Some(list)) if !list.is_empty() => Predicate::InList {
                column,
                list,
                negated,
            },
            _ => unsupported(expr),
        }
    })
}

/// `x [NOT] BETWEEN` with a bound in double quotes.
fn quoted_between(
    expr: &Expr,
    target: &Expr,
    negated: bool,
    low: &Expr,
    high: &Expr,
) -> Result<Predicate, ExplainError> {
    Ok({
        match column(target) {
            // Bounds in double quotes (a string in Spark, a column elsewhere): the comparisons
            // BETWEEN stands for, `x >= low AND x <= high` (NOT: `x < low OR x > high`).
            Some(c) => {
                let side = |op: CmpOp, bound: &Expr| -> Result<Option<Predicate>, ExplainError> {
                    Ok(operand(bound)?.map(|right| Predicate::Compare {
                        left: Operand::Column(c.clone()),
                        op,
                        right,
                    }))
                };
                let (low_op, high_op) = if negated {
                    (CmpOp::Lt, CmpOp::Gt)
                } else {
                    (CmpOp::GtEq, CmpOp::LtEq)
                };
                match (side(low_op, low)?, side(high_op, high)?) {
                    (Some(l), Some(h)) if negated => Predicate::Or(vec![l, h]),
                    (Some(l), Some(h)) => Predicate::And(vec![l, h]),
                    _ => unsupported(expr),
                }
            }
            None => unsupported(expr),
        }
    })
}

/// `x [NOT] LIKE pattern [ESCAPE c]`.
fn like(
    expr: &Expr,
    target: &Expr,
    pattern: &Expr,
    escape_char: Option<&Expr>,
    negated: bool,
) -> Result<Predicate, ExplainError> {
    Ok({
        let escape = match escape_char {
            None => Ok(None),
            Some(v) => match escape_text(v) {
                Some(s) if s.chars().count() == 1 => Ok(s.chars().next()),
                _ => Err(ExplainError::InvalidPredicate(format!(
                    "the ESCAPE of `{expr}` must be a single character"
                ))),
            },
        }?;
        match (column(target), literal(pattern)?) {
            (Some(column), Some(Literal::String(pattern))) => Predicate::Like {
                column,
                pattern,
                escape,
                negated,
            },
            _ => unsupported(expr),
        }
    })
}

/// The operators whose result is a number, a string or bits: arithmetic, concatenation, the
/// bitwise ones. Every other operator is a comparison, a junction, or one this tool leaves out
/// of pruning (kept as an unsupported fragment).
fn computes_a_value(op: &BinaryOperator) -> bool {
    matches!(
        op,
        BinaryOperator::Plus
            | BinaryOperator::Minus
            | BinaryOperator::Multiply
            | BinaryOperator::Divide
            | BinaryOperator::Modulo
            | BinaryOperator::StringConcat
            | BinaryOperator::BitwiseOr
            | BinaryOperator::BitwiseAnd
            | BinaryOperator::BitwiseXor
            | BinaryOperator::DuckIntegerDivide
            | BinaryOperator::MyIntegerDivide
            | BinaryOperator::PGBitwiseXor
            | BinaryOperator::PGBitwiseShiftLeft
            | BinaryOperator::PGBitwiseShiftRight
            | BinaryOperator::PGExp
    )
}

/// The operands of a chain `a AND b AND c`, in order. The parser nests binary nodes (a chain
/// of thousands of conjuncts is thousands deep); walking it with an explicit stack keeps a
/// wide predicate from exhausting the call stack.
fn chain<'a>(expr: &'a Expr, junction: &BinaryOperator) -> Vec<&'a Expr> {
    let mut out = Vec::new();
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        match e {
            Expr::BinaryOp { left, op, right } if op == junction => {
                stack.push(right);
                stack.push(left);
            }
            Expr::Nested(inner) if matches!(inner.as_ref(), Expr::BinaryOp { op, .. } if op == junction) =>
            {
                stack.push(inner);
            }
            other => out.push(other),
        }
    }
    out
}

fn comparison_op(op: &BinaryOperator) -> Option<CmpOp> {
    Some(match op {
        BinaryOperator::Eq => CmpOp::Eq,
        BinaryOperator::NotEq => CmpOp::NotEq,
        BinaryOperator::Lt => CmpOp::Lt,
        BinaryOperator::LtEq => CmpOp::LtEq,
        BinaryOperator::Gt => CmpOp::Gt,
        BinaryOperator::GtEq => CmpOp::GtEq,
        _ => return None,
    })
}

fn operand(expr: &Expr) -> Result<Option<Operand>, ExplainError> {
    if let Expr::Identifier(ident) = expr
        && ident.quote_style == Some('"')
    {
        return Ok(Some(Operand::QuotedName(ident.value.clone())));
    }
    if let Some(c) = column(expr) {
        return Ok(Some(Operand::Column(c)));
    }
    Ok(literal(expr)?.map(Operand::Literal))
}

/// A name in double quotes (`"ab"`): a string in Spark, a column in DuckDB and DataFusion.
fn is_double_quoted(expr: &Expr) -> bool {
    matches!(expr, Expr::Identifier(ident) if ident.quote_style == Some('"'))
}

fn column(expr: &Expr) -> Option<ColumnRef> {
    match expr {
        Expr::Nested(inner) => column(inner),
        Expr::Identifier(ident) => Some(ColumnRef::new([ident.value.clone()])),
        Expr::CompoundIdentifier(parts) => {
            Some(ColumnRef::new(parts.iter().map(|p| p.value.clone())))
        }
        _ => None,
    }
}

fn string_value(value: &Value) -> Option<String> {
    match value {
        Value::SingleQuotedString(s)
        | Value::EscapedStringLiteral(s)
        | Value::UnicodeStringLiteral(s)
        | Value::NationalStringLiteral(s)
        | Value::TripleSingleQuotedString(s) => Some(s.clone()),
        _ => None,
    }
}

/// The text of an `ESCAPE` clause: a string literal.
fn escape_text(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Value(v) => string_value(&v.value),
        _ => None,
    }
}

/// Converts a literal token. `Ok(None)`: not a literal (an expression to keep unsupported);
/// `Err`: a literal that cannot mean anything (`DATE 5`).
fn literal(expr: &Expr) -> Result<Option<Literal>, ExplainError> {
    Ok(match expr {
        Expr::Nested(inner) => literal(inner)?,
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => Some(Literal::Number(n.to_string())),
            Value::Boolean(b) => Some(Literal::Boolean(*b)),
            Value::Null => Some(Literal::Null),
            // An odd count of digits has no measured reading: not a literal, kept as an
            // expression (it prunes nothing).
            Value::HexStringLiteral(hex) => hex_bytes(hex).map(Literal::Binary),
            other => string_value(other).map(Literal::String),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr: inner,
        } => match literal(inner)? {
            Some(Literal::Number(n)) => Some(Literal::Number(match n.strip_prefix('-') {
                Some(positive) => positive.to_string(),
                None => format!("-{n}"),
            })),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Plus,
            expr: inner,
        } => match literal(inner)? {
            n @ Some(Literal::Number(_)) => n,
            _ => None,
        },
        Expr::TypedString(typed) => {
            let kind = match &typed.data_type {
                sql::DataType::Date => TypedLiteralKind::Date,
                sql::DataType::Timestamp(_, sql::TimezoneInfo::None)
                | sql::DataType::Timestamp(_, sql::TimezoneInfo::WithTimeZone)
                | sql::DataType::Timestamp(_, sql::TimezoneInfo::Tz) => TypedLiteralKind::Timestamp,
                sql::DataType::Timestamp(_, sql::TimezoneInfo::WithoutTimeZone)
                | sql::DataType::TimestampNtz(_) => TypedLiteralKind::TimestampNtz,
                sql::DataType::Custom(name, _)
                    if name.to_string().eq_ignore_ascii_case("timestamp_ntz") =>
                {
                    TypedLiteralKind::TimestampNtz
                }
                _ => return Ok(None),
            };
            match string_value(&typed.value.value) {
                Some(text) => Some(Literal::Typed { kind, text }),
                None => {
                    return Err(ExplainError::InvalidPredicate(format!(
                        "`{expr}`: a typed literal needs a quoted string"
                    )));
                }
            }
        }
        _ => None,
    })
}

/// The bytes an even count of hexadecimal digits spells.
fn hex_bytes(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
        .collect()
}

fn unsupported(expr: &Expr) -> Predicate {
    let mut columns: Vec<ColumnRef> = Vec::new();
    let _ = sql::visit_expressions(expr, |e| {
        // Only maximal identifier chains count: `a.b` must not also yield `a`.
        if let Some(c) = match e {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => column(e),
            _ => None,
        } && !columns.contains(&c)
        {
            columns.push(c);
        }
        ControlFlow::<()>::Continue(())
    });
    Predicate::Unsupported {
        sql: expr.to_string(),
        columns,
    }
}
