//! Normalization: owned AST -> [`Nnf`]. Every rule preserves the set of rows for which the
//! predicate is TRUE under SQL three-valued logic; none changes which files can match.
//!
//! | original | normalized | why it is exact |
//! |---|---|---|
//! | `NOT (a AND b)` | `NOT a OR NOT b` | De Morgan holds in Kleene logic |
//! | `NOT NOT a` | `a` | involution holds in Kleene logic |
//! | `NOT x < 5` | `x >= 5` | both NULL iff `x` is NULL; total order otherwise |
//! | `5 < x` | `x > 5` | commuting the operands |
//! | `x BETWEEN a AND b` | `x >= a AND x <= b` | the SQL definition of BETWEEN |
//! | `x NOT BETWEEN a AND b` | `x < a OR x > b` | De Morgan of the above |
//! | `x IN (a)` | `x = a` | one-element IN is equality |
//! | `x NOT IN (a, b)` | `x != a AND x != b` | its definition (no NULL in the list); it then factors as `!=` conjuncts do |
//! | `f NOT IN (0, a)` on a float column | `f != a` (`f IS NOT NULL` without `a`) | DataFusion's lists tell the zeros apart, so a zero excludes no zero under every engine at once |
//! | `x IN (a, NULL)` | `x = a` | `x = a OR NULL` is TRUE exactly when `x = a` is |
//! | `x NOT IN (a, NULL)` | `FALSE` | `x != a AND NULL` is never TRUE |
//! | `s LIKE 'abc'` | `s = 'abc'` | no wildcard: LIKE is equality |
//! | `s LIKE 'ab%'` | `s >= 'ab' AND s < 'ac'` | prefix range, see [`crate::like::successor`] |
//! | `s LIKE '%'` | `s IS NOT NULL` | matches every non-NULL string |
//! | `x = NULL` | `FALSE` | NULL folds to FALSE in a negation-free tree (see [`crate::nnf`]) |
//! | `(a AND b) OR (a AND c)` | `a AND (b OR c)` | distributivity holds in Kleene logic |
//! | `a OR (a AND b)` | `a` | absorption holds in Kleene logic |
//! | `a AND (a AND b OR c)` | `a AND (b OR c)` | inside an AND, a sibling is TRUE on every row the AND keeps (see [`absorb_siblings`]) |
//! | `a OR (NOT-free f(a))` | `a OR f(FALSE)` | inside an OR, a sibling matters only where `a` is not TRUE; Kleene monotonicity makes NULL and FALSE alike there |
//! | `s IS NULL` on a struct `s` | `s IS NULL AND s.a IS NULL AND s.b.c IS NULL ..` | a NULL struct has every field NULL, so each added leaf is TRUE wherever `s IS NULL` is; the struct's test stays (it is stricter) and the leaves prune by their null counts |
//!
//! No CNF or DNF expansion: the tree never grows beyond the input's size plus the BETWEEN and
//! LIKE ranges and a struct's leaves (at most [`MAX_STRUCT_NULL_LEAVES`] for each `IS NULL`).

use delta_kernel::schema::DataType;

use crate::ast::{CmpOp, ColumnRef, Literal, Operand, Predicate};
use crate::error::ExplainError;
use crate::like::{self, PatternShape};
use crate::nnf::{Leaf, Nnf};
use crate::schema::{ColumnInfo, TableColumns};

/// Normalizes a predicate against the table's columns (which resolve names and tell string
/// columns, where the LIKE rewrites apply, from the others).
pub fn normalize(pred: &Predicate, columns: &TableColumns) -> Result<Nnf, ExplainError> {
    let pushed = push_not(pred, false, columns)?;
    // Factoring first keeps a conjunct common to every branch of an OR whole (absorbing
    // first would read it TRUE in one branch and FALSE in another, leaving a mixed OR where
    // the factored spelling has a partition conjunct); factoring again takes out what the
    // absorption made common.
    Ok(factor(absorb_siblings(factor(pushed))))
}

