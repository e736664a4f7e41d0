//! The generator's operations on a written table (`generators::history`): deletes with
//! deletion vectors read alike by delta_kernel, the explainer's counts and the oracle; a log
//! compaction that changes no reader's table; and every version of an evolved table sound.

use explain_core::explain_request::ExplainRequest;
use explain_core::replay::ReplayedTable;
use explain_core::request::{Progress, explain_one};
use generators::history::{Op, evolve};
use harness::checks::{Outcome, soundness};
use harness::subject::Subject;

/// The live rows the oracle reads at `version`, each file's deletion vector applied.
fn oracle_live_rows(location: &str, version: u64) -> (u64, u64) {
    let snapshot = oracle::log::Snapshot::open(location, Some(version)).unwrap();
    snapshot.files.iter().fold((0, 0), |(live, all), f| {
        let read = oracle::read::read_file(&snapshot, f, None).unwrap();
        (live + read.live_rows, all + read.physical_rows)
    })
}

#[test]
fn deletes_with_deletion_vectors_are_read_alike_by_the_kernel_the_explainer_and_the_oracle() {
    let spec = generators::catalog::named("all-types").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = generators::writer::write_table(&spec, dir.path()).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let version = generators::deletes::delete_rows(&spec, &written, 7).unwrap();
    assert_eq!(version, written.version + 1);
    let table = ReplayedTable::open(&location, Some(version)).unwrap();
    let with_vectors: Vec<_> = table
        .files()
        .iter()
        .filter(|f| f.has_deletion_vector)
        .collect();
    assert_eq!(with_vectors.len(), 2, "two files given a vector");
    let deleted: u64 = with_vectors.iter().map(|f| f.deleted_records).sum();
    assert!(deleted > 0);
    let (live, all) = oracle_live_rows(&location, version);
    assert_eq!(all - live, deleted, "the oracle applies the same vectors");
    let request = ExplainRequest::new(&location).version(Some(version));
    let answer = Progress::silent(|p| explain_one(&request, p)).unwrap();
    assert_eq!(answer.report.total_live_records, Some(live));
    assert_eq!(answer.report.total_records, all);
    // Before the delete, the same files count every row.
    let (before, _) = oracle_live_rows(&location, written.version);
    assert_eq!(before, all);
    // Sound at the delete's version on a few predicates.
    let subject = Subject::load_at("all-types", &location, Some(version)).unwrap();
    for p in [
        "i64 > 0",
        "i32 < -100 OR s LIKE 'a%'",
        "dec IS NULL",
        "i8 = 3",
    ] {
        let outcome = soundness(&subject, p).outcome;
        assert!(
            matches!(outcome, Outcome::Pass | Outcome::Announced { .. }),
            "`{p}`: {outcome:?}"
        );
    }
}

#[test]
fn a_history_appends_its_operations_and_every_version_is_sound() {
    // Unpartitioned with integer columns, two commits of files: every operation applies.
    let mut spec = generators::catalog::named("all-types").unwrap();
    spec.columns.retain(|c| !c.partition);
    spec.layout = generators::spec::Layout::Random;
    let mut seen: Vec<Op> = Vec::new();
    for seed in 0..6u64 {
        let dir = tempfile::tempdir().unwrap();
        let written = generators::writer::write_table(&spec, dir.path()).unwrap();
        let location = dir.path().to_string_lossy().into_owned();
        let (last, ops) = evolve(&spec, &written, seed);
        assert_eq!(
            last,
            written.version + ops.iter().filter(|o| **o != Op::Compact).count() as u64,
            "a commit per rewrite and delete: {ops:?}"
        );
        if ops.contains(&Op::Compact) {
            let compacted = dir
                .path()
                .join(format!("_delta_log/{:020}.{last:020}.compacted.json", 1));
            assert!(compacted.is_file(), "{ops:?}");
        }
        for version in 1..=last {
            let subject = Subject::load_at("history", &location, Some(version)).unwrap();
            for p in [
                "i64 > 10",
                "i32 BETWEEN -300 AND 400",
                "s IS NULL",
                "f64 < 0",
            ] {
                let outcome = soundness(&subject, p).outcome;
                assert!(
                    matches!(
                        outcome,
                        Outcome::Pass | Outcome::Announced { .. } | Outcome::Skipped { .. }
                    ),
                    "seed {seed} @{version} `{p}`: {outcome:?}"
                );
            }
        }
        for op in ops {
            if !seen.contains(&op) {
                seen.push(op);
            }
        }
    }
    assert_eq!(seen.len(), 3, "every operation drawn: {seen:?}");
}

