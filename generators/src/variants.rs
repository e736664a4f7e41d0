//! Metamorphic variants: rewrites that preserve SQL three-valued semantics, so explain-core
//! must keep identical file sets in every phase for a predicate and its variants (harness
//! invariant 2); and the degraded form (an unsupported conjunct added), which must keep
//! exactly what its stripped remainder keeps (invariant 3).
//!
//! The rewrites are written here independently of explain-core's normalizer: a shared helper
//! would let a bug agree with itself.

use explain_compiler::ast::{CmpOp, ColumnRef, Literal, Operand, Predicate};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `a AND b` as `NOT (NOT a OR NOT b)`, `a OR b` as `NOT (NOT a AND NOT b)`.
    DeMorgan,
    /// `p` as `NOT NOT p`.
    DoubleNegation,
    /// `c LIKE 'ab%'` as `c >= 'ab' AND c < 'ac'`.
    LikePrefixRange,
    /// `c BETWEEN l AND h` as `c >= l AND c <= h`.
    BetweenRange,
    /// `c IN (a, b)` as `c = a OR c = b`.
    InAsOr,
    /// `x > 5` as `5 < x`.
    Commuted,
    /// `a AND (b OR c)` as `(a AND b) OR (a AND c)`: the form OR factoring folds back.
    OrFactoring,
}

pub const ALL: [Variant; 7] = [
    Variant::DeMorgan,
    Variant::DoubleNegation,
    Variant::LikePrefixRange,
    Variant::BetweenRange,
    Variant::InAsOr,
    Variant::Commuted,
    Variant::OrFactoring,
];

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::DeMorgan => "de-morgan",
            Variant::DoubleNegation => "double-negation",
            Variant::LikePrefixRange => "like-prefix-range",
            Variant::BetweenRange => "between-range",
            Variant::InAsOr => "in-as-or",
            Variant::Commuted => "commuted",
            Variant::OrFactoring => "or-factoring",
        }
    }
}

/// The variant of `p`, or `None` when no node of `p` is of the form the variant rewrites.
pub fn apply(variant: Variant, p: &Predicate) -> Option<Predicate> {
    match variant {
        Variant::DoubleNegation => Some(Predicate::Not(Box::new(Predicate::Not(Box::new(
            p.clone(),
        ))))),
        Variant::OrFactoring => distribute(p),
        _ => {
            let mut changed = false;
            let out = rewrite(p, variant, &mut changed);
            changed.then_some(out)
        }
    }
}

/// A number literal equal to zero (`0`, `-0`, `0.0`, `0e5`).
fn is_numeric_zero(l: &explain_compiler::ast::Literal) -> bool {
    matches!(l, explain_compiler::ast::Literal::Number(t) if t.trim_start_matches(['-', '+']).split(['e', 'E']).next().is_some_and(|m| !m.is_empty() && m.chars().all(|c| c == '0' || c == '.')))
}

