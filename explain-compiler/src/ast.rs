//! The owned predicate AST: the one predicate model of the project.
//!
//! The SQL parser's tree is converted into these types in exactly one place (`sql.rs`); every
//! later stage (normalization, classification, kernel lowering, partition evaluation) reads
//! this model or its normalized form. Literal tokens stay raw text here: their type is only
//! known once a column's schema type is at hand, at lowering time.
//!
//! `Display` renders SQL that parses back into the same tree (a free round-trip test).

use std::fmt;

/// A column reference as written, split on `.` for nested fields (`a.b.c`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ColumnRef {
    pub path: Vec<String>,
}

impl ColumnRef {
    pub fn new(path: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            path: path.into_iter().map(Into::into).collect(),
        }
    }

    /// The dotted name, as used in messages and as the key of partition-value maps.
    pub fn dotted(&self) -> String {
        self.path.join(".")
    }
}

impl fmt::Display for ColumnRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.path.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            if is_plain_identifier(part) {
                f.write_str(part)?;
            } else {
                write!(f, "`{}`", part.replace('`', "``"))?;
            }
        }
        Ok(())
    }
}

fn is_plain_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !is_reserved_word(s)
}

fn is_reserved_word(s: &str) -> bool {
    const RESERVED: &[&str] = &[
        "and",
        "or",
        "not",
        "null",
        "true",
        "false",
        "is",
        "in",
        "between",
        "like",
        "escape",
        "date",
        "timestamp",
        "timestamp_ntz",
        "select",
        "from",
        "where",
        "case",
        "when",
        "then",
        "else",
        "end",
        "cast",
        "interval",
        "exists",
    ];
    RESERVED.contains(&s.to_ascii_lowercase().as_str())
}

/// The kind of a typed literal (`DATE '2024-01-03'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypedLiteralKind {
    Date,
    Timestamp,
    TimestampNtz,
}

/// A literal token, kept as written until a column type gives it meaning.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    /// A numeric token, sign included (`-5`, `1.50`, `1e3`).
    Number(String),
    /// A quoted string, unescaped.
    String(String),
    Boolean(bool),
    Null,
    Typed {
        kind: TypedLiteralKind,
        text: String,
    },
    /// A hexadecimal binary literal, decoded (`X'616263'`: the bytes of `abc`), as Spark and
    /// DataFusion read it.
    Binary(Vec<u8>),
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Number(n) => f.write_str(n),
            Literal::String(s) => write_quoted(f, s),
            Literal::Boolean(true) => f.write_str("TRUE"),
            Literal::Boolean(false) => f.write_str("FALSE"),
            Literal::Null => f.write_str("NULL"),
            Literal::Binary(bytes) => {
                f.write_str("X'")?;
                bytes.iter().try_for_each(|b| write!(f, "{b:02X}"))?;
                f.write_str("'")
            }
            Literal::Typed { kind, text } => {
                let keyword = match kind {
                    TypedLiteralKind::Date => "DATE",
                    TypedLiteralKind::Timestamp => "TIMESTAMP",
                    TypedLiteralKind::TimestampNtz => "TIMESTAMP_NTZ",
                };
                write!(f, "{keyword} ")?;
                write_quoted(f, text)
            }
        }
    }
}

pub(crate) fn write_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    write!(f, "'{}'", s.replace('\'', "''"))
}

/// Comparison operators. NULL semantics: any comparison with a NULL operand is NULL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl CmpOp {
    /// The operator that holds when the operands are swapped: `a < b` iff `b > a`.
    pub fn commuted(self) -> Self {
        match self {
            CmpOp::Eq => CmpOp::Eq,
            CmpOp::NotEq => CmpOp::NotEq,
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::LtEq => CmpOp::GtEq,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::GtEq => CmpOp::LtEq,
        }
    }

    /// The operator of the negation: `NOT (a < b)` iff `a >= b`. Sound under three-valued
    /// logic because both sides are NULL exactly when an operand is NULL; for floats it relies
    /// on the total order (NaN largest) that docs/semantics.md fixes.
    pub fn negated(self) -> Self {
        match self {
            CmpOp::Eq => CmpOp::NotEq,
            CmpOp::NotEq => CmpOp::Eq,
            CmpOp::Lt => CmpOp::GtEq,
            CmpOp::LtEq => CmpOp::Gt,
            CmpOp::Gt => CmpOp::LtEq,
            CmpOp::GtEq => CmpOp::Lt,
        }
    }

    pub fn sql(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtEq => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtEq => ">=",
        }
    }
}

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Column(ColumnRef),
    Literal(Literal),
    /// A double-quoted name (`"2024-01-03"`): a column in DuckDB and DataFusion, a string in
    /// Spark (whose double quotes delimit strings). Normalization settles it against the
    /// table's columns.
    QuotedName(String),
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Column(c) => c.fmt(f),
            Operand::Literal(l) => l.fmt(f),
            Operand::QuotedName(name) => write!(f, "\"{}\"", name.replace('"', "\"\"")),
        }
    }
}

