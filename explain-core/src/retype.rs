//! Comparisons across types, as engines run them: a literal that is not of its column's type
//! becomes one that is, with the same matching rows under Spark, DuckDB and DataFusion; where
//! they disagree, the rewrite keeps the rows any of them could match and a note says so. Only
//! a comparison no engine would run (a number against a date, say) is refused later, by
//! [`crate::lower::check_literals`].
//!
//! | column | literal | rewrite | engines |
//! |---|---|---|---|
//! | integer or decimal(p, s) | a quoted number `'5'` | the number `5` | all cast the string to the column's type |
//! | integer or decimal(p, s) | more fractional digits than `s` (`x > 1.5` on an integer) | `x > L` -> `x >= ceil(L)`, `x >= L` -> `x >= ceil(L)`, `x < L` -> `x <= floor(L)`, `x <= L` -> `x <= floor(L)`, `x = L` -> FALSE, `x != L` -> `x IS NOT NULL` (floor and ceil at scale `s`) | all compare exactly (as decimals) |
//! | integer or decimal(p, s) | beyond the type's range | `x < L`, `x <= L`, `x != L` -> `x IS NOT NULL` above the range, FALSE below it (and mirrored for `>`, `>=`); `x = L` -> FALSE | all compare exactly |
//! | double | a quoted number `'5'` | the number `5` | all cast the string to double |
//! | float | a number with no exact float (`0.1`) | `x = L` -> `x = f32(L)`; `x != L` -> `x IS NOT NULL`; `<`/`<=`/`>`/`>=` to the float bound that admits both readings | Spark and DataFusion widen the column to double (no float equals `0.1`), DuckDB narrows the literal to the nearest float: disagree; the union is kept |
//!
//! `IN` lists drop the values no row can equal; an empty list is FALSE, an empty `NOT IN`
//! list is `x IS NOT NULL`.

use std::cmp::Ordering;

use delta_kernel::schema::PrimitiveType;

use crate::ast::{CmpOp, ColumnRef, Literal};
use crate::classify::Note;
use crate::coerce::LongNumber;
use crate::nnf::{Leaf, Nnf};
use crate::schema::{ColumnInfo, TableColumns};

pub const CROSS_TYPE_COMPARISON: &str = "CROSS_TYPE_COMPARISON";

/// Rewrites every leaf whose literal is not of its column's type. The notes name the leaves
/// engines disagree on.
pub fn retype(pred: &Nnf, columns: &TableColumns) -> (Nnf, Vec<Note>) {
    let mut disagree: Vec<String> = Vec::new();
    let out = pred.map_leaves(&mut |leaf: &Leaf| {
        let Some(info) = leaf.column().and_then(|c| columns.resolve(c).ok()) else {
            return Nnf::Leaf(leaf.clone());
        };
        match retype_leaf(leaf, &info) {
            Some((rewritten, engines_disagree)) => {
                if engines_disagree {
                    disagree.push(format!("`{leaf}`"));
                }
                rewritten
            }
            None => Nnf::Leaf(leaf.clone()),
        }
    });
    let notes = if disagree.is_empty() {
        Vec::new()
    } else {
        vec![Note {
            code: CROSS_TYPE_COMPARISON,
            message: format!(
                "{}: engines disagree on a float column against a number with no exact float (Spark and DataFusion widen the column, DuckDB narrows the literal); the rows either reading matches are kept",
                disagree.join(", ")
            ),
        }]
    };
    (out, notes)
}

/// The column's numeric domain: integers of a range, decimals at a scale within a precision,
/// or floats.
enum Domain {
    /// Multiples of `10^-scale` with at most `precision` digits (integers: scale 0 and the
    /// type's bounds).
    Exact {
        scale: u8,
        min: LongNumber,
        max: LongNumber,
    },
    Float,
    /// Every number is compared as the nearest double by every engine.
    Double,
}