/// Replaces, inside each item of an AND, every proper part equal to a sibling item by TRUE,
/// and inside each item of an OR, every proper part equal to a sibling by FALSE, bottom-up:
/// `a AND (a AND b OR c)` -> `a AND (b OR c)`, `a OR (b AND (a OR c))` -> `a OR (b AND c)`.
/// This is what lets a mixed OR that repeats a conjunct of its own AND split as the factored
/// form of the same predicate does, so two spellings of one predicate prune alike.
///
/// Why the rows for which the junction is TRUE stay the same (the tree is negation-free, so
/// every part is monotone in both the truth order FALSE < NULL < TRUE and Kleene's
/// information order, where NULL refines to FALSE or TRUE). A substituted sibling is always
/// strictly smaller than the item it is substituted into (only proper parts are replaced), so
/// induction on item size applies:
/// - AND: on a row where every old item is TRUE, each replaced part is TRUE, so each new item
///   equals the old one. On a row where every new item is TRUE, the smallest items had nothing
///   replaced, so they are TRUE; by induction each replaced part of a larger item is TRUE,
///   so the old item equals the new one.
/// - OR: if some old item is TRUE, take the smallest such: every sibling replaced in it is
///   smaller, so not TRUE, i.e. FALSE (unchanged) or NULL (refined to FALSE: a TRUE result
///   stays TRUE). If some new item is TRUE and no sibling replaced in it is TRUE, the old item
///   had NULL or FALSE where FALSE now stands, which is no lower in the truth order: TRUE.
fn absorb_siblings(pred: Nnf) -> Nnf {
    match pred {
        Nnf::And(items) => {
            let items: Vec<Nnf> = items.into_iter().map(absorb_siblings).collect();
            Nnf::and(replace_siblings(items, true))
        }
        Nnf::Or(items) => {
            let items: Vec<Nnf> = items.into_iter().map(absorb_siblings).collect();
            Nnf::or(replace_siblings(items, false))
        }
        other => other,
    }
}

/// Each item with its proper parts that equal another item replaced by `value`; a leaf part
/// is also replaced where a sibling leaf decides it: inside an AND, a part a sibling implies
/// (`p = 18 AND (p IN (4, 18) OR x)`), inside an OR, a part that implies a sibling
/// (`p IN (4, 18) OR (p = 18 AND x)`). The proof above holds as written with "implies" for
/// "equals": what it uses of a replaced part is that it is TRUE wherever the sibling is
/// (AND), or TRUE only where the sibling is (OR); a leaf sibling is smaller than any item
/// with a proper part.
fn replace_siblings(items: Vec<Nnf>, value: bool) -> Vec<Nnf> {
    // Only junction items have proper parts; a junction of leaves alone changes nothing.
    if items
        .iter()
        .all(|i| matches!(i, Nnf::Leaf(_) | Nnf::Const(_)))
    {
        return items;
    }
    let known: std::collections::HashSet<Nnf> = items.iter().cloned().collect();
    let mut leaves: std::collections::HashMap<ColumnRef, Vec<Leaf>> = Default::default();
    for item in &items {
        if let Nnf::Leaf(l @ (Leaf::Cmp { column, .. } | Leaf::In { column, .. })) = item {
            leaves.entry(column.clone()).or_default().push(l.clone());
        }
    }
    let siblings = Siblings {
        known,
        leaves,
        value,
    };
    items
        .into_iter()
        .map(|item| match item {
            Nnf::And(parts) => Nnf::and(parts.into_iter().map(|p| siblings.replace(p))),
            Nnf::Or(parts) => Nnf::or(parts.into_iter().map(|p| siblings.replace(p))),
            other => other,
        })
        .collect()
}

/// The items of one junction, as known inside each of them.
struct Siblings {
    known: std::collections::HashSet<Nnf>,
    /// The comparison and IN-list leaves among the items, by column.
    leaves: std::collections::HashMap<ColumnRef, Vec<Leaf>>,
    /// What a part decided by a sibling becomes: TRUE inside an AND, FALSE inside an OR.
    value: bool,
}

impl Siblings {
    /// `pred` with every part equal to an item, or decided by a leaf item, replaced.
    fn replace(&self, pred: Nnf) -> Nnf {
        if self.known.contains(&pred) || self.decides(&pred) {
            return Nnf::Const(self.value);
        }
        match pred {
            Nnf::And(parts) => Nnf::and(parts.into_iter().map(|p| self.replace(p))),
            Nnf::Or(parts) => Nnf::or(parts.into_iter().map(|p| self.replace(p))),
            other => other,
        }
    }

    /// Whether a leaf item decides the leaf `pred`: implies it (AND), or is implied by it (OR).
    fn decides(&self, pred: &Nnf) -> bool {
        let Nnf::Leaf(part) = pred else {
            return false;
        };
        let Some(same_column) = part.column().and_then(|c| self.leaves.get(c)) else {
            return false;
        };
        same_column.iter().any(|sibling| {
            if self.value {
                leaf_implies(sibling, part)
            } else {
                leaf_implies(part, sibling)
            }
        })
    }
}

