//! The error type and the exit-code contract.

use thiserror::Error;

/// Everything that can stop an explanation. Each variant maps to one documented exit code.
#[derive(Debug, Error)]
pub enum ExplainError {
    /// Malformed SQL, an over-deep predicate, a constant that is not boolean.
    #[error("invalid predicate: {0}")]
    InvalidPredicate(String),
    /// A column the table does not have.
    #[error("unknown column `{column}`; the table has: {available}")]
    UnknownColumn { column: String, available: String },
    /// A literal that cannot be converted to its column's type without loss.
    #[error("invalid literal for column `{column}` ({column_type}): {reason}")]
    InvalidLiteral {
        column: String,
        column_type: String,
        reason: String,
    },
    /// Flags that make no sense together, or a bad flag value.
    #[error("{0}")]
    Usage(String),
    /// The table is missing, unreadable, or its log is corrupt.
    #[error("cannot read table {table}: {reason}")]
    Table { table: String, reason: String },
    /// Writing the report failed.
    #[error("cannot write the report: {0}")]
    Output(String),
}

impl ExplainError {
    /// The process exit code of this error: 2 usage or invalid input, 3 table or I/O.
    pub fn exit_code(&self) -> i32 {
        match self {
            ExplainError::InvalidPredicate(_)
            | ExplainError::UnknownColumn { .. }
            | ExplainError::InvalidLiteral { .. }
            | ExplainError::Usage(_) => 2,
            ExplainError::Table { .. } | ExplainError::Output(_) => 3,
        }
    }
}
