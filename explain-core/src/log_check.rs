//! Naming the broken file when a log cannot be replayed.
//!
//! The kernel reports *what* went wrong ("Corrupt footer", "unexpected 'n'") but not *where*.
//! When opening a table fails, this module walks the `_delta_log` listing through the same
//! storage handler and looks for the first file that explains the failure: a checkpoint part
//! that `_last_checkpoint` or its siblings promise but the listing lacks, a checkpoint that is
//! not a whole Parquet file, a commit line that is not JSON, a gap in the commit versions. It
//! only ever adds detail to an error that already happened; it never decides that a table is
//! readable.

use std::collections::{BTreeMap, BTreeSet};

use delta_kernel::Engine;
use url::Url;

/// The first problem found in the log of `table` (read up to `version`, the latest when
/// `None`), as one phrase naming the file, or `None` when nothing is evidently wrong.
pub fn locate_broken_file(
    engine: &dyn Engine,
    table: &Url,
    version: Option<u64>,
) -> Option<String> {
    let log = table.join("_delta_log/").ok()?;
    let storage = engine.storage_handler();
    // Names sort as: versioned files ("0000...") before "_last_checkpoint".
    let listing: Vec<(String, u64)> = storage
        .list_from(&log.join("0").ok()?)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|meta| {
            let name = meta.location.path_segments()?.next_back()?.to_string();
            Some((name, meta.size))
        })
        .collect();
    let names: BTreeSet<&str> = listing.iter().map(|(n, _)| n.as_str()).collect();
    let read = |name: &str| -> Option<Vec<u8>> {
        let url = log.join(name).ok()?;
        storage
            .read_files(vec![(url, None)])
            .ok()?
            .next()?
            .ok()
            .map(|b| b.to_vec())
    };
    let shown = |name: &str| format!("`_delta_log/{name}`");

    // 1. The checkpoint `_last_checkpoint` names must be complete.
    if names.contains("_last_checkpoint")
        && let Some(hint) = read("_last_checkpoint")
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
    {
        let hinted = hint.get("version").and_then(serde_json::Value::as_u64);
        let parts = hint.get("parts").and_then(serde_json::Value::as_u64);
        if let (Some(v), Some(n)) = (hinted, parts)
            && version.is_none_or(|target| v <= target)
        {
            for i in 1..=n {
                let part = multi_part_name(v, i, n);
                if !names.contains(part.as_str()) {
                    return Some(format!(
                        "{} is missing (checkpoint part {i} of {n} named by `_delta_log/_last_checkpoint`)",
                        shown(&part)
                    ));
                }
            }
        }
    }

    // 2. Every multi-part checkpoint present must be complete, and every Parquet checkpoint a
    //    whole Parquet file (magic at both ends, a footer that fits).
    let mut groups: BTreeMap<(u64, u64), BTreeSet<u64>> = BTreeMap::new();
    for (name, size) in &listing {
        let Some(kind) = parse_log_name(name) else {
            continue;
        };
        if version.is_some_and(|target| kind.version() > target) {
            continue;
        }
        if let LogName::CheckpointPart {
            version: v,
            part,
            parts,
        } = kind
        {
            groups.entry((v, parts)).or_default().insert(part);
        }
        if matches!(
            kind,
            LogName::Checkpoint { .. } | LogName::CheckpointPart { .. }
        ) && name.ends_with(".parquet")
            && let Some(problem) = read(name).and_then(|bytes| parquet_problem(&bytes, *size))
        {
            return Some(format!("{} {problem}", shown(name)));
        }
    }
    for ((v, parts), present) in &groups {
        if let Some(missing) = (1..=*parts).find(|i| !present.contains(i)) {
            return Some(format!(
                "{} is missing (checkpoint part {missing} of {parts})",
                shown(&multi_part_name(*v, missing, *parts))
            ));
        }
    }

    // 3. Commits: contiguous versions, each line a JSON object.
    let commits: Vec<(u64, &str)> = listing
        .iter()
        .filter_map(|(name, _)| match parse_log_name(name)? {
            LogName::Commit { version: v } if version.is_none_or(|target| v <= target) => {
                Some((v, name.as_str()))
            }
            _ => None,
        })
        .collect();
    for pair in commits.windows(2) {
        if pair[1].0 != pair[0].0 + 1 {
            return Some(format!(
                "the commit of version {} is missing between {} and {}",
                pair[0].0 + 1,
                shown(pair[0].1),
                shown(pair[1].1)
            ));
        }
    }
    for (_, name) in &commits {
        let bytes = read(name)?;
        let text = String::from_utf8_lossy(&bytes);
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            if let Err(e) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(line)
            {
                return Some(format!(
                    "{} line {} is not a JSON action: {e}",
                    shown(name),
                    i + 1
                ));
            }
        }
    }
    None
}

