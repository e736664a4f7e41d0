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
    let tokens = Tokenizer::new(&dialect, text)
        .tokenize_with_location()
        .map_err(|e| {
            ExplainError::InvalidPredicate(format!(
                "malformed SQL: {}",
                parser_words(&e.to_string())
            ))
        })?;
    check_nesting(&tokens)?;
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
        Expr::BinaryOp { left, op, right } => match comparison_op(op) {
            Some(op) => match (operand(left)?, operand(right)?) {
                (Some(l), Some(r))
                    if !matches!((&l, &r), (Operand::Column(_), Operand::Column(_))) =>
                {
                    Predicate::Compare {
                        left: l,
                        op,
                        right: r,
                    }
                }
                _ => unsupported(expr),
            },
            None => unsupported(expr),
        },
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
        } => {
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
                    negated: *negated,
                },
                _ => unsupported(expr),
            }
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
        } => {
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
                    negated: *negated,
                },
                _ => unsupported(expr),
            }
        }
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => match column(expr) {
            Some(c) => Predicate::BoolColumn(c),
            None => unsupported(expr),
        },
        Expr::Value(_)
        | Expr::TypedString(_)
        | Expr::UnaryOp {
            op: UnaryOperator::Minus,
            ..
        } => match literal(expr)? {
            Some(l @ (Literal::Boolean(_) | Literal::Null)) => Predicate::Constant(l),
            Some(other) => {
                return Err(ExplainError::InvalidPredicate(format!(
                    "`{other}` is not a boolean predicate"
                )));
            }
            None => unsupported(expr),
        },
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
    if let Some(c) = column(expr) {
        return Ok(Some(Operand::Column(c)));
    }
    Ok(literal(expr)?.map(Operand::Literal))
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