/// Whether `a` TRUE on a row makes `b` TRUE there, read from the literals as written (two
/// spellings of one value are not matched, which only leaves a part in place): an equality
/// implies an IN list holding its literal, an IN list a list holding every value of its own.
fn leaf_implies(a: &Leaf, b: &Leaf) -> bool {
    if a == b {
        return true;
    }
    let Leaf::In {
        column: b_column,
        list: b_list,
        negated: false,
    } = b
    else {
        return false;
    };
    match a {
        Leaf::Cmp {
            column,
            op: CmpOp::Eq,
            literal,
        } => column == b_column && b_list.contains(literal),
        Leaf::In {
            column,
            list,
            negated: false,
        } => column == b_column && list.iter().all(|v| b_list.contains(v)),
        // Anything else implies an IN list only by being it (checked above): a `!=`, a range,
        // a negated list, a NULL test, a LIKE, a boolean or an unsupported leaf can hold on a
        // row whose value is outside the list.
        Leaf::Cmp { .. }
        | Leaf::In { .. }
        | Leaf::IsNull { .. }
        | Leaf::Like { .. }
        | Leaf::Bool { .. }
        | Leaf::Unsupported { .. } => false,
    }
}

/// Pushes negation to the leaves: `negated` says whether an odd number of NOTs encloses
/// `pred`. Junctions are rebuilt through [`Nnf::and`] / [`Nnf::or`], which flatten and fold.
fn push_not(pred: &Predicate, negated: bool, columns: &TableColumns) -> Result<Nnf, ExplainError> {
    if let Some(readings) = column_readings(pred, columns)? {
        return Ok(match readings {
            // Spark compares by the collation, the statistics are binary: no bound holds.
            ColumnReadings::Collated => unsupported(pred, negated, columns)?,
            // Spark pads the literal to the CHAR length, DuckDB and DataFusion compare it as
            // written with the padded values: the rows of either reading.
            ColumnReadings::Padded(padded) => Nnf::or([
                push_not_as_written(pred, negated, columns)?,
                push_not(&padded, negated, columns)?,
            ]),
        });
    }
    push_not_as_written(pred, negated, columns)
}

/// How a string column's own semantics change a comparison with a literal.
enum ColumnReadings {
    /// The column has a collation other than binary.
    Collated,
    /// The column is `CHAR(n)` and a literal is shorter: the predicate with it padded.
    Padded(Predicate),
}

fn column_readings(
    pred: &Predicate,
    columns: &TableColumns,
) -> Result<Option<ColumnReadings>, ExplainError> {
    let column = match pred {
        Predicate::Compare {
            left: Operand::Column(c),
            right: Operand::Literal(_),
            ..
        }
        | Predicate::Compare {
            left: Operand::Literal(_),
            right: Operand::Column(c),
            ..
        }
        | Predicate::InList { column: c, .. }
        | Predicate::QuotedInList { column: c, .. }
        | Predicate::Between { column: c, .. }
        | Predicate::Like { column: c, .. } => c,
        Predicate::Compare { .. }
        | Predicate::And(_)
        | Predicate::Or(_)
        | Predicate::Not(_)
        | Predicate::IsNull { .. }
        | Predicate::BoolColumn(_)
        | Predicate::Constant(_)
        | Predicate::Unsupported { .. } => return Ok(None),
    };
    let info = columns.resolve(column)?;
    if !info.is_string() {
        return Ok(None);
    }
    if info.collation.is_some() {
        return Ok(Some(ColumnReadings::Collated));
    }
    let Some(n) = info.char_length else {
        return Ok(None);
    };
    let pad = |l: &Literal| match l {
        Literal::String(s) if s.chars().count() < n => {
            Literal::String(format!("{s}{}", " ".repeat(n - s.chars().count())))
        }
        other => other.clone(),
    };
    let padded = match pred {
        Predicate::Compare { left, op, right } => {
            let side = |o: &Operand| match o {
                Operand::Literal(l) => Operand::Literal(pad(l)),
                other @ (Operand::Column(_) | Operand::QuotedName(_)) => other.clone(),
            };
            Predicate::Compare {
                left: side(left),
                op: *op,
                right: side(right),
            }
        }
        Predicate::InList {
            column,
            list,
            negated,
        } => Predicate::InList {
            column: column.clone(),
            list: list.iter().map(pad).collect(),
            negated: *negated,
        },
        Predicate::Between {
            column,
            low,
            high,
            negated,
        } => Predicate::Between {
            column: column.clone(),
            low: pad(low),
            high: pad(high),
            negated: *negated,
        },
        // Read as the IN list of Spark's strings once settled (push_not_as_written), padded
        // there. A pattern is matched against the padded value by every engine; the other
        // shapes hold no literal of the column.
        Predicate::QuotedInList { .. }
        | Predicate::Like { .. }
        | Predicate::IsNull { .. }
        | Predicate::BoolColumn(_)
        | Predicate::Constant(_)
        | Predicate::Unsupported { .. }
        | Predicate::And(_)
        | Predicate::Or(_)
        | Predicate::Not(_) => return Ok(None),
    };
    Ok((padded != *pred).then_some(ColumnReadings::Padded(padded)))
}

