//! delta-explain: explains Delta Lake file pruning for a SQL WHERE predicate.
//!
//! The pipeline, one module an idea:
//! [`sql`] (the only sqlparser user) -> [`ast`] -> [`normalize`] into [`nnf`] ->
//! [`classify`] -> [`lower`] to delta_kernel predicates ([`coerce`] types the literals) and
//! [`partition_eval`] over partition values -> [`replay`] (one snapshot, one log replay, the
//! phase scans) -> [`explain`] (the nested survivor sets) -> [`report`].

pub mod accepted;
pub mod ast;
pub mod classify;
pub mod cli;
pub mod coerce;
pub mod diagnose;
pub mod error;
pub mod explain;
pub mod features;
pub mod file_stats;
pub mod gates;
pub mod layers;
pub mod like;
pub mod log_check;
pub mod lower;
pub mod nnf;
pub mod normalize;
pub mod partition_eval;
pub mod progress;
pub mod replay;
pub mod report;
pub mod schema;
pub mod sql;

pub use error::ExplainError;

#[cfg(test)]
mod compiler_tests;
