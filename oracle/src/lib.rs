//! The oracle: ground truth for Delta file pruning, independent of explain-core and of
//! delta_kernel (neither is a dependency, so a bug in either cannot hide itself here).
//!
//! - [`log`]: its own log replay (commits, classic/multi-part/V2 checkpoints, add/remove
//!   reconciliation, protocol and metadata, version pinning);
//! - [`delta_schema`], [`partition`]: the schema string and typed partition values;
//! - [`dv`]: deletion vectors (inline and on disk);
//! - [`read`]: every live row of a file under the logical schema, ranged reads by row group;
//! - [`matching`]: the files that really match, evaluated by DataFusion's SQL planner;
//! - [`streamed`]: the same for one predicate, file by file, without loading the table;
//! - [`interpret`]: a second, row-wise evaluator with the engines' float semantics as a parameter;
//! - [`row_groups`]: the row groups a file's Parquet footer statistics leave to be read,
//!   under DataFusion's pruning rules;
//! - [`pruning`]: a second kept set from DataFusion's `PruningPredicate` over the statistics;
//! - [`planning`]: how many files to read at once (CPU, file descriptors, memory, cgroups);
//! - [`report`]: what `delta-oracle` prints;
//! - [`store`]: the table's files in its object store (local, S3, Azure, GCS), read through
//!   one store and one I/O runtime.

pub mod delta_schema;
#[cfg(feature = "ballista")]
pub mod distributed;
pub mod dv;
pub mod engine;
pub mod engines;
pub mod error;
pub mod guarded;
pub mod interpret;
pub mod log;
pub mod matching;
pub mod partition;
pub mod planning;
pub mod pruning;
pub mod read;
pub mod readers;
pub mod report;
pub mod respell;
pub mod row_groups;
pub mod store;
pub mod streamed;
pub mod timestamps;

pub use error::OracleError;

/// The stack of every thread that evaluates a predicate (the runtimes' workers, the thread
/// `delta-oracle` does its work on): DataFusion evaluates an expression by recursion, one
/// level per operator, so an AND of 5,000 leaves is 5,000 frames deep. Address space, touched
/// only as used.
pub const DEEP_STACK: usize = 512 << 20;