fn push_not_as_written(
    pred: &Predicate,
    negated: bool,
    columns: &TableColumns,
) -> Result<Nnf, ExplainError> {
    let resolve = |c: &ColumnRef| columns.resolve(c).map(|info| info.column);
    Ok(match pred {
        Predicate::And(items) | Predicate::Or(items) => {
            let parts = items
                .iter()
                .map(|p| push_not(p, negated, columns))
                .collect::<Result<Vec<_>, _>>()?;
            // NOT (a AND b) = NOT a OR NOT b, and dually.
            let is_and = matches!(pred, Predicate::And(_)) != negated;
            if is_and {
                Nnf::and(parts)
            } else {
                Nnf::or(parts)
            }
        }
        Predicate::Not(inner) => push_not(inner, !negated, columns)?,
        Predicate::Compare { left, op, right } => {
            compare_as_written(pred, left, *op, right, negated, columns)?
        }
        Predicate::QuotedInList {
            column,
            list,
            negated: n,
        } => quoted_in_list_as_written(pred, column, list, *n, negated, columns)?,
        Predicate::IsNull { column, negated: n } => {
            is_null_as_written(pred, column, *n, negated, columns)?
        }
        Predicate::InList {
            column,
            list,
            negated: n,
        } => in_list_as_written(column, list, *n, negated, columns)?,
        Predicate::Between {
            column,
            low,
            high,
            negated: n,
        } => {
            let column = resolve(column)?;
            if *n != negated {
                Nnf::or([
                    compare(column.clone(), CmpOp::Lt, low),
                    compare(column, CmpOp::Gt, high),
                ])
            } else {
                Nnf::and([
                    compare(column.clone(), CmpOp::GtEq, low),
                    compare(column, CmpOp::LtEq, high),
                ])
            }
        }
        Predicate::Like {
            column,
            pattern,
            escape,
            negated: n,
        } => like_as_written(column, pattern, *escape, *n, negated, columns)?,
        Predicate::BoolColumn(column) => bool_column_as_written(column, negated, columns)?,
        Predicate::Constant(Literal::Boolean(b)) => Nnf::Const(*b != negated),
        // NOT NULL is NULL: either way the constant folds to FALSE (module docs of nnf).
        Predicate::Constant(_) => Nnf::Const(false),
        Predicate::Unsupported { .. } => unsupported(pred, negated, columns)?,
    })
}

/// A comparison as written, negated when `negated`.
fn compare_as_written(
    pred: &Predicate,
    left: &Operand,
    op: CmpOp,
    right: &Operand,
    negated: bool,
    columns: &TableColumns,
) -> Result<Nnf, ExplainError> {
    Ok({
        let op = if negated { op.negated() } else { op };
        match (left, right) {
            (Operand::Column(c), Operand::Literal(l)) => compare(columns.resolve(c)?.column, op, l),
            (Operand::Literal(l), Operand::Column(c)) => {
                compare(columns.resolve(c)?.column, op.commuted(), l)
            }
            (Operand::Literal(a), Operand::Literal(b)) => match fold_literals(a, op, b)? {
                Some(value) => Nnf::Const(value),
                // Engines may decide it either way: kept, as a fragment that prunes nothing.
                None => unsupported(pred, negated, columns)?,
            },
            (Operand::Column(_), Operand::Column(_)) => {
                // The converter never builds this (column-vs-column is unsupported); keep
                // it unsupported rather than assume.
                unsupported(pred, negated, columns)?
            }
            // A double-quoted name is a column in DuckDB and DataFusion and a string in
            // Spark: the rows of either reading (a name no column has: Spark's alone, the
            // others refuse the query).
            (Operand::QuotedName(_), _) | (_, Operand::QuotedName(_)) => {
                let as_string = |o: &Operand| match o {
                    Operand::QuotedName(name) => Operand::Literal(Literal::String(name.clone())),
                    other @ (Operand::Column(_) | Operand::Literal(_)) => other.clone(),
                };
                let as_column = |o: &Operand| match o {
                    Operand::QuotedName(name) => Operand::Column(ColumnRef::new([name.clone()])),
                    other @ (Operand::Column(_) | Operand::Literal(_)) => other.clone(),
                };
                let names_a_column = [left, right].into_iter().any(|o| {
                    matches!(o, Operand::QuotedName(name)
                        if columns.resolve(&ColumnRef::new([name.clone()])).is_ok())
                });
                // `op` is already negated.
                let reading = |left: Operand, right: Operand| {
                    push_not_as_written(&Predicate::Compare { left, op, right }, false, columns)
                };
                let spark = reading(as_string(left), as_string(right));
                if !names_a_column {
                    spark?
                } else {
                    // A name compared as a string with a number, date or boolean: Spark
                    // casts it, to NULL unless it spells a value (matching no row).
                    let spark = match spark {
                        Ok(nnf) => nnf,
                        Err(_)
                            if [left, right].into_iter().all(
                                |o| !matches!(o, Operand::QuotedName(n) if crate::mistyped::spark_may_cast(n)),
                            ) =>
                        {
                            Nnf::Const(false)
                        }
                        Err(_) => unsupported(pred, negated, columns)?,
                    };
                    Nnf::or(vec![reading(as_column(left), as_column(right))?, spark])
                }
            }
        }
    })
}

