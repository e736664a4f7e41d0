//! Which log files make up a version: the newest complete checkpoint at or below it, then every
//! commit after that checkpoint, contiguous, up to the version.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::error::OracleError;
use crate::store::TableFiles;

/// A checkpoint: its files (one, or every part of a multi-part checkpoint), by name in the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    pub version: u64,
    pub files: Vec<String>,
}

/// The files to replay for one version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogSegment {
    pub version: u64,
    pub checkpoint: Option<Checkpoint>,
    /// Commits after the checkpoint, in version order, by name in the log.
    pub commits: Vec<(u64, String)>,
}

/// A recognized log file name.
#[derive(Clone, Debug, PartialEq, Eq)]
enum LogFile {
    Commit(u64),
    /// `N.checkpoint.parquet` or a V2 `N.checkpoint.<uuid>.(json|parquet)`.
    SingleCheckpoint(u64),
    Part {
        version: u64,
        part: u64,
        parts: u64,
    },
}

fn classify(name: &str) -> Option<LogFile> {
    let (prefix, rest) = name.split_once('.')?;
    if prefix.len() != 20 || !prefix.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let version: u64 = prefix.parse().ok()?;
    match rest.split('.').collect::<Vec<_>>().as_slice() {
        ["json"] => Some(LogFile::Commit(version)),
        ["checkpoint", "parquet"] | ["checkpoint", _, "json" | "parquet"] => {
            Some(LogFile::SingleCheckpoint(version))
        }
        ["checkpoint", part, parts, "parquet"] => Some(LogFile::Part {
            version,
            part: part.parse().ok()?,
            parts: parts.parse().ok()?,
        }),
        _ => None,
    }
}

fn part_name(version: u64, part: u64, parts: u64) -> String {
    format!("{version:020}.checkpoint.{part:010}.{parts:010}.parquet")
}

/// What the log directory holds: its entries' names, and `_last_checkpoint` if present.
#[derive(Clone, Debug, Default)]
pub struct LogListing {
    pub names: Vec<String>,
    pub last_checkpoint: Option<Vec<u8>>,
    /// The log directory as messages name it.
    pub shown_dir: String,
}

impl LogListing {
    /// Lists the log of `files`' table: one listing, and a read of `_last_checkpoint` when
    /// the listing has one.
    pub fn read(files: &TableFiles) -> Result<Self, OracleError> {
        let names = files.list_log()?;
        let last_checkpoint = if names.iter().any(|n| n == "_last_checkpoint") {
            files
                .read_if_present(&files.log_file("_last_checkpoint"))
                .ok()
                .flatten()
                .map(|b| b.to_vec())
        } else {
            None
        };
        Ok(LogListing {
            names,
            last_checkpoint,
            shown_dir: files.shown(&files.log_file("")),
        })
    }

    fn shown(&self, name: &str) -> String {
        format!("{}/{name}", self.shown_dir.trim_end_matches('/'))
    }
}

