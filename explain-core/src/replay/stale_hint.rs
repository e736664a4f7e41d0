//! A `_last_checkpoint` that names a checkpoint the log does not hold (a crashed or cleaned-up
//! writer): the protocol calls the file a hint, and Spark's Delta reader, finding no checkpoint
//! where it points, reads the log from the newest complete checkpoint before it, or from the
//! first commit. The kernel refuses such a log instead (it cannot tell a deleted log prefix
//! from history). Here the log is read by listing when the listing itself shows where the
//! state starts: a complete checkpoint at or below the version read, or commit 0 with every
//! commit after it (the kernel checks that they are contiguous). Otherwise the table is an
//! error (exit 3), as before: no reader could rebuild its state.

use std::collections::{BTreeMap, BTreeSet};

use delta_kernel::{Engine, KernelError};
use url::Url;

use crate::log_check::{LogName, parse_log_name};
use explain_compiler::classify::Note;
use explain_compiler::error::ExplainError;

/// The note of a log read past its checkpoint hint.
pub const LAST_CHECKPOINT_IGNORED: &str = "LAST_CHECKPOINT_IGNORED";

/// Whether the kernel refused the log because `_last_checkpoint` names a checkpoint that the
/// listing from its version does not hold.
pub(super) fn is_stale_hint(e: &KernelError) -> bool {
    matches!(e, KernelError::InvalidCheckpoint(m) if m.contains("_last_checkpoint hint but didn't find any checkpoints"))
}

/// Where the state of `table` at `version` (the latest when `None`) starts without the hint,
/// said as the note the report carries; an error when the listing shows no such start.
/// `None` when some part of the hinted checkpoint is there (a torn multi-part checkpoint): the
/// kernel's error stands and names the missing part, as the oracle's does.
pub(super) fn read_past(
    engine: &dyn Engine,
    table: &Url,
    version: Option<u64>,
    location: &str,
) -> Result<Option<Note>, ExplainError> {
    let table_err = |reason: String| ExplainError::Table {
        table: location.to_string(),
        reason,
    };
    let log = table
        .join("_delta_log/")
        .map_err(|e| table_err(e.to_string()))?;
    let listing: Vec<String> = engine
        .storage_handler()
        .list_from(&log.join("0").map_err(|e| table_err(e.to_string()))?)
        .map_err(|e| table_err(crate::replay::kernel_message(&e)))?
        .filter_map(Result::ok)
        .filter_map(|meta| Some(meta.location.path_segments()?.next_back()?.to_string()))
        .collect();
    let hinted = engine
        .storage_handler()
        .read_files(vec![(
            log.join("_last_checkpoint")
                .map_err(|e| table_err(e.to_string()))?,
            None,
        )])
        .ok()
        .and_then(|mut bytes| bytes.next())
        .and_then(Result::ok)
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|hint| hint.get("version").and_then(serde_json::Value::as_u64));
    let torn = listing
        .iter()
        .filter_map(|n| parse_log_name(n))
        .any(|n| matches!(n, LogName::CheckpointPart { version, .. } if Some(version) == hinted));
    if torn {
        return Ok(None);
    }
    let hinted_text = hinted.map_or("a checkpoint".to_string(), |v| {
        format!("the checkpoint of version {v}")
    });
    match start_without_hint(&listing, version) {
        Some(Start::Checkpoint(v)) => Ok(Some(Note {
            code: LAST_CHECKPOINT_IGNORED,
            message: format!(
                "`_delta_log/_last_checkpoint` names {hinted_text}, which the log does not hold; the log was read by listing, from the complete checkpoint of version {v} (as Spark's Delta reader does)"
            ),
        })),
        Some(Start::FirstCommit) => Ok(Some(Note {
            code: LAST_CHECKPOINT_IGNORED,
            message: format!(
                "`_delta_log/_last_checkpoint` names {hinted_text}, which the log does not hold; the log was read by listing, from its first commit (as Spark's Delta reader does)"
            ),
        })),
        None => Err(table_err(format!(
            "`_delta_log/_last_checkpoint` names {hinted_text}, which the log does not hold, and the log holds neither an older complete checkpoint nor its first commit (version 0) to rebuild the state from"
        ))),
    }
}

/// Where a replay without the hint starts.
#[derive(Debug, PartialEq, Eq)]
enum Start {
    /// The newest complete checkpoint at or below the version read.
    Checkpoint(u64),
    /// Commit 0, no checkpoint below the version read.
    FirstCommit,
}

/// Where the state at `version` (the latest listed when `None`) starts in a log holding the
/// files `names`: `None` when it holds neither a complete checkpoint at or below it nor commit
/// 0 (a deleted prefix: its commits would replay as if history began later).
fn start_without_hint(names: &[String], version: Option<u64>) -> Option<Start> {
    let parsed: Vec<LogName> = names.iter().filter_map(|n| parse_log_name(n)).collect();
    let target = version.or_else(|| parsed.iter().map(|n| n.version()).max())?;
    let mut parts: BTreeMap<(u64, u64), BTreeSet<u64>> = BTreeMap::new();
    let mut complete: BTreeSet<u64> = BTreeSet::new();
    let mut first_commit = false;
    for name in parsed.iter().filter(|n| n.version() <= target) {
        match *name {
            LogName::Commit { version } => first_commit |= version == 0,
            LogName::Checkpoint { version } => {
                complete.insert(version);
            }
            LogName::CheckpointPart {
                version,
                part,
                parts: n,
            } => {
                let seen = parts.entry((version, n)).or_default();
                seen.insert(part);
                if seen.len() as u64 == n {
                    complete.insert(version);
                }
            }
        }
    }
    match complete.last() {
        Some(v) => Some(Start::Checkpoint(*v)),
        None if first_commit => Some(Start::FirstCommit),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_state_starts_where_the_listing_shows() {
        let commits = |from: u64, to: u64| (from..=to).map(|v| format!("{v:020}.json"));
        // An older complete checkpoint: from it.
        let mut log: Vec<String> = commits(0, 12).collect();
        log.push(format!("{:020}.checkpoint.parquet", 5));
        log.push("_last_checkpoint".into());
        assert_eq!(start_without_hint(&log, None), Some(Start::Checkpoint(5)));
        // At a version below the checkpoint: from commit 0.
        assert_eq!(start_without_hint(&log, Some(4)), Some(Start::FirstCommit));
        // A torn multi-part checkpoint is no start; the whole one below it is.
        let mut log: Vec<String> = commits(0, 12).collect();
        log.push(format!("{:020}.checkpoint.{:010}.{:010}.parquet", 10, 1, 2));
        log.push(format!("{:020}.checkpoint.{:010}.{:010}.parquet", 4, 1, 2));
        log.push(format!("{:020}.checkpoint.{:010}.{:010}.parquet", 4, 2, 2));
        assert_eq!(start_without_hint(&log, None), Some(Start::Checkpoint(4)));
        // A deleted prefix without a checkpoint: no start.
        let log: Vec<String> = commits(41, 50).collect();
        assert_eq!(start_without_hint(&log, None), None);
        // A V2 checkpoint counts as one file.
        let mut log: Vec<String> = commits(0, 3).collect();
        log.push(format!(
            "{:020}.checkpoint.3a0d65cd-4056-49b8-937b-95f9e3ee90e5.json",
            2
        ));
        assert_eq!(start_without_hint(&log, None), Some(Start::Checkpoint(2)));
        assert_eq!(
            start_without_hint(&names(&["_last_checkpoint"]), None),
            None
        );
    }
}
