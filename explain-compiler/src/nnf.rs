//! The normalized predicate: negation-free at every junction (NOT lives only inside leaves),
//! flattened, constant-folded. The type is the precondition: an [`Nnf`] cannot hold a NOT over
//! a junction, so every interpreter downstream may rely on monotonicity.
//!
//! **Monotonicity.** With NOT only at the leaves, AND and OR are monotone in the truth order
//! FALSE < NULL < TRUE. Two consequences carry most soundness arguments of this crate:
//! - Replacing a leaf by TRUE weakens the predicate: it can only admit more rows, so it can only
//!   keep more files. This is how unsupported fragments are stripped.
//! - Replacing a NULL leaf by FALSE leaves the set of rows where the predicate is TRUE
//!   unchanged (Kleene logic: a TRUE result with a NULL input is TRUE for every value of that
//!   input). This is why a comparison with a NULL literal folds to FALSE.

use std::fmt;

use crate::ast::{CmpOp, ColumnRef, Literal, write_child, write_in_list, write_like};

/// A normalized predicate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Nnf {
    /// TRUE or FALSE (a NULL constant has been folded to FALSE, see the module docs).
    Const(bool),
    /// At least two items, none of them an `And` or a `Const`.
    And(Vec<Nnf>),
    /// At least two items, none of them an `Or` or a `Const`.
    Or(Vec<Nnf>),
    Leaf(Leaf),
}

/// TRUE: the predicate that keeps every file (a scan with no predicate).
impl Default for Nnf {
    fn default() -> Self {
        Nnf::Const(true)
    }
}

/// A leaf of the normalized predicate. Columns carry the schema's spelling.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Leaf {
    /// `column op literal`; the literal is never NULL.
    Cmp {
        column: ColumnRef,
        op: CmpOp,
        literal: Literal,
    },
    IsNull {
        column: ColumnRef,
        negated: bool,
    },
    /// `column [NOT] IN (...)` with at least two non-NULL literals.
    In {
        column: ColumnRef,
        list: Vec<Literal>,
        negated: bool,
    },
    /// A LIKE no range can express (inner wildcards, `_`, or a non-string column).
    Like {
        column: ColumnRef,
        pattern: String,
        escape: Option<char>,
        negated: bool,
    },
    /// A boolean column compared with a constant: `flag` is `flag = TRUE`, `NOT flag` is
    /// `flag = FALSE` (both NULL when the column is NULL, so the rewrite is exact).
    Bool {
        column: ColumnRef,
        value: bool,
    },
    /// An expression outside the pruning language, possibly under a NOT.
    Unsupported {
        sql: String,
        columns: Vec<ColumnRef>,
        negated: bool,
    },
}

impl Leaf {
    pub fn column(&self) -> Option<&ColumnRef> {
        match self {
            Leaf::Cmp { column, .. }
            | Leaf::IsNull { column, .. }
            | Leaf::In { column, .. }
            | Leaf::Like { column, .. }
            | Leaf::Bool { column, .. } => Some(column),
            Leaf::Unsupported { .. } => None,
        }
    }

    /// The columns the leaf references.
    pub fn columns(&self) -> Vec<ColumnRef> {
        match self {
            Leaf::Unsupported { columns, .. } => columns.clone(),
            other => other.column().into_iter().cloned().collect(),
        }
    }
}

impl Nnf {
    /// Builds an AND of `items`, flattening nested ANDs and folding constants
    /// (`x AND TRUE = x`, `x AND FALSE = FALSE`), dropping duplicates (`x AND x = x`).
    pub fn and(items: impl IntoIterator<Item = Nnf>) -> Nnf {
        Self::junction(items, true)
    }

    /// Builds an OR of `items`: the dual of [`Nnf::and`]. An OR of nothing is FALSE; it is
    /// only ever built from real branches that all folded to FALSE (pitfall 16).
    pub fn or(items: impl IntoIterator<Item = Nnf>) -> Nnf {
        Self::junction(items, false)
    }

    /// AND (`is_and`) or OR of `items`. The identity (TRUE for AND, FALSE for OR) is dropped,
    /// the absorbing constant decides the whole junction, a nested junction of the same kind
    /// is flattened, a repeated item kept once; no item left is the identity itself.
    fn junction(items: impl IntoIterator<Item = Nnf>, is_and: bool) -> Nnf {
        use std::hash::{BuildHasher, RandomState};
        let mut out: Vec<Nnf> = Vec::new();
        // Items kept so far by hash, so a junction of thousands of items is built in linear
        // time (a conjunction taken from a generated query can have thousands of conjuncts).
        let hasher = RandomState::new();
        let mut seen: std::collections::HashMap<u64, Vec<usize>> = Default::default();
        let mut push = |item: Nnf, out: &mut Vec<Nnf>| {
            let same_hash = seen.entry(hasher.hash_one(&item)).or_default();
            if !same_hash.iter().any(|&i| out[i] == item) {
                same_hash.push(out.len());
                out.push(item);
            }
        };
        for item in items {
            match item {
                Nnf::Const(b) if b == is_and => {}
                Nnf::Const(b) => return Nnf::Const(b),
                Nnf::And(inner) if is_and => inner.into_iter().for_each(|i| push(i, &mut out)),
                Nnf::Or(inner) if !is_and => inner.into_iter().for_each(|i| push(i, &mut out)),
                other => push(other, &mut out),
            }
        }
        match out.len() {
            0 => Nnf::Const(is_and),
            1 => out.pop().unwrap_or(Nnf::Const(is_and)),
            _ if is_and => Nnf::And(out),
            _ => Nnf::Or(out),
        }
    }