fn multi_part_name(version: u64, part: u64, parts: u64) -> String {
    format!("{version:020}.checkpoint.{part:010}.{parts:010}.parquet")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogName {
    Commit {
        version: u64,
    },
    /// A single-file (classic or V2) checkpoint.
    Checkpoint {
        version: u64,
    },
    CheckpointPart {
        version: u64,
        part: u64,
        parts: u64,
    },
}

impl LogName {
    pub(crate) fn version(self) -> u64 {
        match self {
            LogName::Commit { version }
            | LogName::Checkpoint { version }
            | LogName::CheckpointPart { version, .. } => version,
        }
    }
}

/// Recognizes the log file names the protocol defines; anything else (`.crc`, temp files,
/// compacted logs) is `None` and left alone.
pub(crate) fn parse_log_name(name: &str) -> Option<LogName> {
    let (prefix, rest) = name.split_once('.')?;
    if prefix.len() != 20 || !prefix.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let version = prefix.parse().ok()?;
    let fields: Vec<&str> = rest.split('.').collect();
    match fields.as_slice() {
        ["json"] => Some(LogName::Commit { version }),
        ["checkpoint", "parquet"] | ["checkpoint", _, "json" | "parquet"] => {
            Some(LogName::Checkpoint { version })
        }
        ["checkpoint", part, parts, "parquet"] if part.len() == 10 && parts.len() == 10 => {
            Some(LogName::CheckpointPart {
                version,
                part: part.parse().ok()?,
                parts: parts.parse().ok()?,
            })
        }
        _ => None,
    }
}

/// Why `bytes` (listed at `listed_size`) is not a whole Parquet file, if it is not.
fn parquet_problem(bytes: &[u8], listed_size: u64) -> Option<String> {
    const MAGIC: &[u8] = b"PAR1";
    if (bytes.len() as u64) < listed_size {
        return Some(format!(
            "is shorter ({} bytes) than listed ({listed_size} bytes)",
            bytes.len()
        ));
    }
    if bytes.len() < 12 || !bytes.starts_with(MAGIC) {
        return Some("is not a Parquet file (no PAR1 header)".to_string());
    }
    if !bytes.ends_with(MAGIC) {
        return Some(format!(
            "is truncated or corrupt: no Parquet footer at its end ({} bytes)",
            bytes.len()
        ));
    }
    let footer_len =
        u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().ok()?) as usize;
    if footer_len + 12 > bytes.len() {
        return Some(format!(
            "is corrupt: its footer claims {footer_len} bytes of a {}-byte file",
            bytes.len()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_log_names() {
        let cases: &[(&str, Option<LogName>)] = &[
            (
                "00000000000000000003.json",
                Some(LogName::Commit { version: 3 }),
            ),
            (
                "00000000000000000010.checkpoint.parquet",
                Some(LogName::Checkpoint { version: 10 }),
            ),
            (
                "00000000000000000001.checkpoint.0000000002.0000000002.parquet",
                Some(LogName::CheckpointPart {
                    version: 1,
                    part: 2,
                    parts: 2,
                }),
            ),
            (
                "00000000000000000002.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json",
                Some(LogName::Checkpoint { version: 2 }),
            ),
            ("00000000000000000002.crc", None),
            (
                "00000000000000000001.00000000000000000004.compacted.json",
                None,
            ),
            ("_last_checkpoint", None),
            ("0001.json", None),
        ];
        for (name, expected) in cases {
            assert_eq!(parse_log_name(name), *expected, "log name {name}");
        }
    }

    #[test]
    fn tells_whole_parquet_from_broken() {
        let mut whole = b"PAR1".to_vec();
        whole.extend([0u8; 10]);
        whole.extend(10u32.to_le_bytes());
        whole.extend(b"PAR1");
        let len = whole.len() as u64;
        assert_eq!(
            parquet_problem(&whole, len),
            None,
            "a whole file has no problem"
        );
        assert!(
            parquet_problem(&whole[..whole.len() - 3], len)
                .unwrap()
                .contains("shorter")
        );
        let cut = &whole[..whole.len() - 3];
        assert!(
            parquet_problem(cut, cut.len() as u64)
                .unwrap()
                .contains("no Parquet footer")
        );
        assert!(
            parquet_problem(b"{\"json\": true}", 14)
                .unwrap()
                .contains("no PAR1 header")
        );
        let mut lying = whole.clone();
        let at = lying.len() - 8;
        lying[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
        assert!(
            parquet_problem(&lying, len)
                .unwrap()
                .contains("footer claims 1000")
        );
    }
}