/// An IN list holding double-quoted names.
fn quoted_in_list_as_written(
    pred: &Predicate,
    column: &ColumnRef,
    list: &[Operand],
    n: bool,
    negated: bool,
    columns: &TableColumns,
) -> Result<Nnf, ExplainError> {
    Ok({
        // Spark's reading: every double-quoted item a string. Naming a column, an item is
        // that column in DuckDB and DataFusion, a comparison of two columns no statistics
        // bound: the leaf is kept.
        let names_a_column = list.iter().any(|o| {
            matches!(o, Operand::QuotedName(name)
                if columns.resolve(&ColumnRef::new([name.clone()])).is_ok())
        });
        match crate::ast::spark_strings(list) {
            Some(list) if !names_a_column && !list.is_empty() => push_not(
                &Predicate::InList {
                    column: column.clone(),
                    list,
                    negated: n,
                },
                negated,
                columns,
            )?,
            Some(_) | None => unsupported(pred, negated, columns)?,
        }
    })
}

/// `IS [NOT] NULL`.
fn is_null_as_written(
    pred: &Predicate,
    column: &ColumnRef,
    n: bool,
    negated: bool,
    columns: &TableColumns,
) -> Result<Nnf, ExplainError> {
    Ok({
        let info = columns.resolve(column)?;
        if info.primitive().is_none() {
            // The kernel keeps no statistics it can test for a map, array or struct
            // value: keep the leaf, as unsupported. A NULL struct has every field NULL,
            // so `s IS NULL` equals itself AND each of its primitive leaves IS NULL: the
            // leaves' null counts prune where the struct's test cannot (`s IS NOT NULL`
            // implies nothing of its leaves: a struct of NULL fields is not NULL).
            let leaf = unsupported(pred, negated, columns)?;
            if n != negated {
                return Ok(leaf);
            }
            return Ok(Nnf::and(
                std::iter::once(leaf).chain(struct_leaves_null(&info)),
            ));
        }
        Nnf::Leaf(Leaf::IsNull {
            column: info.column,
            negated: n != negated,
        })
    })
}

/// An IN list of literals.
fn in_list_as_written(
    column: &ColumnRef,
    list: &[Literal],
    n: bool,
    negated: bool,
    columns: &TableColumns,
) -> Result<Nnf, ExplainError> {
    Ok({
        let info = columns.resolve(column)?;
        let float = info.is_float();
        // A NOT IN list holding a string on a column of another type: only the items
        // every reading leaves rows out for (string_lists.rs).
        let kept;
        let list = match crate::string_lists::not_in_items(&info, list) {
            Some(items) if n != negated => {
                if items.is_empty() {
                    return Ok(Nnf::Leaf(Leaf::IsNull {
                        column: info.column,
                        negated: true,
                    }));
                }
                kept = items;
                &kept
            }
            Some(_) | None => list,
        };
        // Each engine's reading of the list's strings (string_readings.rs), any of them.
        let spark: Vec<Literal> = list
            .iter()
            .map(|l| {
                crate::string_readings::literal_readings(l)
                    .pop()
                    .unwrap_or_else(|| l.clone())
            })
            .collect();
        if spark == *list {
            in_list(info.column, float, list, n != negated)
        } else {
            Nnf::or([
                in_list(info.column.clone(), float, list, n != negated),
                in_list(info.column, float, &spark, n != negated),
            ])
        }
    })
}