/// A table as of a version (`generators::history::as_of`) is that version for a reader that
/// reads only the latest: the same live files, deletion vectors and protocol as the log read
/// at that version, by the oracle and by delta_kernel, for every version of evolved tables
/// (checkpoints, deletes and compactions among them).
#[test]
fn a_table_as_of_a_version_is_that_version_for_a_reader_of_the_latest() {
    let mut compared = 0;
    for (name, seed) in [
        ("all-types", 3),
        ("checkpoint-classic", 7),
        ("clustered", 11),
        ("partition-types", 5),
    ] {
        let spec = generators::catalog::named_with_seed(name, seed).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let written = generators::writer::write_table(&spec, dir.path()).unwrap();
        let (last, _) = evolve(&spec, &written, seed);
        let root = dir.path().to_string_lossy().into_owned();
        for version in 0..=last {
            let copy = tempfile::tempdir().unwrap();
            generators::history::as_of(dir.path(), version, copy.path()).unwrap();
            let location = copy.path().to_string_lossy().into_owned();
            let at = oracle::log::Snapshot::open(&root, Some(version)).unwrap();
            let latest = oracle::log::Snapshot::open(&location, None).unwrap();
            assert_eq!(latest.version, version, "{name}@{version}");
            let files = |s: &oracle::log::Snapshot| {
                let mut f: Vec<String> = s
                    .files
                    .iter()
                    .map(|f| format!("{} {:?}", f.path, f.deletion_vector))
                    .collect();
                f.sort();
                f
            };
            assert_eq!(files(&latest), files(&at), "{name}@{version}");
            assert_eq!(
                format!("{:?}", latest.protocol),
                format!("{:?}", at.protocol),
                "{name}@{version}"
            );
            let kernel = |location: &str, v: Option<u64>| {
                let table = ReplayedTable::open(location, v).unwrap();
                let mut f: Vec<String> = table
                    .paths()
                    .zip(table.files())
                    .map(|(path, f)| format!("{path} {}", f.deleted_records))
                    .collect();
                f.sort();
                f
            };
            assert_eq!(
                kernel(&location, None),
                kernel(&root, Some(version)),
                "{name}@{version}"
            );
            compared += 1;
        }
    }
    assert!(compared >= 10, "{compared} versions");
}

/// The conformance campaign with histories asks every reader about every version of each
/// evolved table (`name@version` in its tallies) and counts the operations.
#[test]
fn the_conformance_campaign_reads_every_version_of_a_history() {
    use harness::conformance::kernel::KernelAdapter;
    use harness::conformance::{Adapter, ConformanceOptions, run};
    let options = ConformanceOptions {
        seconds: 600,
        max_cases: Some(60),
        seed: 4,
        predicates_per_table: 4,
        work_dir: None,
        out: None,
        fixtures: Vec::new(),
        histories: true,
    };
    let mut adapters: Vec<Box<dyn Adapter>> = vec![Box::new(KernelAdapter::default())];
    let report = run(&options, &mut adapters, &mut |_, _| {}).unwrap();
    assert!(report.versions > report.tables, "{report:#?}");
    assert!(!report.history_ops.is_empty(), "{report:#?}");
    let tally = &report.engines["kernel"];
    let versions_read = tally.by_table.keys().filter(|t| t.contains('@')).count() as u64;
    assert_eq!(
        versions_read,
        report.versions,
        "{:?}",
        tally.by_table.keys()
    );
    assert_eq!(tally.cases, report.versions * 4);
    let out = tempfile::tempdir().unwrap();
    harness::conformance::page::write(out.path(), &report, "campaign --histories").unwrap();
    let readme = std::fs::read_to_string(out.path().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("{} versions in all", report.versions)),
        "{readme}"
    );
}

/// A file with a deletion vector records its data file's `numRecords` (the protocol's writer
/// requirement): the generator's deletes write it on a table written without statistics, and a
/// table whose vector file lacks it is invalid, so no reader is blamed for refusing it.
#[test]
fn a_file_with_a_deletion_vector_records_its_row_count() {
    let spec = generators::catalog::named_with_seed("stats-missing", 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = generators::writer::write_table(&spec, dir.path()).unwrap();
    let version = generators::deletes::delete_rows(&spec, &written, 3).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let snapshot = oracle::log::Snapshot::open(&location, Some(version)).unwrap();
    let with_vectors: Vec<_> = snapshot
        .files
        .iter()
        .filter(|f| f.deletion_vector.is_some())
        .collect();
    assert!(!with_vectors.is_empty());
    for f in &with_vectors {
        let read = oracle::read::read_file(&snapshot, f, None).unwrap();
        assert_eq!(f.num_records(), Some(read.physical_rows), "{}", f.path);
    }
    let table = harness::conformance::TableUnderTest::load(&location, "stats-missing", 3).unwrap();
    assert!(harness::conformance::validate::problems(&table).is_empty());
    // The same commit without the counts.
    let commit = dir.path().join(format!("_delta_log/{version:020}.json"));
    let text = std::fs::read_to_string(&commit).unwrap();
    let stripped: Vec<String> = text
        .lines()
        .map(|line| {
            let mut action: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(add) = action.get_mut("add").and_then(|a| a.as_object_mut()) {
                add.remove("stats");
            }
            action.to_string()
        })
        .collect();
    std::fs::write(&commit, stripped.join("\n") + "\n").unwrap();
    let table = harness::conformance::TableUnderTest::load(&location, "stats-missing", 3).unwrap();
    let problems = harness::conformance::validate::problems(&table);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("without the data file's `numRecords`")),
        "{problems:?}"
    );
}