/// Selects the segment of the listed log for `version` (the latest when `None`).
pub fn select(log: &LogListing, version: Option<u64>) -> Result<LogSegment, OracleError> {
    let mut commits: BTreeMap<u64, String> = BTreeMap::new();
    let mut singles: BTreeMap<u64, String> = BTreeMap::new();
    let mut parts: BTreeMap<(u64, u64), BTreeMap<u64, String>> = BTreeMap::new();
    for name in &log.names {
        match classify(name) {
            Some(LogFile::Commit(v)) => {
                commits.insert(v, name.clone());
            }
            Some(LogFile::SingleCheckpoint(v)) => {
                // Prefer the classic name when both exist; either holds the whole state.
                let entry = singles.entry(v).or_insert_with(|| name.clone());
                if name.ends_with(".checkpoint.parquet") {
                    *entry = name.clone();
                }
            }
            Some(LogFile::Part {
                version: v,
                part,
                parts: n,
            }) => {
                parts.entry((v, n)).or_default().insert(part, name.clone());
            }
            None => {}
        }
    }
    let latest_known = commits
        .keys()
        .chain(singles.keys())
        .chain(parts.keys().map(|(v, _)| v))
        .max()
        .copied();
    let target = match (version, latest_known) {
        (Some(v), _) => v,
        (None, Some(v)) => v,
        (None, None) => {
            return Err(OracleError::log(format!(
                "{} holds no commit or checkpoint",
                log.shown_dir
            )));
        }
    };

    // A checkpoint `_last_checkpoint` names must be whole: a missing part is an error that
    // names the part, never a silent fallback to a different state.
    let hint = log
        .last_checkpoint
        .as_ref()
        .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok());
    if let Some(hint) = &hint {
        let hinted = hint.get("version").and_then(Value::as_u64);
        let n = hint.get("parts").and_then(Value::as_u64);
        if let (Some(v), Some(n)) = (hinted, n)
            && v <= target
        {
            let present = parts.get(&(v, n)).cloned().unwrap_or_default();
            if let Some(missing) = (1..=n).find(|i| !present.contains_key(i)) {
                return Err(OracleError::file(
                    log.shown(&part_name(v, missing, n)),
                    format!(
                        "checkpoint part {missing} of {n} named by _last_checkpoint is missing"
                    ),
                ));
            }
        }
    }

    // The newest complete checkpoint at or below the target.
    let mut candidates: Vec<Checkpoint> = singles
        .iter()
        .filter(|(v, _)| **v <= target)
        .map(|(v, p)| Checkpoint {
            version: *v,
            files: vec![p.clone()],
        })
        .collect();
    for ((v, n), present) in &parts {
        let complete: BTreeSet<u64> = present.keys().copied().collect();
        if *v <= target && complete == (1..=*n).collect() {
            candidates.push(Checkpoint {
                version: *v,
                files: present.values().cloned().collect(),
            });
        }
    }
    candidates.sort_by_key(|c| c.version);
    let checkpoint = candidates.pop();

    let start = checkpoint.as_ref().map_or(0, |c| c.version + 1);
    let mut segment_commits = Vec::new();
    for v in start..=target {
        match commits.get(&v) {
            Some(path) => segment_commits.push((v, path.clone())),
            None if checkpoint.as_ref().is_some_and(|c| c.version == target) => break,
            None => {
                return Err(OracleError::file(
                    log.shown(&format!("{v:020}.json")),
                    if version.is_some() && latest_known.is_some_and(|l| v > l) {
                        format!(
                            "version {v} does not exist (the log ends at {})",
                            latest_known.unwrap_or_default()
                        )
                    } else {
                        format!("the commit of version {v} is missing")
                    },
                ));
            }
        }
    }
    Ok(LogSegment {
        version: target,
        checkpoint,
        commits: segment_commits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_with(names: &[&str]) -> LogListing {
        LogListing {
            names: names.iter().map(|n| n.to_string()).collect(),
            last_checkpoint: None,
            shown_dir: "/t/_delta_log".into(),
        }
    }

    fn names(segment: &LogSegment) -> (Option<u64>, Vec<u64>) {
        (
            segment.checkpoint.as_ref().map(|c| c.version),
            segment.commits.iter().map(|(v, _)| *v).collect(),
        )
    }

    const C: fn(u64) -> String = |v| format!("{v:020}.json");

    #[test]
    fn picks_the_newest_complete_checkpoint() {
        let c: Vec<String> = (0..=4).map(C).collect();
        let p1 = part_name(2, 1, 2);
        let p2 = part_name(2, 2, 2);
        let mut all: Vec<&str> = c.iter().map(String::as_str).collect();
        all.extend([p1.as_str(), p2.as_str()]);
        let dir = log_with(&all);
        assert_eq!(names(&select(&dir, None).unwrap()), (Some(2), vec![3, 4]));
        assert_eq!(names(&select(&dir, Some(1)).unwrap()), (None, vec![0, 1]));
        assert_eq!(names(&select(&dir, Some(2)).unwrap()), (Some(2), vec![]));
    }

    #[test]
    fn an_incomplete_multi_part_checkpoint_is_ignored_unless_named() {
        let c: Vec<String> = (0..=2).map(C).collect();
        let p1 = part_name(1, 1, 2);
        let mut all: Vec<&str> = c.iter().map(String::as_str).collect();
        all.push(p1.as_str());
        let mut dir = log_with(&all);
        assert_eq!(names(&select(&dir, None).unwrap()), (None, vec![0, 1, 2]));
        dir.last_checkpoint = Some(br#"{"version":1,"size":3,"parts":2}"#.to_vec());
        let err = select(&dir, None).unwrap_err().to_string();
        assert!(
            err.contains(&part_name(1, 2, 2)) && err.contains("part 2 of 2"),
            "{err}"
        );
    }

    #[test]
    fn gaps_and_missing_versions_name_the_commit() {
        let dir = log_with(&[&C(0), &C(2)]);
        let err = select(&dir, None).unwrap_err().to_string();
        assert!(err.contains(&C(1)) && err.contains("missing"), "{err}");
        let dir = log_with(&[&C(0)]);
        let err = select(&dir, Some(5)).unwrap_err().to_string();
        assert!(err.contains("does not exist"), "{err}");
    }

    #[test]
    fn recognizes_names() {
        assert_eq!(
            classify("00000000000000000007.json"),
            Some(LogFile::Commit(7))
        );
        assert_eq!(
            classify("00000000000000000007.checkpoint.parquet"),
            Some(LogFile::SingleCheckpoint(7))
        );
        assert_eq!(
            classify("00000000000000000007.checkpoint.3fa85f64-5717-4562-b3fc-2c963f66afa6.json"),
            Some(LogFile::SingleCheckpoint(7))
        );
        assert_eq!(
            classify(&part_name(7, 1, 3)),
            Some(LogFile::Part {
                version: 7,
                part: 1,
                parts: 3
            })
        );
        assert_eq!(classify("00000000000000000007.crc"), None);
        assert_eq!(classify("_last_checkpoint"), None);
    }
}
