//! The partition-literal evaluator: the third interpreter of the normalized predicate. It
//! decides a predicate over one file's typed partition values, including fragments the kernel
//! cannot express (a substring LIKE, a long IN list).
//!
//! The result is the set of truth values the predicate may take for the rows of the file.
//! Partition columns are constant within a file, so a fragment over partition columns alone
//! has a single value per file; anything else (a data column, an unsupported expression, a
//! partition value that does not parse) may be any of TRUE, FALSE, NULL. Junctions combine the
//! sets value by value under Kleene logic, so the result is exact wherever it is a single
//! value, and a file can be pruned exactly when TRUE is not in the set.

use std::cmp::Ordering;
use std::fmt;

use delta_kernel::expressions::Scalar;
use delta_kernel::schema::PrimitiveType;

use crate::ast::CmpOp;
// Scalars compare as every engine compares them (the compiler's rule, shared with the guards).
use crate::coerce::coerce;
pub use crate::coerce::compare;
use crate::like;
use crate::nnf::{Leaf, Nnf};
use crate::schema::{ColumnInfo, TableColumns};

/// A set of three-valued truth values.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Truths(u8);

impl Truths {
    pub const TRUE: Truths = Truths(1);
    pub const FALSE: Truths = Truths(2);
    pub const NULL: Truths = Truths(4);
    /// NULL or FALSE: never TRUE, so the file can be pruned, though the value is not known.
    pub const NOT_TRUE: Truths = Truths(6);
    /// Could be anything: the evaluator cannot decide.
    pub const UNKNOWN: Truths = Truths(7);

    pub fn of(b: Option<bool>) -> Truths {
        match b {
            Some(true) => Truths::TRUE,
            Some(false) => Truths::FALSE,
            None => Truths::NULL,
        }
    }

    /// Whether some row of the file may satisfy the predicate: the file must be kept.
    pub fn may_be_true(self) -> bool {
        self.0 & Truths::TRUE.0 != 0
    }

    pub fn is_decided(self) -> bool {
        self.0.count_ones() == 1
    }

    fn values(self) -> impl Iterator<Item = Option<bool>> {
        [(1u8, Some(true)), (2, Some(false)), (4, None)]
            .into_iter()
            .filter(move |(bit, _)| self.0 & bit != 0)
            .map(|(_, v)| v)
    }

    fn combine(self, other: Truths, op: fn(Option<bool>, Option<bool>) -> Option<bool>) -> Truths {
        let mut out = 0u8;
        for a in self.values() {
            for b in other.values() {
                out |= Truths::of(op(a, b)).0;
            }
        }
        Truths(out)
    }
}

impl fmt::Debug for Truths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match *self {
            Truths::TRUE => "TRUE",
            Truths::FALSE => "FALSE",
            Truths::NULL => "NULL",
            _ => "UNKNOWN",
        })
    }
}

fn kleene_and(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        (None, Some(true) | None) | (Some(true), None) => None,
    }
}

fn kleene_or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        (None, Some(false) | None) | (Some(false), None) => None,
    }
}

/// Types a raw partition value. Empty strings follow delta_kernel's read path (and Spark): the
/// empty string on a string column (docs/semantics.md). `None` (undecided: the file is kept)
/// when the value does not parse as its column's type, and for an empty value on a binary
/// column, which readers read two ways: delta_kernel as the empty binary, delta-rs (which
/// writes `""` for an empty non-NULL value) as NULL.
pub fn typed_partition_value(raw: Option<&str>, column: &ColumnInfo) -> Option<Scalar> {
    let primitive = column.primitive()?;
    match raw {
        None => Some(Scalar::Null(column.data_type.clone())),
        Some("") if *primitive == PrimitiveType::String => Some(Scalar::String(String::new())),
        Some("") if *primitive == PrimitiveType::Binary => None,
        Some(text) => primitive.parse_scalar(text).ok(),
    }
}

/// Whether readers disagree on what raw partition value `raw` of a `primitive` column is, so
/// no phase may decide a leaf on it by one reading: a value delta_kernel's parser refuses (the
/// scan would fail), and an empty value on a binary column (delta_kernel: the empty binary;
/// delta-rs: NULL).
pub fn distrusted_value(raw: &str, primitive: &PrimitiveType) -> bool {
    if raw.is_empty() {
        *primitive == PrimitiveType::Binary
    } else {
        primitive.parse_scalar(raw).is_err()
    }
}

/// Where a prepared predicate reads a file's raw partition values: by partition key (the
/// physical name), `Some(None)` for a null value, `None` when the key is absent (the value is
/// then unknown, so every leaf over it is undecided).
pub trait PartitionValues {
    fn raw(&self, key: &str) -> Option<Option<&str>>;
}

/// One column bound to one value, every other column unknown: how
/// [`accepted_partition_values`](crate::accepted::accepted_partition_values) asks whether a
/// value can still satisfy the predicate.
pub struct OneValue<'a> {
    pub key: &'a str,
    pub value: Option<&'a str>,
}

impl PartitionValues for OneValue<'_> {
    fn raw(&self, key: &str) -> Option<Option<&str>> {
        (key == self.key).then_some(self.value)
    }
}

/// A predicate ready to be decided over many files' partition values: each leaf's column
/// resolved, its literals coerced to the column's type and its LIKE pattern tokenized once.
/// What stays per file is typing the file's value and comparing.
///
/// Preparing decides nothing early that depends on a file's value: a literal that does not
/// coerce (or a pattern that does not tokenize) leaves its leaf undecided for a non-null value
/// and NULL for a null one, exactly as when it is coerced per file.
pub struct PreparedPartitionPredicate {
    root: Node,
}