/// `[NOT] LIKE`, in each engine's reading of the pattern.
fn like_as_written(
    column: &ColumnRef,
    pattern: &str,
    escape: Option<char>,
    n: bool,
    negated: bool,
    columns: &TableColumns,
) -> Result<Nnf, ExplainError> {
    Ok({
        let info = columns.resolve(column)?;
        let is_string = info.is_string();
        // Each engine's reading of the pattern (string_readings.rs); one an engine refuses
        // (it ends with its escape) matches nothing there. Refused by every engine: bad
        // input.
        let mut readings = Vec::new();
        let mut refusal = None;
        for (p, e) in crate::string_readings::like_readings(pattern, escape) {
            match like_leaf(info.column.clone(), is_string, &p, e, n != negated) {
                Ok(leaf) => readings.push(leaf),
                Err(err) => refusal = Some(err),
            }
        }
        match (readings.is_empty(), refusal) {
            (true, Some(err)) => return Err(err),
            _ => Nnf::or(readings),
        }
    })
}

/// A column standing alone as a condition.
fn bool_column_as_written(
    column: &ColumnRef,
    negated: bool,
    columns: &TableColumns,
) -> Result<Nnf, ExplainError> {
    Ok({
        let info = columns.resolve(column)?;
        if info
            .primitive()
            .is_some_and(|p| !matches!(p, delta_kernel::schema::PrimitiveType::Boolean))
        {
            // A value, not a condition: Spark (FILTER_NOT_BOOLEAN, ANSI on and off) and
            // DataFusion refuse it; DuckDB alone casts it (a number: not zero). Bad input,
            // with the comparison DuckDB reads.
            return Err(ExplainError::InvalidPredicate(format!(
                "column `{}` ({}) is a value, not a condition; write the comparison meant, e.g. `{} <> 0`",
                info.column, info.data_type, info.column
            )));
        }
        if info.primitive().is_none() {
            return Err(ExplainError::InvalidPredicate(format!(
                "column `{}` ({}) is not boolean and cannot stand alone as a predicate",
                info.column, info.data_type
            )));
        }
        Nnf::Leaf(Leaf::Bool {
            column: info.column,
            value: !negated,
        })
    })
}

/// The most leaves `s IS NULL` is conjoined with: writers keep statistics for the first 32
/// leaf columns by default (`delta.dataSkippingNumIndexedCols`), and any subset of the leaves
/// is implied alike.
const MAX_STRUCT_NULL_LEAVES: usize = 32;

/// `leaf IS NULL` for the primitive leaves of a struct column, in schema order, through nested
/// structs (a map or an array holds no leaf statistics), at most [`MAX_STRUCT_NULL_LEAVES`].
/// Nothing for a column that is not a struct.
fn struct_leaves_null(info: &ColumnInfo) -> Vec<Nnf> {
    fn walk(prefix: &[String], data_type: &DataType, out: &mut Vec<Vec<String>>) {
        match data_type {
            DataType::Struct(inner) => {
                for field in inner.fields() {
                    let mut path = prefix.to_vec();
                    path.push(field.name().clone());
                    walk(&path, field.data_type(), out);
                }
            }
            DataType::Primitive(_) => out.push(prefix.to_vec()),
            DataType::Array(_) | DataType::Map(_) | DataType::Variant(_) => {}
        }
    }
    let mut paths = Vec::new();
    walk(&info.column.path, &info.data_type, &mut paths);
    paths
        .into_iter()
        .take(MAX_STRUCT_NULL_LEAVES)
        .map(|path| {
            Nnf::Leaf(Leaf::IsNull {
                column: ColumnRef { path },
                negated: false,
            })
        })
        .collect()
}

fn unsupported(
    pred: &Predicate,
    negated: bool,
    columns: &TableColumns,
) -> Result<Nnf, ExplainError> {
    let resolved = pred
        .columns()
        .iter()
        .map(|c| columns.resolve(c).map(|i| i.column))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Nnf::Leaf(Leaf::Unsupported {
        sql: pred.to_string(),
        columns: resolved,
        negated,
    }))
}

/// `column op literal`; a NULL literal makes the comparison NULL, folded to FALSE.
fn compare(column: ColumnRef, op: CmpOp, literal: &Literal) -> Nnf {
    // A string the engines read differently (string_readings.rs): the rows of any reading.
    let readings = crate::string_readings::literal_readings(literal);
    if readings.len() > 1 {
        return Nnf::or(
            readings
                .iter()
                .map(|l| compare_one(column.clone(), op, l))
                .collect::<Vec<_>>(),
        );
    }
    compare_one(column, op, literal)
}

