//! Progress of long replays: the observer sees the replay advance, and a replay long enough
//! for the bar writes nothing to a stderr that is not a terminal.

use std::io::Write;

use explain_core::replay::ReplayedTable;

use crate::support::{parse_report, run, taxi};

#[test]
fn the_observer_sees_every_live_file() {
    let mut seen = Vec::new();
    let table = ReplayedTable::open_observed(&taxi(), None, &mut |n| seen.push(n)).unwrap();
    assert!(!seen.is_empty(), "the observer is called at least once");
    assert!(
        seen.windows(2).all(|w| w[0] <= w[1]),
        "counts only grow: {seen:?}"
    );
    assert_eq!(seen.last().copied(), Some(table.files().len()));
}

/// One JSON commit of `files` adds with statistics: a log whose replay outlasts the bar's
/// delay in a test build.
fn wide_commit_table(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("_delta_log");
    std::fs::create_dir(&log).unwrap();
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(log.join("00000000000000000000.json")).unwrap(),
    );
    let schema = r#"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}]}"#;
    writeln!(
        out,
        r#"{{"protocol":{{"minReaderVersion":1,"minWriterVersion":2}}}}"#
    )
    .unwrap();
    writeln!(out, r#"{{"metaData":{{"id":"wide","format":{{"provider":"parquet","options":{{}}}},"schemaString":"{schema}","partitionColumns":[],"configuration":{{}},"createdTime":0}}}}"#).unwrap();
    for i in 0..files {
        let lo = i * 10;
        writeln!(
            out,
            r#"{{"add":{{"path":"part-{i:07}.parquet","partitionValues":{{}},"size":100,"modificationTime":0,"dataChange":true,"stats":"{{\"numRecords\":10,\"minValues\":{{\"id\":{lo}}},\"maxValues\":{{\"id\":{}}},\"nullCount\":{{\"id\":0}}}}"}}}}"#,
            lo + 9
        )
        .unwrap();
    }
    out.flush().unwrap();
    dir
}

#[test]
fn a_long_replay_leaves_a_piped_stderr_empty() {
    let dir = wide_commit_table(100_000);
    let table = dir.path().to_string_lossy().into_owned();
    let r = run(&[&table, "-w", "id < 1000", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.is_empty(),
        "no progress bar when stderr is a pipe: {:?}",
        r.stderr
    );
    let report = parse_report(&r.stdout);
    assert_eq!(report["total_files"], 100_000);
    assert_eq!(
        report["final_files"], 100,
        "ids below 1000 live in the first 100 files"
    );
}
