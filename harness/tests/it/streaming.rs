//! The streamed explanation (the replay's files explained window by window, no rows kept)
//! reports exactly what the explanation of the whole replayed table reports: per-file sets in
//! the replay's order, every count, volume, note, hazard and accepted value, the diagnoses of
//! `--explain-why`, the files `--assert-stats` names, the per-file view of `--verbose` and the
//! survivor sets of `--layers` (whole and cut by `--limit`), on every fixture
//! and on every metadata-only table shape, in windows of one scan batch, of a few files and of
//! the default size. Many predicates streamed over one replay (`--predicates`, `--budget`)
//! report what each reports alone against the whole table, each with its own request, a bad
//! predicate an error in its place.

use explain_compiler::ast::ColumnRef;
use explain_core::diagnose::diagnose;
use explain_core::explain::{ExplainOptions, explain_with};
use explain_core::gates::stats_complete;
use explain_core::replay::{ReplayedTable, WINDOW_ROWS};
use explain_core::report::Report;
use explain_core::request::{ExplainRequest, Options};
use explain_core::session::Session;
use explain_core::stream::{explain_streaming, report_many_streaming};
use harness::scaling::TableShape;

use crate::phase_scans::{predicates_over, present_literal};

/// Window sizes: a window per scan batch, a few files, and the size the command uses. The few
/// are an even count: a window handed on while the replay leaves its core idle (once it has
/// sent its last batch, on these small logs nearly at once) is scanned in two halves of two
/// files, each on a thread, and must answer as one scan does.
const WINDOWS: [usize; 3] = [1, 4, WINDOW_ROWS];

/// Explains `predicate` on `location` both ways and asserts they agree; whether it compiled,
/// and the most windows a streamed run took.
fn assert_streams_alike(
    location: &str,
    cached: &ReplayedTable,
    predicate: Option<&str>,
) -> (bool, usize) {
    let mut compiled = false;
    let mut most_windows = 0;
    for strict in [false, true] {
        let options = ExplainOptions { strict };
        let context = format!("{location}: {predicate:?} (strict: {strict})");
        let whole = explain_with(cached, predicate, options);
        for window_files in WINDOWS {
            let context = format!("{context}, windows of {window_files}");
            // Every file listed, and the view cut short (the first files of the whole table
            // are the first of the windows' first).
            let limit = (window_files == 4).then_some(3);
            let mut request = ExplainRequest::new(location)
                .predicate(predicate.map(str::to_string))
                .options(Options {
                    strict,
                    explain_why: true,
                    assert_stats: true,
                    verbose: true,
                    limit,
                    layers: true,
                    ..Options::default()
                });
            request.window_files = window_files;
            let streamed = explain_streaming(&request, &mut |_| {});
            let (whole, streamed) = match (&whole, streamed) {
                (Ok(whole), Ok(streamed)) => (whole, streamed),
                (Err(a), Err(b)) => {
                    assert_eq!(a.to_string(), b.to_string(), "{context}: the same refusal");
                    continue;
                }
                (a, b) => panic!(
                    "{context}: whole {:?}, streamed {:?}",
                    a.as_ref().err().map(ToString::to_string),
                    b.err().map(|e| e.to_string())
                ),
            };
            compiled = true;
            most_windows = most_windows.max(streamed.windows);
            if window_files == WINDOW_ROWS {
                assert_eq!(
                    streamed.windows, 1,
                    "{context}: a small table is one window"
                );
            }
            assert_eq!(
                streamed.explained.explanation.after_partition, whole.after_partition,
                "{context}: partition survivors, file by file"
            );
            assert_eq!(
                streamed.explained.explanation.kept, whole.kept,
                "{context}: kept files, file by file"
            );
            assert_eq!(
                streamed.report(0).to_json(),
                {
                    let mut report =
                        Report::build(cached, whole, 0).with_files(cached, whole, limit);
                    report.layers =
                        explain_core::report::layers::Layers::build(cached, whole, limit);
                    // `analysis.stats_coverage`, which one predicate's report always carries.
                    if let Some(analysis) = &mut report.analysis {
                        use explain_core::coverage::{CoveragePlan, gather};
                        let plan = CoveragePlan::new(cached.columns(), whole);
                        analysis.stats_coverage = Some(gather(cached, whole, &plan).entries(&plan));
                    }
                    report.to_json()
                },
                "{context}: the report"
            );
            assert_eq!(
                streamed.table.file_count(),
                cached.files().len(),
                "{context}"
            );
            let diagnoses = |d: &[explain_core::report::diagnoses::Diagnosis]| {
                serde_json::to_string_pretty(d).unwrap()
            };
            assert_eq!(
                diagnoses(streamed.explained.diagnoses.as_deref().unwrap_or_default()),
                diagnoses(&diagnose(cached, whole).unwrap()),
                "{context}: the diagnoses"
            );
            assert_eq!(
                streamed.explained.stats_assertion,
                Some(stats_complete(cached, whole)),
                "{context}: --assert-stats"
            );
        }
    }
    (compiled, most_windows)
}