fn compare_one(column: ColumnRef, op: CmpOp, literal: &Literal) -> Nnf {
    match literal {
        Literal::Null => Nnf::Const(false),
        l => Nnf::Leaf(Leaf::Cmp {
            column,
            op,
            literal: l.clone(),
        }),
    }
}

fn in_list(column: ColumnRef, float: bool, list: &[Literal], negated: bool) -> Nnf {
    let has_null = list.contains(&Literal::Null);
    let mut values: Vec<Literal> = Vec::new();
    let mut seen: std::collections::HashSet<&Literal> = Default::default();
    for l in list.iter().filter(|l| **l != Literal::Null) {
        if seen.insert(l) {
            values.push(l.clone());
        }
    }
    if negated && has_null {
        // x NOT IN (.., NULL) = (x != ..) AND NULL: never TRUE.
        return Nnf::Const(false);
    }
    if negated && float && values.iter().any(is_zero_number) {
        // On a float column a zero in NOT IN excludes no zero: DataFusion's lists compare in
        // total order (`-0.0 NOT IN (0)` holds), Spark's and DuckDB's as `=`; the rows any of
        // them matches are kept. Without other values, every non-NULL row may match.
        values.retain(|l| !is_zero_number(l));
        if values.is_empty() {
            return Nnf::Leaf(Leaf::IsNull {
                column,
                negated: true,
            });
        }
    }
    let op = if negated { CmpOp::NotEq } else { CmpOp::Eq };
    if negated {
        // x NOT IN (a, b) = x != a AND x != b, exactly (the list holds no NULL here). Spelled
        // as its conjuncts, so it factors and absorbs as the same predicate written with `!=`
        // does (`A AND x NOT IN (a, b) OR x != b` is `x != b`).
        return Nnf::and(
            values
                .iter()
                .map(|v| compare(column.clone(), op, v))
                .collect::<Vec<_>>(),
        );
    }
    match values.len() {
        // x IN (NULL) is NULL.
        0 => Nnf::Const(false),
        1 => compare(column, op, &values[0]),
        _ => Nnf::Leaf(Leaf::In {
            column,
            list: values,
            negated,
        }),
    }
}

/// A number literal equal to zero, of either sign.
fn is_zero_number(l: &Literal) -> bool {
    matches!(l, Literal::Number(t) if crate::coerce::LongNumber::parse(t).is_some_and(|n| n.is_zero()))
}

fn like_leaf(
    column: ColumnRef,
    is_string: bool,
    pattern: &str,
    escape: Option<char>,
    negated: bool,
) -> Result<Nnf, ExplainError> {
    let tokens = like::tokenize(pattern, escape)?;
    let general = || {
        Nnf::Leaf(Leaf::Like {
            column: column.clone(),
            pattern: pattern.to_string(),
            escape,
            negated,
        })
    };
    if !is_string {
        // LIKE on a non-string column implies a cast to string whose format we do not model.
        return Ok(general());
    }
    let string = |s: &str| Literal::String(s.to_string());
    Ok(match like::shape(&tokens) {
        PatternShape::Exact(s) => {
            let op = if negated { CmpOp::NotEq } else { CmpOp::Eq };
            Nnf::Leaf(Leaf::Cmp {
                column,
                op,
                literal: string(&s),
            })
        }
        PatternShape::Prefix(p) if p.is_empty() => {
            if negated {
                // NOT (s LIKE '%') is NULL or FALSE: never TRUE.
                Nnf::Const(false)
            } else {
                Nnf::Leaf(Leaf::IsNull {
                    column,
                    negated: true,
                })
            }
        }
        PatternShape::Prefix(p) => {
            let lower = Leaf::Cmp {
                column: column.clone(),
                op: if negated { CmpOp::Lt } else { CmpOp::GtEq },
                literal: string(&p),
            };
            match like::successor(&p) {
                Some(upper) => {
                    let upper = Nnf::Leaf(Leaf::Cmp {
                        column,
                        op: if negated { CmpOp::GtEq } else { CmpOp::Lt },
                        literal: string(&upper),
                    });
                    if negated {
                        Nnf::or([Nnf::Leaf(lower), upper])
                    } else {
                        Nnf::and([Nnf::Leaf(lower), upper])
                    }
                }
                None => Nnf::Leaf(lower),
            }
        }
        PatternShape::General => general(),
    })
}

