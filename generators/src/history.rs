//! A table's log as it evolves after it is written: a random sequence of operations drawn
//! from a seed, each appended where the table allows it: an OPTIMIZE-style rewrite sorted by
//! the first integer column (`rewrite`), deletes with deletion vectors (`deletes`), a log
//! compaction of the commits so far (`compaction`). The rewrite comes before the deletes (it
//! rewrites the files' rows as written, so it would bring deleted rows back); the compaction
//! comes last, over every commit from 1. And the table as it stood at one of its versions
//! (`as_of`), for readers that read only the latest.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::spec::{Kind, TableSpec};
use crate::writer::WrittenTable;

/// One operation of a history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Rewrite,
    Delete,
    Compact,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Rewrite => "rewrite",
            Op::Delete => "delete",
            Op::Compact => "compact",
        }
    }
}

/// Appends to `table` (written from `spec`) the operations `seed` draws, each with
/// probability 3/4 and where the table allows it: the last version and the operations applied.
pub fn evolve(spec: &TableSpec, table: &WrittenTable, seed: u64) -> (u64, Vec<Op>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x4849_5354_4f52_5953);
    let mut applied = Vec::new();
    let mut current = table.clone();
    if rng.random_bool(0.75) {
        let by = spec
            .data_columns()
            .into_iter()
            .find(|c| matches!(c.kind, Kind::Int32 | Kind::Int64))
            .map(|c| c.name.clone());
        if let Some(rewritten) =
            by.and_then(|by| crate::rewrite::rewrite_sorted(spec, &current, &by).ok())
        {
            current = rewritten;
            applied.push(Op::Rewrite);
        }
    }
    if rng.random_bool(0.75)
        && let Ok(version) = crate::deletes::delete_rows(spec, &current, seed)
    {
        current.version = version;
        applied.push(Op::Delete);
    }
    if rng.random_bool(0.75)
        && current.version >= 2
        && crate::compaction::compact(&current.root, 1, current.version).is_ok()
    {
        applied.push(Op::Compact);
    }
    (current.version, applied)
}

/// The version a log entry belongs to, as its name says: a commit's, a checkpoint's (any of
/// its parts, classic or v2), a checksum's, a log compaction's last commit; `None` for what
/// names none (`_last_checkpoint`, `_sidecars/`).
fn entry_version(name: &str) -> Option<u64> {
    let mut parts = name.split('.');
    let first: u64 = parts.next()?.parse().ok()?;
    // `a.b.compacted.json` covers commits a to b.
    Some(match parts.next() {
        Some(second)
            if second.len() == 20
                && second.bytes().all(|b| b.is_ascii_digit())
                && name.ends_with(".compacted.json") =>
        {
            second.parse().ok()?
        }
        Some(_) | None => first,
    })
}

/// Writes to `to` the table at `root` as it stood at `version`: its files, and its log
/// without what came after (commits, checkpoints, checksums and log compactions of later
/// versions; a `_last_checkpoint` naming a later checkpoint). Every reader then reads that
/// version as the table's latest, whatever its way of traveling in time.
pub fn as_of(root: &Path, version: u64, to: &Path) -> Result<(), String> {
    copy(root, to)?;
    let log = to.join("_delta_log");
    let entries = std::fs::read_dir(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let later = if name == "_last_checkpoint" {
            let text = std::fs::read_to_string(entry.path()).map_err(|e| e.to_string())?;
            serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v.get("version").and_then(serde_json::Value::as_u64))
                .is_none_or(|v| v > version)
        } else {
            entry_version(&name).is_some_and(|v| v > version)
        };
        if later {
            std::fs::remove_file(entry.path()).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// `from` copied into `to`, folders and files alike (a table and its log, say).
pub fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = entry.path();
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
            copy(&path, &target)?;
        } else {
            std::fs::copy(&path, &target).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::entry_version;

    #[test]
    fn a_log_entry_names_its_version() {
        assert_eq!(entry_version("00000000000000000003.json"), Some(3));
        assert_eq!(
            entry_version("00000000000000000004.checkpoint.parquet"),
            Some(4)
        );
        assert_eq!(
            entry_version("00000000000000000004.checkpoint.0000000001.0000000002.parquet"),
            Some(4)
        );
        assert_eq!(
            entry_version("00000000000000000001.00000000000000000005.compacted.json"),
            Some(5)
        );
        assert_eq!(entry_version("00000000000000000002.crc"), Some(2));
        assert_eq!(entry_version("_last_checkpoint"), None);
        assert_eq!(entry_version("_sidecars"), None);
    }
}