enum Node {
    Const(bool),
    And(Vec<Node>),
    Or(Vec<Node>),
    /// Not a partition column, not a column at all, or not resolvable: never decided here.
    Undecided,
    /// Boxed: a column's description is many times the size of the other variants.
    Leaf {
        column: Box<ColumnInfo>,
        test: Test,
    },
}

/// A leaf's test with its literals prepared; `None` where preparing failed (the leaf is then
/// undecided on a non-null value).
enum Test {
    IsNull {
        negated: bool,
    },
    Cmp {
        op: CmpOp,
        literal: Option<Scalar>,
    },
    In {
        list: Option<Vec<Scalar>>,
        negated: bool,
    },
    Like {
        tokens: Option<Vec<like::Token>>,
        negated: bool,
    },
    Bool {
        value: bool,
    },
}

impl PreparedPartitionPredicate {
    pub fn new(pred: &Nnf, columns: &TableColumns) -> Self {
        PreparedPartitionPredicate {
            root: prepare(pred, columns),
        }
    }

    pub fn evaluate(&self, values: &impl PartitionValues) -> Truths {
        evaluate_node(&self.root, values)
    }
}

fn prepare(pred: &Nnf, columns: &TableColumns) -> Node {
    match pred {
        Nnf::Const(b) => Node::Const(*b),
        Nnf::And(items) => Node::And(items.iter().map(|i| prepare(i, columns)).collect()),
        Nnf::Or(items) => Node::Or(items.iter().map(|i| prepare(i, columns)).collect()),
        Nnf::Leaf(leaf) => prepare_leaf(leaf, columns),
    }
}

fn prepare_leaf(leaf: &Leaf, columns: &TableColumns) -> Node {
    let Some(column) = leaf.column().and_then(|c| columns.resolve(c).ok()) else {
        return Node::Undecided;
    };
    // A data column takes any value within a file: the evaluator cannot decide it.
    if !column.is_partition {
        return Node::Undecided;
    }
    let test = match leaf {
        Leaf::IsNull { negated, .. } => Test::IsNull { negated: *negated },
        Leaf::Cmp { op, literal, .. } => Test::Cmp {
            op: *op,
            literal: coerce(literal, &column).ok(),
        },
        // One literal that does not coerce leaves the whole list undecided.
        Leaf::In { list, negated, .. } => Test::In {
            list: list.iter().map(|l| coerce(l, &column).ok()).collect(),
            negated: *negated,
        },
        Leaf::Like {
            pattern,
            escape,
            negated,
            ..
        } => Test::Like {
            tokens: like::tokenize(pattern, *escape).ok(),
            negated: *negated,
        },
        Leaf::Bool { value, .. } => Test::Bool { value: *value },
        // An unsupported expression has no column of its own (`column()` is `None` above);
        // should it ever have one, it is still not decided here.
        Leaf::Unsupported { .. } => return Node::Undecided,
    };
    Node::Leaf {
        column: Box::new(column),
        test,
    }
}

fn evaluate_node(node: &Node, values: &impl PartitionValues) -> Truths {
    match node {
        Node::Const(b) => Truths::of(Some(*b)),
        Node::And(items) => items
            .iter()
            .map(|i| evaluate_node(i, values))
            .fold(Truths::TRUE, |acc, t| acc.combine(t, kleene_and)),
        Node::Or(items) => items
            .iter()
            .map(|i| evaluate_node(i, values))
            .fold(Truths::FALSE, |acc, t| acc.combine(t, kleene_or)),
        Node::Undecided => Truths::UNKNOWN,
        Node::Leaf { column, test } => {
            evaluate_leaf(column, test, values).map_or(Truths::UNKNOWN, Truths::of)
        }
    }
}

/// `None`: undecidable here (an absent key, a value that does not parse, a literal or pattern
/// that did not prepare, values that do not compare).
fn evaluate_leaf(
    column: &ColumnInfo,
    test: &Test,
    values: &impl PartitionValues,
) -> Option<Option<bool>> {
    let raw = values.raw(&column.partition_key)?;
    let value = typed_partition_value(raw, column)?;
    if let Test::IsNull { negated } = test {
        return Some(Some(value.is_null() != *negated));
    }
    if value.is_null() {
        // Every remaining leaf is NULL on a NULL input.
        return Some(None);
    }
    Some(Some(match test {
        Test::Cmp { op, literal } => apply(*op, compare(&value, literal.as_ref()?)?),
        Test::In { list, negated } => {
            let mut found = false;
            for item in list.as_ref()? {
                if compare(&value, item)? == Ordering::Equal {
                    // A zero in a NOT IN list: DataFusion's lists tell the zeros apart, Spark
                    // and DuckDB do not, so the engines disagree on this value: undecided.
                    if *negated && is_float_zero(&value) {
                        return None;
                    }
                    found = true;
                }
            }
            found != *negated
        }
        Test::Like { tokens, negated } => {
            let Scalar::String(s) = &value else {
                return None;
            };
            like::matches(tokens.as_ref()?, s) != *negated
        }
        Test::Bool { value: wanted } => {
            let Scalar::Boolean(b) = value else {
                return None;
            };
            b == *wanted
        }
        // Decided above, before the null check.
        Test::IsNull { .. } => return None,
    }))
}

fn is_float_zero(v: &Scalar) -> bool {
    matches!(v, Scalar::Double(x) if *x == 0.0) || matches!(v, Scalar::Float(x) if *x == 0.0)
}

fn apply(op: CmpOp, ord: Ordering) -> bool {
    match op {
        CmpOp::Eq => ord.is_eq(),
        CmpOp::NotEq => ord.is_ne(),
        CmpOp::Lt => ord.is_lt(),
        CmpOp::LtEq => ord.is_le(),
        CmpOp::Gt => ord.is_gt(),
        CmpOp::GtEq => ord.is_ge(),
    }
}