/// Per chosen column of a fixture (the partition columns and the first two data columns:
/// every kind of phase, kept quick), the predicates `predicates_over` writes for it.
fn fixture_predicates(cached: &ReplayedTable) -> Vec<Vec<String>> {
    let names = cached.columns().leaf_names();
    let first = format!("`{}`", names[0].replace('.', "`.`"));
    let partition_columns = cached.columns().partition_columns().to_vec();
    let chosen = partition_columns.iter().chain(
        names
            .iter()
            .filter(|n| !partition_columns.contains(n))
            .take(2),
    );
    chosen
        .map(|name| {
            let column = ColumnRef::new(name.split('.'));
            let quoted = format!("`{}`", name.replace('.', "`.`"));
            let value = present_literal(cached, &column).or_else(|| Some("1".to_string()));
            predicates_over(&quoted, value.as_deref(), &first)
        })
        .collect()
}

/// Every metadata-only table shape of 2,500 files, written under `dir`: where it
/// is, its replay, and predicates of every class over it (all of which compile).
fn shape_tables(dir: &std::path::Path) -> Vec<(String, ReplayedTable, Vec<String>)> {
    TableShape::all_of(2_500)
        .into_iter()
        .map(|shape| {
            let location = shape.write(dir).unwrap().to_string_lossy().into_owned();
            let cached = ReplayedTable::open(&location, None).unwrap();
            let mut predicates = vec![
                shape.predicate(),
                "value >= 0".to_string(),
                "id < 250000 OR value < 0".to_string(),
                "UPPER(CAST(id AS STRING)) = '7' AND id < 100000".to_string(),
            ];
            if shape.partitioning.has_partition_column() {
                predicates.extend([
                    "p = 'p3'".to_string(),
                    "p IN ('p1', 'p3') OR id < 5000".to_string(),
                    "p = 'p9' AND id >= 2000000".to_string(),
                    "p = 'no-such-partition'".to_string(),
                ]);
            }
            (location, cached, predicates)
        })
        .collect()
}

#[test]
fn streamed_explanations_equal_whole_ones_on_every_fixture() {
    let (mut compared, mut windowed) = (0usize, 0usize);
    for table_dir in testkit::all_tables() {
        let location = table_dir.to_string_lossy().into_owned();
        let Ok(cached) = ReplayedTable::open(&location, None) else {
            continue;
        };
        assert_streams_alike(&location, &cached, None);
        for predicate in fixture_predicates(&cached).into_iter().flatten() {
            let (compiled, windows) = assert_streams_alike(&location, &cached, Some(&predicate));
            compared += usize::from(compiled);
            windowed += usize::from(windows > 2);
        }
        // A misspelt column is refused alike.
        assert_streams_alike(&location, &cached, Some("no_such_column_anywhere = 1"));
    }
    assert!(compared >= 100, "only {compared} predicates compared");
    assert!(
        windowed >= 50,
        "only {windowed} predicates were explained in more than two windows"
    );
}

#[test]
fn streamed_explanations_equal_whole_ones_on_every_table_shape() {
    let dir = tempfile::tempdir().unwrap();
    for (location, cached, predicates) in shape_tables(dir.path()) {
        assert!(assert_streams_alike(&location, &cached, None).1 > 2);
        for predicate in &predicates {
            let (compiled, windows) = assert_streams_alike(&location, &cached, Some(predicate));
            assert!(compiled, "{location}: `{predicate}` compiles");
            assert!(
                windows > 2,
                "{location}: `{predicate}` in {windows} windows"
            );
        }
    }
}

/// A table partitioned by a column of high cardinality, every file a partition of its own:
/// each window uses a few of the table's partition ids, far from the first, so the
/// per-partition tables of a window (`PerPartition`) are offset from id 0.
#[test]
fn streamed_explanations_equal_whole_ones_with_a_partition_per_file() {
    // Enough files for a checkpoint to be read in several scan batches, so several windows.
    const FILES: usize = 2_500;
    let dir = tempfile::tempdir().unwrap();
    for checkpoint in [true, false] {
        let location = dir.path().join(format!("partition-per-file-{checkpoint}"));
        generators::writer::write_metadata_only(&location, FILES, FILES, checkpoint, 250).unwrap();
        let location = location.to_string_lossy().into_owned();
        let cached = ReplayedTable::open(&location, None).unwrap();
        assert_eq!(cached.partitions().len(), FILES, "{location}");
        for predicate in [
            "p = 'p3'",
            "p = 'p2499' AND id < 100",
            "p >= 'p2490' AND id >= 0",
            "p IN ('p7', 'p1250') OR id < 5000",
            "p = 'no-such-partition'",
        ] {
            let (compiled, windows) = assert_streams_alike(&location, &cached, Some(predicate));
            assert!(compiled, "{location}: `{predicate}` compiles");
            assert!(
                windows > 2,
                "{location}: `{predicate}` in {windows} windows"
            );
        }
    }
}

