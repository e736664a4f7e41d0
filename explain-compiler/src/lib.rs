//! The predicate compiler of delta-explain: SQL text to the predicates the explanation runs,
//! with no I/O and no engine.
//!
//! The pipeline, one module an idea:
//! [`sql`] (the only sqlparser user) -> [`ast`] -> [`normalize`] into [`nnf`] (literals
//! read as the engines read them: [`retype`], [`mistyped`], [`string_readings`],
//! [`string_lists`], [`like`]) ->
//! [`guards`] (every soundness decision on a leaf) -> [`classify`] -> [`lower`] to
//! delta_kernel predicates ([`coerce`] types the literals); [`partition_eval`] decides a
//! predicate over a file's partition values. [`schema`] is the table's columns
//! as the compiler sees them; [`error`] the one error type and its exit codes.

pub mod ast;
pub mod bind;
pub mod classify;
pub mod coerce;
pub mod error;
pub mod guards;
pub mod like;
pub mod lower;
pub mod mistyped;
pub mod nnf;
pub mod normalize;
pub mod partition_eval;
pub mod retype;
pub mod schema;
pub mod sql;
pub mod string_lists;
pub mod string_readings;

pub use error::ExplainError;

#[cfg(test)]
mod tests;
