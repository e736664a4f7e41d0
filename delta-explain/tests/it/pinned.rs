//! An explanation answers for the snapshot it opened: a commit that lands in the middle (here,
//! one that removes every file and adds one) changes nothing in its phase scans or its
//! report, while a new explanation sees the new version. And nothing is ever written: the
//! binary explains a copy with no write bits, which stays byte for byte the same.

use explain_core::explain::{ExplainOptions, explain_with};
use explain_core::replay::ReplayedTable;

use crate::support::{copy_table, fixtures, run};

const PREDICATE: &str = "pickup_date = '2024-01-03' AND trip_distance > 5";

#[test]
fn a_commit_landing_mid_explanation_does_not_change_its_answer() {
    let (_dir, table) = copy_table(&fixtures().join("taxi-nyc"));
    let location = table.to_string_lossy().into_owned();
    let opened = ReplayedTable::open(&location, None).unwrap();
    let before = explain_with(&opened, Some(PREDICATE), ExplainOptions::default()).unwrap();
    let paths: Vec<String> = opened.paths().map(str::to_string).collect();
    // The next commit: every live file removed, one new file added.
    let mut commit: String = paths
        .iter()
        .map(|p| {
            format!(
                "{{\"remove\":{{\"path\":\"{p}\",\"deletionTimestamp\":1,\"dataChange\":true}}}}\n"
            )
        })
        .collect();
    commit.push_str(
        "{\"add\":{\"path\":\"pickup_date=2024-01-03/new.parquet\",\"partitionValues\":{\"pickup_date\":\"2024-01-03\"},\"size\":1,\"modificationTime\":1,\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":1}\"}}\n",
    );
    let next = table
        .join("_delta_log")
        .join(format!("{:020}.json", opened.version() + 1));
    std::fs::write(&next, commit).unwrap();
    // The same replay, asked again after the commit: the same answer, file for file.
    let after = explain_with(&opened, Some(PREDICATE), ExplainOptions::default()).unwrap();
    assert_eq!(
        after.kept, before.kept,
        "the survivors of the pinned snapshot"
    );
    assert_eq!(after.after_partition, before.after_partition);
    assert_eq!(
        opened.paths().map(str::to_string).collect::<Vec<_>>(),
        paths
    );
    // A new explanation sees the commit.
    let reopened = ReplayedTable::open(&location, None).unwrap();
    assert_eq!(reopened.version(), opened.version() + 1);
    assert_eq!(reopened.files().len(), 1);
    // And the old version stays reachable by number.
    let pinned = ReplayedTable::open(&location, Some(opened.version())).unwrap();
    let again = explain_with(&pinned, Some(PREDICATE), ExplainOptions::default()).unwrap();
    assert_eq!(again.kept, before.kept);
}

#[test]
fn a_read_only_table_is_explained_and_left_unchanged() {
    let (_dir, table) = copy_table(&fixtures().join("real/dv-partitioned-with-checkpoint"));
    let files = tree(&table);
    set_read_only(&table, true);
    let location = table.to_string_lossy().into_owned();
    for args in [
        vec![location.as_str(), "-w", "col1 > 3", "--explain-why", "-v"],
        vec![
            location.as_str(),
            "--layers",
            "-w",
            "part = 1 OR col2 < 'b'",
        ],
    ] {
        let r = run(&args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    set_read_only(&table, false);
    assert_eq!(tree(&table), files, "the table is byte for byte the same");
}

fn set_read_only(dir: &std::path::Path, read_only: bool) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            set_read_only(&path, read_only);
        }
        let mut permissions = std::fs::metadata(&path).unwrap().permissions();
        permissions.set_readonly(read_only);
        std::fs::set_permissions(&path, permissions).unwrap();
    }
}

/// Every file under `dir` with its bytes.
fn tree(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.push((
                    e.path().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                ));
            }
        }
    }
    out.sort();
    out
}