fn domain(info: &ColumnInfo) -> Option<Domain> {
    let int = |min: i128, max: i128| {
        Some(Domain::Exact {
            scale: 0,
            min: LongNumber::parse(&min.to_string())?,
            max: LongNumber::parse(&max.to_string())?,
        })
    };
    match info.primitive()? {
        PrimitiveType::Byte => int(i8::MIN.into(), i8::MAX.into()),
        PrimitiveType::Short => int(i16::MIN.into(), i16::MAX.into()),
        PrimitiveType::Integer => int(i32::MIN.into(), i32::MAX.into()),
        PrimitiveType::Long => int(i64::MIN.into(), i64::MAX.into()),
        PrimitiveType::Decimal(dt) => {
            let digits = "9".repeat(usize::from(dt.precision()));
            let scale = usize::from(dt.scale());
            let (int, frac) = digits.split_at(digits.len() - scale);
            let text = if frac.is_empty() {
                int.to_string()
            } else {
                format!("{}.{frac}", if int.is_empty() { "0" } else { int })
            };
            Some(Domain::Exact {
                scale: dt.scale(),
                min: LongNumber::parse(&format!("-{text}"))?,
                max: LongNumber::parse(&text)?,
            })
        }
        PrimitiveType::Float => Some(Domain::Float),
        PrimitiveType::Double => Some(Domain::Double),
        _ => None,
    }
}

/// A numeric literal's text: a number token, or a quoted number (engines cast it).
fn numeric_text(literal: &Literal) -> Option<&str> {
    match literal {
        Literal::Number(n) => Some(n),
        Literal::String(s) if LongNumber::parse(s).is_some() => Some(s.trim()),
        _ => None,
    }
}

/// One value of an IN list or a comparison, placed against the domain.
enum Place {
    /// A value of the domain: the literal (re-spelled as a number where it was quoted).
    Member(Literal),
    /// Between two neighbouring members (or beyond the range): no row equals it.
    Between {
        floor: Option<Literal>,
        ceil: Option<Literal>,
    },
}

fn place(literal: &Literal, domain: &Domain) -> Option<Place> {
    let text = numeric_text(literal)?;
    let number = LongNumber::parse(text)?;
    match domain {
        Domain::Exact { scale, min, max } => {
            if number.cmp(min) == Ordering::Less {
                return Some(Place::Between {
                    floor: None,
                    ceil: Some(Literal::Number(min.to_string())),
                });
            }
            if number.cmp(max) == Ordering::Greater {
                return Some(Place::Between {
                    floor: Some(Literal::Number(max.to_string())),
                    ceil: None,
                });
            }
            let (floor, ceil) = number.floor_ceil(*scale)?;
            Some(if floor == ceil {
                Place::Member(Literal::Number(text.to_string()))
            } else {
                Place::Between {
                    floor: Some(Literal::Number(floor)),
                    ceil: Some(Literal::Number(ceil)),
                }
            })
        }
        Domain::Double => Some(Place::Member(Literal::Number(text.to_string()))),
        Domain::Float => {
            let v: f64 = text.parse().ok()?;
            let narrowed = v as f32;
            if !v.is_finite() || f64::from(narrowed) == v {
                return Some(Place::Member(Literal::Number(text.to_string())));
            }
            // Neighbouring floats around v; the nearest (DuckDB's reading) is one of them.
            let (down, up) = if f64::from(narrowed) < v {
                (narrowed, narrowed.next_up())
            } else {
                (narrowed.next_down(), narrowed)
            };
            // Infinities are floats too: `x > 1e300` on a float column is `x >= Infinity`.
            Some(Place::Between {
                floor: Some(float_literal(down)),
                ceil: Some(float_literal(up)),
            })
        }
    }
}

/// A float as a literal: a number, or the quoted infinity a number beyond the float range
/// narrows to.
fn float_literal(v: f32) -> Literal {
    match v {
        f32::INFINITY => Literal::String("Infinity".into()),
        f32::NEG_INFINITY => Literal::String("-Infinity".into()),
        v => Literal::Number(format!("{:?}", f64::from(v))),
    }
}

fn cmp(column: &ColumnRef, op: CmpOp, literal: Literal) -> Nnf {
    Nnf::Leaf(Leaf::Cmp {
        column: column.clone(),
        op,
        literal,
    })
}

fn not_null(column: &ColumnRef) -> Nnf {
    Nnf::Leaf(Leaf::IsNull {
        column: column.clone(),
        negated: true,
    })
}

