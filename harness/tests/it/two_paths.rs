//! One reader, two paths: every catalog table that allows it, written with JSON statistics,
//! with a `stats_parsed`-only checkpoint and with a log compaction, keeps the same files for
//! every predicate drawn (no row read), or more on the typed path where a timestamp lies within
//! a millisecond of a bound (delta_kernel's JSON of `stats_parsed` keeps milliseconds); and a
//! path that reads other statistics on purpose is caught.

use explain_core::replay::ReplayedTable;
use generators::predicates::{Pools, sample_predicates};
use harness::checks::Outcome;
use harness::two_paths::TwoPaths;

#[test]
fn every_catalog_table_keeps_the_same_files_on_every_path() {
    let mut checked = 0;
    let mut looser = 0;
    let mut tables = 0;
    for name in generators::catalog::NAMES {
        let spec = generators::catalog::named(name).unwrap();
        let paths = match TwoPaths::write(&spec, None) {
            Ok(paths) => paths,
            // A table the readers must refuse, or a log with nothing to compact.
            Err(reason) => {
                assert!(
                    reason.contains("refuse") || reason.contains("nothing to compact"),
                    "{name}: {reason}"
                );
                continue;
            }
        };
        tables += 1;
        let dir = tempfile::tempdir().unwrap();
        let written = generators::writer::write_table(&spec, dir.path()).unwrap();
        let pools = Pools::from_table(&spec, &written);
        for p in sample_predicates(&pools, 3, 20261207, 12) {
            let sql = p.to_string();
            match paths.same_files(&sql) {
                Outcome::Pass => checked += 1,
                Outcome::Announced { message } => {
                    assert!(
                        message.contains("the stats_parsed path keeps"),
                        "{name}: `{sql}`: {message}"
                    );
                    looser += 1;
                }
                Outcome::Skipped { .. } => {}
                other => panic!("{name}: `{sql}`: {other:?}"),
            }
        }
    }
    assert!(tables >= 20, "{tables} tables written three ways");
    assert!(checked >= 200, "{checked} predicates checked");
    assert!(looser <= checked / 50, "{looser} looser of {checked}");
}

/// The typed path keeps a file the JSON path prunes where a timestamp lies within a
/// millisecond of its bound: the file's minimum `2021-01-18 23:16:13.501739`, as JSON, prunes
/// `ts = '... .501738'`; read from `stats_parsed` through the kernel it is `... .501`, which
/// does not. Sound, less tight: announced, not a failure.
#[test]
fn a_timestamp_within_a_millisecond_of_its_bound_is_looser_on_the_typed_path() {
    let spec = generators::catalog::named("checkpoint-hint-ahead").unwrap();
    let paths = TwoPaths::write(&spec, None).unwrap();
    let outcome = paths.same_files("ts = '2021-01-18 23:16:13.501738'");
    let Outcome::Announced { message } = outcome else {
        panic!("{outcome:?}");
    };
    assert!(
        message.contains("the stats_parsed path keeps 1 more than the json path"),
        "{message}"
    );
    // A millisecond away, every path prunes it.
    assert_eq!(
        paths.same_files("ts = '2021-01-18 23:16:13.500738'"),
        Outcome::Pass
    );
}

/// A path whose statistics differ (one file's `stats` dropped from its commit, as a replay
/// that failed to parse them would leave it) keeps that file where the JSON path prunes it.
#[test]
fn a_path_reading_other_statistics_is_caught() {
    let spec = generators::catalog::named("all-types").unwrap();
    let dir = tempfile::tempdir().unwrap();
    generators::writer::write_table(&spec, dir.path()).unwrap();
    let (_copy, broken) = testkit::copy_table(dir.path());
    let commit = broken.join("_delta_log/00000000000000000001.json");
    let text = std::fs::read_to_string(&commit).unwrap();
    let mut dropped = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut action: serde_json::Value = serde_json::from_str(l).unwrap();
            if !dropped && let Some(add) = action.get_mut("add") {
                add.as_object_mut().unwrap().remove("stats");
                dropped = true;
            }
            action.to_string()
        })
        .collect();
    assert!(dropped, "commit 1 adds a file");
    std::fs::write(&commit, lines.join("\n") + "\n").unwrap();
    let open = |p: &std::path::Path| ReplayedTable::open(&p.to_string_lossy(), None).unwrap();
    let paths = TwoPaths::from_tables(vec![("json", open(dir.path())), ("broken", open(&broken))]);
    // Every file with statistics is pruned; the one without is kept.
    let outcome = paths.same_files("i64 < -9223372036854775807");
    let Outcome::Fail { message } = outcome else {
        panic!("not caught: {outcome:?}");
    };
    assert!(
        message.contains("the broken path keeps 1 file(s)"),
        "{message}"
    );
    // The same table twice holds.
    let same = TwoPaths::from_tables(vec![
        ("json", open(dir.path())),
        ("again", open(dir.path())),
    ]);
    assert_eq!(same.same_files("i64 < -9223372036854775807"), Outcome::Pass);
}