fn rewrite(p: &Predicate, v: Variant, changed: &mut bool) -> Predicate {
    let recurse = |items: &[Predicate], changed: &mut bool| -> Vec<Predicate> {
        items.iter().map(|i| rewrite(i, v, changed)).collect()
    };
    match (v, p) {
        (Variant::DeMorgan, Predicate::And(items)) => {
            *changed = true;
            let inner = recurse(items, changed)
                .into_iter()
                .map(|i| Predicate::Not(Box::new(i)))
                .collect();
            Predicate::Not(Box::new(Predicate::Or(inner)))
        }
        (Variant::DeMorgan, Predicate::Or(items)) => {
            *changed = true;
            let inner = recurse(items, changed)
                .into_iter()
                .map(|i| Predicate::Not(Box::new(i)))
                .collect();
            Predicate::Not(Box::new(Predicate::And(inner)))
        }
        (_, Predicate::And(items)) => Predicate::And(recurse(items, changed)),
        (_, Predicate::Or(items)) => Predicate::Or(recurse(items, changed)),
        (_, Predicate::Not(inner)) => Predicate::Not(Box::new(rewrite(inner, v, changed))),
        (
            Variant::BetweenRange,
            Predicate::Between {
                column,
                low,
                high,
                negated,
            },
        ) => {
            *changed = true;
            let range = Predicate::And(vec![
                cmp(column, CmpOp::GtEq, low),
                cmp(column, CmpOp::LtEq, high),
            ]);
            negate_if(range, *negated)
        }
        (
            Variant::InAsOr,
            Predicate::InList {
                column,
                list,
                negated,
            },
        ) if !list.is_empty()
            && !list.iter().any(is_numeric_zero)
            && !mixes_doubles(list)
            && !list.iter().any(spells_a_value) =>
        {
            // Not for a list with a zero: DataFusion's lists compare floats in total order
            // (`-0.0 NOT IN (0)` holds) while its `=` and `!=` do not, so under a NOT (written
            // or enclosing) the forms differ there. Nor for a list that holds a double among
            // other numbers: the list's type is then DOUBLE, so every number in it is read as
            // a double, where `x = 1.0000000000000000005` alone is exact. Nor for a quoted
            // number, date or timestamp: on a column of another type Spark with ANSI off
            // compares the list as strings, where `x = '3'` casts the string (a timestamp's
            // `'... 12:30:00.000000'` is no text Spark prints, so it leaves out no row there).
            *changed = true;
            let any = Predicate::Or(list.iter().map(|l| cmp(column, CmpOp::Eq, l)).collect());
            negate_if(any, *negated)
        }
        (Variant::Commuted, Predicate::Compare { left, op, right }) => {
            *changed = true;
            Predicate::Compare {
                left: right.clone(),
                op: op.commuted(),
                right: left.clone(),
            }
        }
        (
            Variant::LikePrefixRange,
            Predicate::Like {
                column,
                pattern,
                escape: None,
                negated,
            },
        ) => {
            match prefix_of(pattern)
                .and_then(|prefix| successor(&prefix).map(|next| (prefix, next)))
            {
                Some((prefix, next)) => {
                    *changed = true;
                    let range = Predicate::And(vec![
                        cmp(column, CmpOp::GtEq, &Literal::String(prefix)),
                        cmp(column, CmpOp::Lt, &Literal::String(next)),
                    ]);
                    negate_if(range, *negated)
                }
                None => p.clone(),
            }
        }
        _ => p.clone(),
    }
}

fn cmp(column: &ColumnRef, op: CmpOp, literal: &Literal) -> Predicate {
    Predicate::Compare {
        left: Operand::Column(column.clone()),
        op,
        right: Operand::Literal(literal.clone()),
    }
}

fn negate_if(p: Predicate, negated: bool) -> Predicate {
    if negated {
        Predicate::Not(Box::new(p))
    } else {
        p
    }
}

/// The literal prefix of a pattern `prefix%` with no other wildcard or escape, non-empty.
fn prefix_of(pattern: &str) -> Option<String> {
    let prefix = pattern.strip_suffix('%')?;
    (!prefix.is_empty() && !prefix.contains(['%', '_', '\\'])).then(|| prefix.to_string())
}

/// The smallest string greater than every string starting with `prefix`: the prefix with its
/// last character incremented (dropping trailing U+10FFFF, which has no successor).
fn successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let mut code = u32::from(last) + 1;
        if (0xD800..=0xDFFF).contains(&code) {
            code = 0xE000;
        }
        if let Some(next) = char::from_u32(code) {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// `a AND (b OR c)` to `(a AND b) OR (a AND c)` at the root.
fn distribute(p: &Predicate) -> Option<Predicate> {
    let Predicate::And(items) = p else {
        return None;
    };
    let at = items.iter().position(|i| matches!(i, Predicate::Or(_)))?;
    let Predicate::Or(branches) = &items[at] else {
        return None;
    };
    let rest: Vec<Predicate> = items
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, p)| p.clone())
        .collect();
    Some(Predicate::Or(
        branches
            .iter()
            .map(|b| {
                let mut conj = rest.clone();
                conj.push(b.clone());
                Predicate::And(conj)
            })
            .collect(),
    ))
}