/// Each entry's request: every section and gate in turn, so each predicate is seen to be
/// reported with its own request, not its neighbour's.
fn entry_request(i: usize, strict: bool) -> Options {
    Options {
        strict,
        min_pruning: i.is_multiple_of(3).then_some(50.0),
        min_files: (i % 4 == 1).then_some(2),
        assert_stats: i.is_multiple_of(2),
        verbose: i % 3 != 2,
        limit: (i % 5 == 1).then_some(2),
        layers: i % 2 == 1,
        explain_why: i % 3 == 1,
        ..Options::default()
    }
}

/// `predicates` streamed together equal each one's report from the whole replayed table, in
/// every window size and on one and two workers; returns the most windows a run took.
fn assert_many_stream_alike(
    location: &str,
    cached: &ReplayedTable,
    predicates: &[String],
) -> usize {
    let session = Session::new(cached);
    let mut most_windows = 0;
    for strict in [false, true] {
        let entries: Vec<(String, Options)> = predicates
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), entry_request(i, strict)))
            .collect();
        let alone: Vec<_> = entries
            .iter()
            .map(|(p, o)| session.report(Some(p), &o.report_request(), std::time::Instant::now()))
            .collect();
        for window_files in WINDOWS {
            for workers in [1, 2] {
                let context = format!(
                    "{location} (strict: {strict}), windows of {window_files}, {workers} workers"
                );
                let mut request = ExplainRequest::new(location).predicates(entries.clone());
                request.window_files = window_files;
                request.workers = workers;
                let streamed = report_many_streaming(&request, &mut |_| {})
                    .unwrap_or_else(|e| panic!("{context}: {e}"));
                most_windows = most_windows.max(streamed.windows);
                assert_eq!(streamed.reports.len(), entries.len(), "{context}");
                for (((predicate, _), alone), streamed) in
                    entries.iter().zip(&alone).zip(streamed.reports)
                {
                    let context = format!("{context}: `{predicate}`");
                    match (alone, streamed) {
                        (Ok((a, fa)), Ok((mut b, fb))) => {
                            let mut a = a.clone();
                            a.elapsed_ms = 0;
                            b.elapsed_ms = 0;
                            assert_eq!(b.to_json(), a.to_json(), "{context}: the report");
                            assert_eq!(&fb, fa, "{context}: the failed gates");
                        }
                        (Err(a), Err(b)) => {
                            assert_eq!(b.to_string(), a.to_string(), "{context}: the error");
                            assert_eq!(b.exit_code(), a.exit_code(), "{context}: the exit code");
                        }
                        (a, b) => panic!(
                            "{context}: alone {:?}, streamed {:?}",
                            a.as_ref().err().map(ToString::to_string),
                            b.err().map(|e| e.to_string())
                        ),
                    }
                }
            }
        }
    }
    most_windows
}

#[test]
fn many_streamed_predicates_equal_their_whole_reports_on_every_fixture() {
    let mut compared = 0usize;
    for table_dir in testkit::all_tables() {
        let location = table_dir.to_string_lossy().into_owned();
        let Ok(cached) = ReplayedTable::open(&location, None) else {
            continue;
        };
        let mut predicates = vec![
            // Refused in its place: the others go on.
            "no_such_column_anywhere = 1".to_string(),
            "this is not sql (".to_string(),
        ];
        for over_column in fixture_predicates(&cached) {
            predicates.extend(over_column.into_iter().take(6));
        }
        compared += predicates.len();
        assert_many_stream_alike(&location, &cached, &predicates);
    }
    assert!(compared >= 100, "only {compared} predicates compared");
}

#[test]
fn many_streamed_predicates_equal_their_whole_reports_on_every_table_shape() {
    let dir = tempfile::tempdir().unwrap();
    for (location, cached, mut predicates) in shape_tables(dir.path()) {
        // Refused in its place: the others go on.
        predicates.push("no_such_column = 3".to_string());
        let windows = assert_many_stream_alike(&location, &cached, &predicates);
        assert!(windows > 2, "{location}: {windows} windows");
    }
}
