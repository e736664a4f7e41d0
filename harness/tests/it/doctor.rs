//! `doctor` on generated tables whose statistics settings leave columns out: it names the
//! columns a predicate uses without statistics and the property that would give them some.

use explain_core::doctor::doctor;
use explain_core::explain_request::{ExplainRequest, Options};

#[test]
fn a_three_column_budget_leaves_the_fifth_column_without_statistics_and_says_the_fix() {
    // `stats-indexed-cols`: delta.dataSkippingNumIndexedCols = 3 over i8, i16, i32, i64, f32, ...
    let spec = generators::catalog::named("stats-indexed-cols").unwrap();
    let dir = tempfile::tempdir().unwrap();
    generators::writer::write_table(&spec, dir.path()).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let request = ExplainRequest::new(&location).predicates(vec![
        ("f32 > 0.5".to_string(), Options::default()),
        ("i16 < 3 AND p_int = 1".to_string(), Options::default()),
    ]);
    let d = doctor(&request).unwrap();
    assert_eq!(d.statistics.num_indexed_cols, 3);
    assert_eq!(d.statistics.indexed, ["i8", "i16", "i32"]);
    assert!(d.statistics.not_indexed.contains(&"f32".to_string()));
    let f32_stats = d.columns.iter().find(|c| c.column == "f32").unwrap();
    assert!(!f32_stats.indexed);
    assert_eq!(f32_stats.files_with_min_max, 0, "{f32_stats:?}");
    assert_eq!(d.workload[0].columns_without_stats, ["f32"]);
    assert!(
        d.workload[0]
            .reasons
            .iter()
            .any(|r| r.code == "STATS_ABSENT"),
        "{:?}",
        d.workload[0].reasons
    );
    assert!(d.workload[1].columns_without_stats.is_empty());
    let fix = d.fix.expect("a fix for f32");
    assert_eq!(fix.columns, ["f32"]);
    assert!(
        fix.statement
            .contains("'delta.dataSkippingStatsColumns' = 'i8,i16,i32,f32'"),
        "{}",
        fix.statement
    );
    assert!(fix.caveat.contains("only files written after"));
    assert_eq!(
        fix.files_without_their_stats, d.layout.files,
        "no file records f32"
    );
    // The layout of the written table.
    assert_eq!(
        d.layout.files,
        d.columns[0].files_with_null_count + d.layout.files_without_stats
    );
    assert!(d.layout.partitions > 0);
}

#[test]
fn a_table_whose_workload_has_statistics_needs_no_fix() {
    let spec = generators::catalog::named("all-types").unwrap();
    let dir = tempfile::tempdir().unwrap();
    generators::writer::write_table(&spec, dir.path()).unwrap();
    let request = ExplainRequest::new(&dir.path().to_string_lossy())
        .predicate(Some("f32 > 0.5 AND s = 'a'".into()));
    let d = doctor(&request).unwrap();
    assert!(d.statistics.not_indexed.is_empty(), "{:?}", d.statistics);
    assert!(d.fix.is_none());
    assert_eq!(d.workload.len(), 1);
    assert!(d.workload[0].error.is_none());
}

/// `strings-truncated`: string maxima cut to 3 characters with a tie-breaker after them, as
/// Spark writes them; the doctor reports the prefix length.
#[test]
fn truncated_string_bounds_are_reported_with_their_prefix_length() {
    let spec = generators::catalog::named("strings-truncated").unwrap();
    let dir = tempfile::tempdir().unwrap();
    generators::writer::write_table(&spec, dir.path()).unwrap();
    let d = doctor(&ExplainRequest::new(&dir.path().to_string_lossy())).unwrap();
    let s = d
        .string_bounds
        .iter()
        .find(|b| b.column == "s")
        .expect("the string column");
    assert!(s.truncated_maxima > 0, "{s:?}");
    assert_eq!(s.prefix_length, Some(3), "{s:?}");
    // Its log has no commitInfo: the writer is unknown, said so.
    assert!(
        d.writers.iter().all(|w| w.writer == "unknown"),
        "{:?}",
        d.writers
    );
}

/// `stats-settings-history`: 3 indexed columns for the first commit of adds, then
/// `delta.dataSkippingStatsColumns`: the doctor gives the settings per version range.
#[test]
fn the_statistics_settings_are_given_per_version_range() {
    let spec = generators::catalog::named("stats-settings-history").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = generators::writer::write_table(&spec, dir.path()).unwrap();
    let d = doctor(&ExplainRequest::new(&dir.path().to_string_lossy())).unwrap();
    let spans = &d.settings_history;
    assert_eq!(spans.len(), 2, "{spans:?}");
    assert_eq!((spans[0].from_version, spans[0].num_indexed_cols), (0, 3));
    assert_eq!(spans[0].stats_columns, None);
    assert_eq!(spans[1].to_version, written.version);
    assert_eq!(
        spans[1].stats_columns.as_deref(),
        Some(&["f64".to_string(), "s".into(), "d".into(), "i8".into()][..])
    );
    assert_eq!(spans[0].to_version + 1, spans[1].from_version);
}
