//! The oracle's errors: each names the table file at fault where there is one, and carries the
//! exit code of the contract (2 invalid input, 3 table or I/O).

use thiserror::Error;

#[derive(Debug, Error)]
pub enum OracleError {
    /// The log cannot be replayed (corrupt, truncated or missing pieces).
    #[error("cannot replay the log: {0}")]
    Log(String),
    /// A data or deletion-vector file cannot be read.
    #[error("cannot read `{path}`: {reason}")]
    File { path: String, reason: String },
    /// The table location is not a Delta table.
    #[error("cannot read table {table}: {reason}")]
    Table { table: String, reason: String },
    /// The predicate does not parse or does not type-check against the table.
    #[error("invalid predicate: {0}")]
    Predicate(String),
    /// A bad location or storage option.
    #[error("{0}")]
    Usage(String),
    /// The Ballista cluster cannot be reached, failed the job, or answered incompletely.
    #[error("the cluster: {0}")]
    Cluster(String),
}

impl OracleError {
    pub fn log(reason: impl Into<String>) -> Self {
        OracleError::Log(one_line(&reason.into()))
    }

    pub fn file(path: impl Into<String>, reason: impl ToString) -> Self {
        OracleError::File {
            path: path.into(),
            reason: one_line(&reason.to_string()),
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            OracleError::Predicate(_) | OracleError::Usage(_) => 2,
            _ => 3,
        }
    }
}

/// Collapses whitespace (DataFusion and arrow errors span lines) into one line.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
