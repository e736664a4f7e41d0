//! The explanation engine of delta-explain: one snapshot and one log replay, the phase scans,
//! the nested survivor sets, the report model and `--verify`.
//!
//! The pipeline, one module an idea: the predicate compiled by `explain_compiler` (its `sql`,
//! `ast`, `normalize`, `guards`, `classify`, `lower` and `partition_eval` over partition
//! values) -> [`replay`] (one snapshot, one log replay, the
//! phase scans) -> [`explain`] (the nested survivor sets) -> [`report`] (the JSON document);
//! [`stream`] runs the same explanation window by window while the log is replayed, and
//! [`request`] holds the entry points the command and the Python package call.

pub mod accepted;
pub mod check;
pub mod coverage;
pub mod diagnose;
pub mod diff;
pub mod doctor;
pub mod explain;
pub mod explain_request;
pub mod features;
pub mod file_set;
pub mod file_stats;
pub mod gates;
pub mod layers;
pub mod log_check;
pub mod partition_table;
pub mod ranges;
pub mod replay;
pub mod report;
pub mod report_request;
pub mod request;
pub mod session;
pub mod stream;
#[cfg(feature = "verify")]
pub mod verify;

/// `0.1.0 (commit 1a2b3c4d5e6f)`: the release and the commit it was built from.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("DELTA_EXPLAIN_COMMIT"),
    ")"
);

/// The stack of every thread that evaluates a predicate: the command's main worker, the
/// `--predicates` workers and the phase-scan shards. The interpreters (ours and the kernel's)
/// recurse once per level of the predicate; the parser bounds the depth, and this keeps a
/// wide-but-legal predicate far from the limit.
pub const DEEP_STACK: usize = 256 * 1024 * 1024;

#[cfg(test)]
mod accepted_tests;

/// The cores this process may use, read once: `available_parallelism` reads the cgroup's CPU
/// quota from files on every call, and each phase scan asks (thousands per second under
/// `--predicates`).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