/// An IN list holding double-quoted names as Spark reads it: every name a string. `None` if
/// an item is a column (never built so by the parser).
pub fn spark_strings(list: &[Operand]) -> Option<Vec<Literal>> {
    list.iter()
        .map(|o| match o {
            Operand::QuotedName(name) => Some(Literal::String(name.clone())),
            Operand::Literal(l) => Some(l.clone()),
            Operand::Column(_) => None,
        })
        .collect()
}

/// A predicate as the user wrote it (before normalization).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Predicate {
    /// `a op b` where each side is a column or a literal, in the order written.
    Compare {
        left: Operand,
        op: CmpOp,
        right: Operand,
    },
    /// n-ary AND; TRUE when empty (never built empty by the parser).
    And(Vec<Predicate>),
    /// n-ary OR; FALSE when empty (never built empty by the parser).
    Or(Vec<Predicate>),
    Not(Box<Predicate>),
    IsNull {
        column: ColumnRef,
        negated: bool,
    },
    InList {
        column: ColumnRef,
        list: Vec<Literal>,
        negated: bool,
    },
    /// An IN list holding a double-quoted name (`s IN ("ab", 'cd')`): Spark's strings, in
    /// DuckDB and DataFusion a column. Normalization settles it against the table's columns.
    QuotedInList {
        column: ColumnRef,
        list: Vec<Operand>,
        negated: bool,
    },
    Between {
        column: ColumnRef,
        low: Literal,
        high: Literal,
        negated: bool,
    },
    Like {
        column: ColumnRef,
        pattern: String,
        escape: Option<char>,
        negated: bool,
    },
    /// A boolean column used as a predicate (`WHERE is_active`).
    BoolColumn(ColumnRef),
    /// A constant used as a predicate (`TRUE`, `FALSE`, `NULL`).
    Constant(Literal),
    /// Anything outside the pruning language, kept as its original SQL text, with the columns
    /// it references (so unknown columns are still rejected).
    Unsupported {
        sql: String,
        columns: Vec<ColumnRef>,
    },
}

impl Predicate {
    /// Every column the predicate references, in order of appearance, without duplicates.
    pub fn columns(&self) -> Vec<ColumnRef> {
        let mut out = Vec::new();
        self.collect_columns(&mut out);
        out
    }

    /// The columns, and the double-quoted names compared with something (a column in DuckDB
    /// and DataFusion, a string in Spark), which may name columns too.
    pub fn columns_and_quoted_names(&self) -> Vec<ColumnRef> {
        let mut out = self.columns();
        for name in self.quoted_names() {
            let c = ColumnRef::new([name]);
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// The double-quoted names compared with something, in order of appearance.
    pub fn quoted_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_quoted_names(&mut out);
        out
    }

    fn collect_quoted_names(&self, out: &mut Vec<String>) {
        match self {
            Predicate::Compare { left, right, .. } => {
                for side in [left, right] {
                    if let Operand::QuotedName(name) = side {
                        out.push(name.clone());
                    }
                }
            }
            Predicate::And(items) | Predicate::Or(items) => {
                items.iter().for_each(|p| p.collect_quoted_names(out))
            }
            Predicate::Not(inner) => inner.collect_quoted_names(out),
            Predicate::QuotedInList { list, .. } => {
                for item in list {
                    if let Operand::QuotedName(name) = item {
                        out.push(name.clone());
                    }
                }
            }
            Predicate::IsNull { .. }
            | Predicate::InList { .. }
            | Predicate::Between { .. }
            | Predicate::Like { .. }
            | Predicate::BoolColumn(_)
            | Predicate::Constant(_)
            | Predicate::Unsupported { .. } => {}
        }
    }

    fn collect_columns(&self, out: &mut Vec<ColumnRef>) {
        let mut push = |c: &ColumnRef| {
            if !out.contains(c) {
                out.push(c.clone());
            }
        };
        match self {
            Predicate::Compare { left, right, .. } => {
                for side in [left, right] {
                    if let Operand::Column(c) = side {
                        push(c);
                    }
                }
            }
            Predicate::And(items) | Predicate::Or(items) => {
                items.iter().for_each(|p| p.collect_columns(out))
            }
            Predicate::Not(inner) => inner.collect_columns(out),
            Predicate::IsNull { column, .. }
            | Predicate::InList { column, .. }
            | Predicate::QuotedInList { column, .. }
            | Predicate::Between { column, .. }
            | Predicate::Like { column, .. }
            | Predicate::BoolColumn(column) => push(column),
            Predicate::Constant(_) => {}
            Predicate::Unsupported { columns, .. } => columns.iter().for_each(push),
        }
    }

    /// The node's construct, as reports and trees name it.
    pub fn construct(&self) -> &'static str {
        match self {
            Predicate::Compare { .. } => "compare",
            Predicate::And(_) => "and",
            Predicate::Or(_) => "or",
            Predicate::Not(_) => "not",
            Predicate::IsNull { .. } => "is_null",
            Predicate::InList { .. } | Predicate::QuotedInList { .. } => "in",
            Predicate::Between { .. } => "between",
            Predicate::Like { .. } => "like",
            Predicate::BoolColumn(_) => "bool_column",
            Predicate::Constant(_) => "constant",
            Predicate::Unsupported { .. } => "unsupported",
        }
    }

