//! delta-explain: explains Delta Lake file pruning for a SQL WHERE predicate.
//!
//! The pipeline, one module an idea:
//! [`sql`] (the only sqlparser user) -> [`ast`] -> [`normalize`] into [`nnf`] ->
//! [`classify`] -> [`lower`] to delta_kernel predicates ([`coerce`] types the literals) and
//! [`partition_eval`] over partition values -> [`replay`] (one snapshot, one log replay, the
//! phase scans) -> [`explain`] (the nested survivor sets) -> [`report`]; [`stream`] runs the
//! same explanation window by window while the log is replayed.

pub mod accepted;
pub mod advise;
pub mod ast;
pub mod budget;
pub mod classify;
pub mod cli;
pub mod coerce;
pub mod diagnose;
pub mod error;
pub mod explain;
pub mod features;
pub mod file_set;
pub mod file_stats;
pub mod gates;
pub mod guards;
pub mod layers;
pub mod like;
pub mod log_check;
pub mod lower;
pub mod mistyped;
pub mod nnf;
pub mod normalize;
pub mod partition_eval;
pub mod partition_table;
pub mod progress;
pub mod ranges;
pub mod replay;
pub mod report;
pub mod request;
pub mod retype;
pub mod schema;
pub mod session;
pub mod sql;
pub mod stream;
pub mod string_readings;
pub mod verify;

pub use error::ExplainError;

/// The stack of every thread that evaluates a predicate: the command's main worker, the
/// `--predicates` workers and the phase-scan shards. The interpreters (ours and the kernel's)
/// recurse once per level of the predicate; the parser bounds the depth, and this keeps a
/// wide-but-legal predicate far from the limit.
pub const DEEP_STACK: usize = 256 * 1024 * 1024;

#[cfg(test)]
mod compiler_tests;

/// The cores this process may use, read once: `available_parallelism` reads the cgroup's CPU
/// quota from files on every call, and each phase scan asks (thousands per second under
/// `--predicates`).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `run` on `workers` scoped threads with the deep stack; on this thread when none starts.
pub(crate) fn on_workers(workers: usize, run: &(dyn Fn() + Sync)) {
    std::thread::scope(|scope| {
        let spawned = (0..workers)
            .filter(|_| {
                std::thread::Builder::new()
                    .stack_size(crate::DEEP_STACK)
                    .spawn_scoped(scope, run)
                    .is_ok()
            })
            .count();
        // A worker that could not start leaves its share to the others; with none, this
        // thread.
        if spawned == 0 {
            run();
        }
    });
}
