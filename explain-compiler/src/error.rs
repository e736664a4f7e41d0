//! The error type and the exit-code contract.

use thiserror::Error;

/// Everything that can stop an explanation. Each variant maps to one documented exit code.
#[derive(Debug, Error)]
pub enum ExplainError {
    /// Malformed SQL, an over-deep predicate, a constant that is not boolean.
    #[error("invalid predicate: {}", line(.0))]
    InvalidPredicate(String),
    /// A column the table does not have.
    #[error(
        "unknown column `{}`{}; the table has: {}",
        line(column),
        line(hint),
        line(available)
    )]
    UnknownColumn {
        column: String,
        /// `(did you mean ...?)`, or the single-quoted literal a double-quoted one meant.
        hint: String,
        available: String,
    },
    /// A literal that cannot be converted to its column's type without loss.
    #[error(
        "invalid literal for column `{}` ({column_type}): {}",
        line(column),
        line(reason)
    )]
    InvalidLiteral {
        column: String,
        column_type: String,
        reason: String,
    },
    /// Flags that make no sense together, or a bad flag value.
    #[error("{}", line(.0))]
    Usage(String),
    /// The table is missing, unreadable, or its log is corrupt.
    #[error("cannot read table {}: {}", line(table), line(reason))]
    Table { table: String, reason: String },
    /// Writing the report failed.
    #[error("cannot write the report: {}", line(.0))]
    Output(String),
}

/// `text` on one line: line breaks and other control characters in what the user wrote (a
/// predicate, a path) are shown escaped (`\n`), so every error stays the one line the
/// contract promises.
fn line(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
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