    /// The nesting depth of the tree (a leaf has depth 1).
    pub fn depth(&self) -> usize {
        match self {
            Predicate::And(items) | Predicate::Or(items) => {
                1 + items.iter().map(Predicate::depth).max().unwrap_or(0)
            }
            Predicate::Not(inner) => 1 + inner.depth(),
            _ => 1,
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            Predicate::Or(_) => 1,
            Predicate::And(_) => 2,
            Predicate::Not(_) => 3,
            _ => 4,
        }
    }
}

/// Renders `child`, parenthesized when it binds more loosely than its parent.
pub(crate) fn write_child(
    f: &mut fmt::Formatter<'_>,
    child: &impl fmt::Display,
    child_precedence: u8,
    parent_precedence: u8,
) -> fmt::Result {
    if child_precedence <= parent_precedence {
        write!(f, "({child})")
    } else {
        write!(f, "{child}")
    }
}

pub(crate) fn write_like(
    f: &mut fmt::Formatter<'_>,
    column: &ColumnRef,
    pattern: &str,
    escape: Option<char>,
    negated: bool,
) -> fmt::Result {
    write!(f, "{column} {}LIKE ", if negated { "NOT " } else { "" })?;
    write_quoted(f, pattern)?;
    if let Some(e) = escape {
        f.write_str(" ESCAPE ")?;
        write_quoted(f, &e.to_string())?;
    }
    Ok(())
}

pub(crate) fn write_in_list(
    f: &mut fmt::Formatter<'_>,
    column: &ColumnRef,
    list: &[impl fmt::Display],
    negated: bool,
) -> fmt::Result {
    write!(f, "{column} {}IN (", if negated { "NOT " } else { "" })?;
    for (i, lit) in list.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{lit}")?;
    }
    f.write_str(")")
}

impl fmt::Display for Predicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Predicate::Compare { left, op, right } => write!(f, "{left} {} {right}", op.sql()),
            Predicate::And(items) | Predicate::Or(items) => {
                let sep = if matches!(self, Predicate::And(_)) {
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
            Predicate::Not(inner) => {
                f.write_str("NOT ")?;
                // NOT NOT a needs no parentheses; NOT (a AND b) does.
                write_child(f, inner.as_ref(), inner.precedence(), self.precedence() - 1)
            }
            Predicate::IsNull { column, negated } => {
                write!(f, "{column} IS {}NULL", if *negated { "NOT " } else { "" })
            }
            Predicate::InList {
                column,
                list,
                negated,
            } => write_in_list(f, column, list, *negated),
            Predicate::QuotedInList {
                column,
                list,
                negated,
            } => write_in_list(f, column, list, *negated),
            Predicate::Between {
                column,
                low,
                high,
                negated,
            } => write!(
                f,
                "{column} {}BETWEEN {low} AND {high}",
                if *negated { "NOT " } else { "" }
            ),
            Predicate::Like {
                column,
                pattern,
                escape,
                negated,
            } => write_like(f, column, pattern, *escape, *negated),
            Predicate::BoolColumn(c) => c.fmt(f),
            Predicate::Constant(l) => l.fmt(f),
            Predicate::Unsupported { sql, .. } => f.write_str(sql),
        }
    }
}