/// `p AND UPPER(column) = 'X'`: the degraded form, and `p`, the stripped remainder it must
/// keep exactly the files of.
pub fn degraded(p: &Predicate, column: &ColumnRef) -> (Predicate, Predicate) {
    let unsupported = Predicate::Unsupported {
        sql: format!("UPPER(CAST({column} AS VARCHAR)) = 'X'"),
        columns: vec![column.clone()],
    };
    (Predicate::And(vec![p.clone(), unsupported]), p.clone())
}

/// Whether an IN list holds a number with an exponent (a DOUBLE) beside a plain number.
/// A quoted text that spells a number or a date (`'0.5'`, `'2024-01-03'`).
/// A quoted number, date or timestamp (`'3'`, `'2024-1-3'`, `'2021-01-01 12:30:00.000000'`).
fn spells_a_value(l: &Literal) -> bool {
    matches!(l, Literal::String(t)
        if t.trim().parse::<f64>().is_ok()
            || t.trim().split('-').filter(|p| !p.is_empty()).all(|p| p.bytes().all(|b| b.is_ascii_digit()))
            || (t.bytes().any(|b| b.is_ascii_digit())
                && t.trim().bytes().all(|b| b.is_ascii_digit() || b"-: .T".contains(&b))))
}

fn mixes_doubles(list: &[Literal]) -> bool {
    let double = |l: &Literal| matches!(l, Literal::Number(n) if n.contains(['e', 'E']));
    list.iter().any(double)
        && list
            .iter()
            .any(|l| matches!(l, Literal::Number(_) | Literal::String(_)) && !double(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str) -> ColumnRef {
        ColumnRef::new([name])
    }

    #[test]
    fn each_variant_rewrites_its_form() {
        let x_gt_5 = cmp(&c("x"), CmpOp::Gt, &Literal::Number("5".into()));
        let like = Predicate::Like {
            column: c("s"),
            pattern: "ab%".into(),
            escape: None,
            negated: false,
        };
        let between = Predicate::Between {
            column: c("x"),
            low: Literal::Number("1".into()),
            high: Literal::Number("9".into()),
            negated: true,
        };
        let inlist = Predicate::InList {
            column: c("x"),
            list: vec![Literal::Number("1".into()), Literal::Number("2".into())],
            negated: false,
        };
        let and = Predicate::And(vec![
            x_gt_5.clone(),
            Predicate::Or(vec![like.clone(), between.clone()]),
        ]);
        let quoted_timestamp = Predicate::InList {
            column: c("ts"),
            list: vec![Literal::String("2021-01-01 12:30:00.000000".into())],
            negated: true,
        };
        assert_eq!(apply(Variant::InAsOr, &quoted_timestamp), None);
        let cases: Vec<(Variant, &Predicate, &str)> = vec![
            (Variant::Commuted, &x_gt_5, "5 < x"),
            (Variant::LikePrefixRange, &like, "s >= 'ab' AND s < 'ac'"),
            (Variant::BetweenRange, &between, "NOT (x >= 1 AND x <= 9)"),
            (Variant::InAsOr, &inlist, "x = 1 OR x = 2"),
            (Variant::DoubleNegation, &x_gt_5, "NOT NOT x > 5"),
            (
                Variant::DeMorgan,
                &and,
                "NOT (NOT x > 5 OR NOT NOT (NOT s LIKE 'ab%' AND NOT x NOT BETWEEN 1 AND 9))",
            ),
            (
                Variant::OrFactoring,
                &and,
                "x > 5 AND s LIKE 'ab%' OR x > 5 AND x NOT BETWEEN 1 AND 9",
            ),
        ];
        for (variant, input, expected) in cases {
            assert_eq!(
                apply(variant, input).map(|p| p.to_string()).as_deref(),
                Some(expected),
                "{}",
                variant.name()
            );
        }
        assert_eq!(
            apply(Variant::LikePrefixRange, &x_gt_5),
            None,
            "no LIKE to rewrite"
        );
        assert_eq!(successor("a\u{10FFFF}"), Some("b".into()));
        assert_eq!(successor("\u{10FFFF}"), None);
    }
}