/// The rewrite of one leaf and whether engines disagree on it; `None` when it needs none.
fn retype_leaf(leaf: &Leaf, info: &ColumnInfo) -> Option<(Nnf, bool)> {
    let domain = domain(info)?;
    let float = matches!(domain, Domain::Float);
    match leaf {
        Leaf::Cmp {
            column,
            op,
            literal,
        } => match place(literal, &domain)? {
            Place::Member(l) if &l == literal => None,
            Place::Member(l) => Some((cmp(column, *op, l), false)),
            Place::Between { floor, ceil } => {
                // DuckDB reads a float column against the nearest float to the literal.
                let nearest = || {
                    let v: f64 = numeric_text(literal)?.parse().ok()?;
                    Some(float_literal(v as f32))
                };
                let bound = |l: Option<Literal>, op: CmpOp, beyond: bool| match l {
                    Some(l) => cmp(column, op, l),
                    None if beyond => not_null(column),
                    None => Nnf::Const(false),
                };
                let rewritten = match op {
                    // No row equals a value between members; DuckDB's nearest float may.
                    CmpOp::Eq if float => {
                        nearest().map_or(Nnf::Const(false), |l| cmp(column, CmpOp::Eq, l))
                    }
                    CmpOp::Eq => Nnf::Const(false),
                    CmpOp::NotEq => not_null(column),
                    // Strictly above (or at least) a non-member: at least its ceiling; with
                    // no ceiling (beyond the range) nothing is; with no floor, everything.
                    // DuckDB's `x >= nearest` / `x <= nearest` admits the nearest float too,
                    // which may lie on the far side of the literal: the union takes it.
                    CmpOp::GtEq if float => {
                        nearest().map_or(Nnf::Const(false), |l| cmp(column, CmpOp::GtEq, l))
                    }
                    CmpOp::LtEq if float => {
                        nearest().map_or(Nnf::Const(false), |l| cmp(column, CmpOp::LtEq, l))
                    }
                    CmpOp::Gt | CmpOp::GtEq => match (&floor, ceil) {
                        (None, Some(_)) => not_null(column),
                        (_, ceil) => bound(ceil, CmpOp::GtEq, false),
                    },
                    CmpOp::Lt | CmpOp::LtEq => match (floor, &ceil) {
                        (Some(f), _) => cmp(column, CmpOp::LtEq, f),
                        (None, _) => Nnf::Const(false),
                    },
                };
                Some((rewritten, float))
            }
        },
        Leaf::In {
            column,
            list,
            negated,
        } => {
            // An item that is no number (`'NaN'` on a float column) stays as written.
            let placed: Vec<(Place, &Literal)> = list
                .iter()
                .map(|l| {
                    (
                        place(l, &domain).unwrap_or_else(|| Place::Member(l.clone())),
                        l,
                    )
                })
                .collect();
            if placed
                .iter()
                .all(|(p, l)| matches!(p, Place::Member(m) if m == *l))
            {
                return None;
            }
            let mut members: Vec<Literal> = Vec::new();
            let mut disagree = false;
            for (p, l) in placed {
                match p {
                    Place::Member(m) => members.push(m),
                    Place::Between { .. } if float => {
                        // DuckDB's nearest float (the union keeps it in an IN list; a NOT IN
                        // list then cannot exclude it).
                        disagree = true;
                        if !negated {
                            let v: f64 = numeric_text(l)?.parse().ok()?;
                            members.push(float_literal(v as f32));
                        }
                    }
                    Place::Between { .. } => {}
                }
            }
            members.dedup();
            let rewritten = match (members.len(), negated) {
                (0, false) => Nnf::Const(false),
                (0, true) => not_null(column),
                (1, false) => cmp(column, CmpOp::Eq, members.remove(0)),
                (1, true) => cmp(column, CmpOp::NotEq, members.remove(0)),
                (_, negated) => Nnf::Leaf(Leaf::In {
                    column: column.clone(),
                    list: members,
                    negated: *negated,
                }),
            };
            Some((rewritten, disagree))
        }
        Leaf::IsNull { .. } | Leaf::Bool { .. } | Leaf::Like { .. } | Leaf::Unsupported { .. } => {
            None
        }
    }
}