/// Folds a comparison of two literals. Only literals of one plain kind compare; anything else
/// (a number against a string, say) has engine-specific casts and is rejected. `None` where
/// the engines may decide it either way.
fn fold_literals(a: &Literal, op: CmpOp, b: &Literal) -> Result<Option<bool>, ExplainError> {
    use std::cmp::Ordering;
    let ordering: Option<Ordering> = match (a, b) {
        (Literal::Null, _) | (_, Literal::Null) => return Ok(Some(false)),
        (Literal::Number(x), Literal::Number(y))
            if crate::retype::is_double_token(a) || crate::retype::is_double_token(b) =>
        {
            // A number with an exponent is a DOUBLE (pitfall 26): both sides are compared as
            // doubles. A plain number on the other side is cast to double, which an engine
            // may round by one unit in the last place: two doubles that close are not folded.
            let (Ok(dx), Ok(dy)) = (x.parse::<f64>(), y.parse::<f64>()) else {
                return Ok(None);
            };
            // A plain number a double holds exactly is cast exactly by every engine.
            let cast_exactly = |l: &Literal, text: &str, v: f64| {
                crate::retype::is_double_token(l)
                    || crate::coerce::LongNumber::parse(text)
                        == crate::coerce::LongNumber::parse(&format!("{v:.1074}"))
            };
            let exact = cast_exactly(a, x, dx) && cast_exactly(b, y, dy);
            let close = dx == dy || dx.next_up() == dy || dy.next_up() == dx;
            if dx.is_nan() || dy.is_nan() || (close && !exact) {
                return Ok(None);
            }
            dx.partial_cmp(&dy)
        }
        (Literal::Number(x), Literal::Number(y)) => {
            // Exactly, digit by digit, whatever their length: through a double, two literals
            // that differ past 17 digits fold to a wrong FALSE, and a FALSE prunes every
            // file (pitfall 25).
            match (
                crate::coerce::LongNumber::parse(x),
                crate::coerce::LongNumber::parse(y),
            ) {
                (Some(x), Some(y)) => Some(x.cmp(&y)),
                (None, _) | (_, None) => None,
            }
        }
        (Literal::String(x), Literal::String(y)) => Some(x.cmp(y)),
        (Literal::Boolean(x), Literal::Boolean(y)) => Some(x.cmp(y)),
        // Bytes order unsigned, byte by byte, in every engine.
        (Literal::Binary(x), Literal::Binary(y)) => Some(x.cmp(y)),
        // Literals of two kinds and typed literals are not folded here (NULL is above).
        (
            Literal::Number(_)
            | Literal::String(_)
            | Literal::Boolean(_)
            | Literal::Typed { .. }
            | Literal::Binary(_),
            _,
        ) => None,
    };
    let ordering = ordering.ok_or_else(|| {
        ExplainError::InvalidPredicate(format!("cannot compare the literals {a} and {b}"))
    })?;
    Ok(Some(match op {
        CmpOp::Eq => ordering.is_eq(),
        CmpOp::NotEq => ordering.is_ne(),
        CmpOp::Lt => ordering.is_lt(),
        CmpOp::LtEq => ordering.is_le(),
        CmpOp::Gt => ordering.is_gt(),
        CmpOp::GtEq => ordering.is_ge(),
    }))
}

/// Factors conjuncts common to every branch of an OR out of it, bottom-up:
/// `(a AND b) OR (a AND c)` -> `a AND (b OR c)`; a branch made only of common conjuncts
/// absorbs the rest: `a OR (a AND b)` -> `a`.
fn factor(pred: Nnf) -> Nnf {
    match pred {
        Nnf::And(items) => Nnf::and(items.into_iter().map(factor).collect::<Vec<_>>()),
        Nnf::Or(items) => {
            let branches: Vec<Nnf> = items.into_iter().map(factor).collect();
            let conjuncts_of =
                |b: &Nnf| -> Vec<Nnf> { b.conjuncts().into_iter().cloned().collect() };
            let first = conjuncts_of(&branches[0]);
            let common: Vec<Nnf> = first
                .into_iter()
                .filter(|c| branches[1..].iter().all(|b| conjuncts_of(b).contains(c)))
                .collect();
            if common.is_empty() {
                return Nnf::or(branches);
            }
            let rests: Vec<Nnf> = branches
                .iter()
                .map(|b| {
                    Nnf::and(
                        conjuncts_of(b)
                            .into_iter()
                            .filter(|c| !common.contains(c))
                            .collect::<Vec<_>>(),
                    )
                })
                .collect();
            // A rest of TRUE makes the remaining OR TRUE (absorption).
            let remaining = factor(Nnf::or(rests));
            Nnf::and(common.into_iter().chain([remaining]).collect::<Vec<_>>())
        }
        other => other,
    }
}
