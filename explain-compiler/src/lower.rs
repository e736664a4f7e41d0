//! Lowering: normalized predicate -> delta_kernel predicate, literals coerced to the column
//! types of the table schema.
//!
//! Only leaves the kernel can evaluate are lowered ([`kernel_can_evaluate`]); the caller
//! weakens the rest to TRUE first (see [`Nnf::weaken`]), so the lowered predicate always keeps
//! a superset of the files the full predicate would keep.

use std::sync::Arc;

use delta_kernel::expressions::{ColumnName, Expression, Predicate as KernelPredicate};

use crate::ast::{CmpOp, ColumnRef};
use crate::coerce::coerce;
use crate::error::ExplainError;
use crate::nnf::{Leaf, Nnf};
use crate::schema::TableColumns;

/// The longest IN list expanded into an OR of equalities (delta_kernel's data skipping does not
/// prune IN itself, pitfall 15). DataFusion uses the same cap. A longer list is left to the
/// partition evaluator on partition columns and keeps every file on data columns.
pub const MAX_IN_LIST_EXPANSION: usize = 20;

/// Whether the kernel can evaluate this leaf for pruning.
pub fn kernel_can_evaluate(leaf: &Leaf) -> bool {
    match leaf {
        Leaf::Cmp { .. } | Leaf::IsNull { .. } | Leaf::Bool { .. } => true,
        Leaf::In { list, .. } => list.len() <= MAX_IN_LIST_EXPANSION,
        Leaf::Like { .. } | Leaf::Unsupported { .. } => false,
    }
}

/// Checks that every literal of `pred` coerces to its column's type, so a bad literal is a
/// usage error even where no kernel scan would evaluate it.
pub fn check_literals(pred: &Nnf, columns: &TableColumns) -> Result<(), ExplainError> {
    for leaf in pred.leaves() {
        match leaf {
            Leaf::Cmp {
                column, literal, ..
            } => {
                coerce(literal, &columns.resolve(column)?)?;
            }
            Leaf::In { column, list, .. } => {
                let info = columns.resolve(column)?;
                for l in list {
                    coerce(l, &info)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Lowers a predicate every leaf of which satisfies [`kernel_can_evaluate`]. `None` for TRUE
/// (no predicate: the scan keeps everything).
pub fn to_kernel(
    pred: &Nnf,
    columns: &TableColumns,
) -> Result<Option<Arc<KernelPredicate>>, ExplainError> {
    Ok(match pred {
        Nnf::Const(true) => None,
        other => Some(Arc::new(lower(other, columns)?)),
    })
}

fn lower(pred: &Nnf, columns: &TableColumns) -> Result<KernelPredicate, ExplainError> {
    Ok(match pred {
        Nnf::Const(b) => KernelPredicate::literal(*b),
        Nnf::And(items) => KernelPredicate::and_from(
            items
                .iter()
                .map(|i| lower(i, columns))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Nnf::Or(items) => KernelPredicate::or_from(
            items
                .iter()
                .map(|i| lower(i, columns))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Nnf::Leaf(leaf) => lower_leaf(leaf, columns)?,
    })
}

fn column_expr(column: &ColumnRef) -> Expression {
    Expression::Column(ColumnName::new(column.path.iter().cloned()))
}

fn lower_leaf(leaf: &Leaf, columns: &TableColumns) -> Result<KernelPredicate, ExplainError> {
    let cmp = |column: &ColumnRef, op: CmpOp, value: Expression| -> KernelPredicate {
        let col = column_expr(column);
        match op {
            CmpOp::Eq => KernelPredicate::eq(col, value),
            CmpOp::NotEq => KernelPredicate::ne(col, value),
            CmpOp::Lt => KernelPredicate::lt(col, value),
            CmpOp::LtEq => KernelPredicate::le(col, value),
            CmpOp::Gt => KernelPredicate::gt(col, value),
            CmpOp::GtEq => KernelPredicate::ge(col, value),
        }
    };
    Ok(match leaf {
        Leaf::Cmp {
            column,
            op,
            literal,
        } => {
            let info = columns.resolve(column)?;
            cmp(column, *op, Expression::literal(coerce(literal, &info)?))
        }
        Leaf::IsNull {
            column,
            negated: false,
        } => KernelPredicate::is_null(column_expr(column)),
        Leaf::IsNull {
            column,
            negated: true,
        } => KernelPredicate::is_not_null(column_expr(column)),
        Leaf::Bool { column, value } => cmp(
            column,
            CmpOp::Eq,
            Expression::literal(delta_kernel::expressions::Scalar::Boolean(*value)),
        ),
        Leaf::In {
            column,
            list,
            negated,
        } => {
            // x IN (a, b) = x = a OR x = b; x NOT IN (a, b) = x != a AND x != b (exact in
            // three-valued logic: the list holds no NULL after normalization).
            let info = columns.resolve(column)?;
            let op = if *negated { CmpOp::NotEq } else { CmpOp::Eq };
            let items = list
                .iter()
                .map(|l| Ok(cmp(column, op, Expression::literal(coerce(l, &info)?))))
                .collect::<Result<Vec<_>, ExplainError>>()?;
            if *negated {
                KernelPredicate::and_from(items)
            } else {
                KernelPredicate::or_from(items)
            }
        }
        Leaf::Like { .. } | Leaf::Unsupported { .. } => {
            return Err(ExplainError::InvalidPredicate(format!(
                "internal: `{leaf}` reached kernel lowering; it should have been weakened"
            )));
        }
    })
}