    /// The top-level conjuncts (a non-AND is its own single conjunct; TRUE has none).
    pub fn conjuncts(&self) -> Vec<&Nnf> {
        match self {
            Nnf::And(items) => items.iter().collect(),
            Nnf::Const(true) => Vec::new(),
            other => vec![other],
        }
    }

    /// Visits every leaf.
    pub fn leaves(&self) -> Vec<&Leaf> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves<'a>(&'a self, out: &mut Vec<&'a Leaf>) {
        match self {
            Nnf::Const(_) => {}
            Nnf::And(items) | Nnf::Or(items) => items.iter().for_each(|i| i.collect_leaves(out)),
            Nnf::Leaf(l) => out.push(l),
        }
    }

    /// Every column referenced, without duplicates.
    pub fn columns(&self) -> Vec<ColumnRef> {
        let mut out: Vec<ColumnRef> = Vec::new();
        let mut seen: std::collections::HashSet<ColumnRef> = Default::default();
        for leaf in self.leaves() {
            for c in leaf.columns() {
                if seen.insert(c.clone()) {
                    out.push(c);
                }
            }
        }
        out
    }

    /// Replaces every leaf for which `keep` is false by TRUE and re-folds. By monotonicity
    /// (module docs) the result is implied by `self`: it keeps every file `self` keeps.
    /// Returns the weakened predicate and the leaves that were replaced.
    pub fn weaken(&self, keep: &dyn Fn(&Leaf) -> bool) -> (Nnf, Vec<Leaf>) {
        let mut stripped = Vec::new();
        let out = self.weaken_into(keep, &mut stripped);
        (out, stripped)
    }

    fn weaken_into(&self, keep: &dyn Fn(&Leaf) -> bool, stripped: &mut Vec<Leaf>) -> Nnf {
        match self {
            Nnf::Const(b) => Nnf::Const(*b),
            Nnf::And(items) => Nnf::and(
                items
                    .iter()
                    .map(|i| i.weaken_into(keep, stripped))
                    .collect::<Vec<_>>(),
            ),
            Nnf::Or(items) => Nnf::or(
                items
                    .iter()
                    .map(|i| i.weaken_into(keep, stripped))
                    .collect::<Vec<_>>(),
            ),
            Nnf::Leaf(l) if keep(l) => Nnf::Leaf(l.clone()),
            Nnf::Leaf(l) => {
                stripped.push(l.clone());
                Nnf::Const(true)
            }
        }
    }

    /// Replaces every leaf by `f(leaf)`. Sound for pruning when each replacement admits every
    /// row its leaf admits (monotonicity: the result then admits every row the original does).
    pub fn map_leaves(&self, f: &mut dyn FnMut(&Leaf) -> Nnf) -> Nnf {
        match self {
            Nnf::Const(b) => Nnf::Const(*b),
            Nnf::And(items) => Nnf::and(items.iter().map(|i| i.map_leaves(f)).collect::<Vec<_>>()),
            Nnf::Or(items) => Nnf::or(items.iter().map(|i| i.map_leaves(f)).collect::<Vec<_>>()),
            Nnf::Leaf(l) => f(l),
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            Nnf::Or(_) => 1,
            Nnf::And(_) => 2,
            Nnf::Leaf(Leaf::Unsupported { negated: true, .. }) => 3,
            _ => 4,
        }
    }
}

impl fmt::Display for Leaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Leaf::Cmp {
                column,
                op,
                literal,
            } => write!(f, "{column} {} {literal}", op.sql()),
            Leaf::IsNull { column, negated } => {
                write!(f, "{column} IS {}NULL", if *negated { "NOT " } else { "" })
            }
            Leaf::In {
                column,
                list,
                negated,
            } => write_in_list(f, column, list, *negated),
            Leaf::Like {
                column,
                pattern,
                escape,
                negated,
            } => write_like(f, column, pattern, *escape, *negated),
            Leaf::Bool {
                column,
                value: true,
            } => write!(f, "{column}"),
            Leaf::Bool {
                column,
                value: false,
            } => write!(f, "NOT {column}"),
            Leaf::Unsupported {
                sql,
                negated: false,
                ..
            } => f.write_str(sql),
            Leaf::Unsupported {
                sql, negated: true, ..
            } => write!(f, "NOT ({sql})"),
        }
    }
}

impl fmt::Display for Nnf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Nnf::Const(true) => f.write_str("TRUE"),
            Nnf::Const(false) => f.write_str("FALSE"),
            Nnf::And(items) | Nnf::Or(items) => {
                let sep = if matches!(self, Nnf::And(_)) {
                    " AND "
                } else {
                    " OR "
                };
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(sep)?;
                    }
                    write_child(f, item, item.precedence(), self.precedence())?;
                }
                Ok(())
            }
            Nnf::Leaf(l) => l.fmt(f),
        }
    }
}
