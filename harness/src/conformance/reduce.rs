//! The table half of the shrinker: the fewest live files of a table that still show a finding.
//!
//! A reduced table is a copy of the table whose log gains one commit removing the other live
//! files (each `remove` names the file's path and deletion vector, as the protocol reconciles
//! files), their Parquet files deleted from the copy. Everything else a reader could trip on
//! stays as written: the checkpoints, the protocol and its features, column mapping, deletion
//! vectors, the partition spellings. Files are removed in halves, then quarters, down to one
//! at a time (the chunked half of delta debugging); a candidate is kept only where the reader
//! still shows the finding on it, so a reduction never invents one.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::{Adapter, TableUnderTest};

/// At most this many candidate tables are tried per finding (each is a copy, a replay and
/// the reader's and the truth's readings).
const MAX_CANDIDATES: usize = 24;

/// A reduced copy of a table, in a temp dir that lives as long as it.
pub struct Reduced {
    pub table: TableUnderTest,
    _dir: tempfile::TempDir,
}

/// The smallest table reachable from `table` by removing live files on which `shows` still
/// holds, or `None` where no file can go. `shows` is asked after the adapter has opened the
/// candidate; the caller opens the adapter on the table it reads next.
pub fn reduce(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    shows: &dyn Fn(&mut dyn Adapter, &TableUnderTest) -> bool,
) -> Option<Reduced> {
    let n = table.files();
    let mut keep: Vec<usize> = (0..n).collect();
    let mut best: Option<Reduced> = None;
    let mut tried = 0usize;
    let mut chunk = n.div_ceil(2).max(1);
    'sizes: while keep.len() > 1 {
        let mut start = 0;
        while start < keep.len() {
            if tried >= MAX_CANDIDATES {
                break 'sizes;
            }
            let end = (start + chunk).min(keep.len());
            let candidate: Vec<usize> = keep[..start].iter().chain(&keep[end..]).copied().collect();
            if candidate.is_empty() {
                start = end;
                continue;
            }
            tried += 1;
            let held = build(table, &candidate).ok().filter(|reduced| {
                matches!(adapter.open(&reduced.table), Ok(Ok(()))) && shows(adapter, &reduced.table)
            });
            match held {
                Some(reduced) => {
                    keep = candidate;
                    best = Some(reduced);
                }
                None => start = end,
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    best
}

/// A copy of `table` keeping the live files `keep` (indices in the replay's order).
fn build(table: &TableUnderTest, keep: &[usize]) -> Result<Reduced, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let source = Path::new(&table.location);
    generators::history::copy(source, dir.path())?;
    let snapshot = &table.loaded.snapshot;
    let mut actions = Vec::new();
    let ict = snapshot
        .metadata
        .configuration
        .get("delta.enableInCommitTimestamps")
        .and_then(|v| v.as_deref())
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let now = chrono::Utc::now().timestamp_millis();
    // With in-commit timestamps the commit's time is its first action's.
    let mut info = json!({"timestamp": now, "operation": "DELETE",
        "operationParameters": {"predicate": "[\"reduced by the conformance shrinker\"]"}});
    if ict {
        info["inCommitTimestamp"] = json!(now);
    }
    actions.push(json!({ "commitInfo": info }));
    for (i, file) in snapshot.files.iter().enumerate() {
        if keep.contains(&i) {
            continue;
        }
        let mut remove = json!({"path": file.path, "deletionTimestamp": now,
            "dataChange": true, "size": file.size});
        if let Some(dv) = &file.deletion_vector {
            remove["deletionVector"] = serde_json::to_value(dv).map_err(|e| e.to_string())?;
        }
        actions.push(json!({ "remove": remove }));
        if let Some(local) = local_file(dir.path(), &file.path) {
            let _ = std::fs::remove_file(local);
        }
    }
    delta_commit::write_commit(
        &dir.path().join("_delta_log"),
        snapshot.version + 1,
        &actions,
    )
    .map_err(|e| e.to_string())?;
    let location = dir.path().to_string_lossy().into_owned();
    let reduced = TableUnderTest::load(&location, &table.spec, table.seed)?;
    Ok(Reduced {
        table: reduced,
        _dir: dir,
    })
}

/// The copy's file for a log path relative to the table (an absolute URL names a file
/// outside the copy: left alone).
fn local_file(root: &Path, log_path: &str) -> Option<PathBuf> {
    if log_path.contains("://") || log_path.starts_with('/') {
        return None;
    }
    Some(root.join(oracle::readers::decoded(log_path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that opens every table; the test's `shows` stands for its finding.
    struct Opens;

    impl Adapter for Opens {
        fn name(&self) -> &'static str {
            "opens"
        }
        fn version(&self) -> Result<String, String> {
            Ok("0".into())
        }
        fn open(&mut self, _: &TableUnderTest) -> Result<Result<(), String>, String> {
            Ok(Ok(()))
        }
        fn read(&mut self, _: &TableUnderTest, _: &str) -> Result<super::super::Reading, String> {
            unreachable!("the test asks `shows` directly")
        }
        fn truth(
            &mut self,
            _: &TableUnderTest,
            _: &str,
        ) -> Result<oracle::engines::Answer, String> {
            unreachable!("the test asks `shows` directly")
        }
    }

    #[test]
    fn a_finding_tied_to_one_file_reduces_to_that_file_and_the_copy_reads() {
        let source = testkit::fixtures().join("taxi-nyc");
        let table = TableUnderTest::load(&source.to_string_lossy(), "taxi-nyc", 0).unwrap();
        assert!(table.files() > 4, "a table of several files");
        let wanted = table.loaded.snapshot.files[table.files() / 2].path.clone();
        // The finding shows while that one file is live (a reader losing its rows, say).
        let reduced = reduce(&mut Opens, &table, &|_, t| t.file_index(&wanted).is_some())
            .expect("files can go");
        assert_eq!(reduced.table.files(), 1);
        assert_eq!(reduced.table.loaded.snapshot.files[0].path, wanted);
        // The removed files' Parquet is gone from the copy; the kept one reads with its rows.
        let parquet = |dir: &Path| {
            walk(dir)
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
                .filter(|p| !p.to_string_lossy().contains("_delta_log"))
                .count()
        };
        assert_eq!(parquet(Path::new(&reduced.table.location)), 1);
        assert!(
            reduced
                .table
                .loaded
                .rows()
                .iter()
                .map(|b| b.num_rows())
                .sum::<usize>()
                > 0
        );
        // The shared fixture itself is untouched.
        assert_eq!(
            TableUnderTest::load(&source.to_string_lossy(), "taxi-nyc", 0)
                .unwrap()
                .files(),
            table.files()
        );
    }

    fn walk(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
        out
    }
}
