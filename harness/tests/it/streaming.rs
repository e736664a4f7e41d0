//! The streamed explanation (the replay's files explained window by window, no rows kept)
//! reports exactly what the explanation of the whole replayed table reports: per-file sets in
//! the replay's order, every count, volume, note, hazard and accepted value, the diagnoses of
//! `--explain-why`, the files `--assert-stats` names, the per-file view of `--verbose` and the
//! survivor sets of `--layers` (whole and cut by `--limit`), on every fixture
//! and on every metadata-only table shape, in windows of one scan batch, of a few files and of
//! the default size.

use explain_core::ast::ColumnRef;
use explain_core::diagnose::diagnose;
use explain_core::explain::{ExplainOptions, explain_with};
use explain_core::gates::stats_complete;
use explain_core::replay::{ReplayedTable, WINDOW_ROWS};
use explain_core::report::Report;
use explain_core::session::ReportRequest;
use explain_core::stream::{StreamRequest, explain_streaming};
use harness::scaling::TableShape;

use crate::phase_scans::{predicates_over, present_literal};

/// Window sizes: a window per scan batch, a few files, and the size the command uses.
const WINDOWS: [usize; 3] = [1, 5, WINDOW_ROWS];

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
            let limit = (window_files == 5).then_some(3);
            let request = StreamRequest {
                predicate: predicate.map(str::to_string),
                report: ReportRequest {
                    options,
                    explain_why: true,
                    assert_stats: true,
                    verbose: true,
                    limit,
                    layers: true,
                    ..ReportRequest::default()
                },
                window_files,
                ..StreamRequest::new(location)
            };
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
                streamed.explanation.after_partition, whole.after_partition,
                "{context}: partition survivors, file by file"
            );
            assert_eq!(
                streamed.explanation.kept, whole.kept,
                "{context}: kept files, file by file"
            );
            assert_eq!(
                streamed.report(0).to_json(),
                {
                    let mut report =
                        Report::build(cached, whole, 0).with_files(cached, whole, limit);
                    report.layers = explain_core::layers::Layers::build(cached, whole, limit);
                    report.to_json()
                },
                "{context}: the report"
            );
            assert_eq!(
                streamed.table.file_count(),
                cached.files().len(),
                "{context}"
            );
            let diagnoses =
                |d: &[explain_core::diagnose::Diagnosis]| serde_json::to_string_pretty(d).unwrap();
            assert_eq!(
                diagnoses(streamed.diagnoses.as_deref().unwrap_or_default()),
                diagnoses(&diagnose(cached, whole).unwrap()),
                "{context}: the diagnoses"
            );
            assert_eq!(
                streamed.stats_assertion,
                Some(stats_complete(cached, whole)),
                "{context}: --assert-stats"
            );
        }
    }
    (compiled, most_windows)
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
        let names = cached.columns().leaf_names();
        let first = format!("`{}`", names[0].replace('.', "`.`"));
        // The partition columns, and the first data columns: every kind of phase, kept quick.
        let partition_columns = cached.columns().partition_columns().to_vec();
        let chosen = partition_columns.iter().chain(
            names
                .iter()
                .filter(|n| !partition_columns.contains(n))
                .take(2),
        );
        for name in chosen {
            let column = ColumnRef::new(name.split('.'));
            let quoted = format!("`{}`", name.replace('.', "`.`"));
            let value = present_literal(&cached, &column).or_else(|| Some("1".to_string()));
            for predicate in predicates_over(&quoted, value.as_deref(), &first) {
                let (compiled, windows) =
                    assert_streams_alike(&location, &cached, Some(&predicate));
                compared += usize::from(compiled);
                windowed += usize::from(windows > 2);
            }
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
    for shape in TableShape::all_of(2_500) {
        let location = shape
            .write(dir.path())
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let cached = ReplayedTable::open(&location, None).unwrap();
        let mut predicates = vec![
            shape.predicate(),
            "value >= 0".to_string(),
            "id < 250000 OR value < 0".to_string(),
            "UPPER(CAST(id AS STRING)) = '7' AND id < 100000".to_string(),
        ];
        if shape.partitioned {
            predicates.extend([
                "p = 'p3'".to_string(),
                "p IN ('p1', 'p3') OR id < 5000".to_string(),
                "p = 'p9' AND id >= 2000000".to_string(),
                "p = 'no-such-partition'".to_string(),
            ]);
        }
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
