//! `--verify` checked from outside: its matching stage (read file by file, `oracle::streamed`)
//! against the oracle's count over the table loaded whole (`LoadedTable`, DataFusion's
//! filter) on every fixture and catalog table, its stages nested, and its row-group stage
//! against DataFusion's own Parquet scan, whose metrics say how many row groups the footer
//! statistics pruned.

use std::time::Instant;

use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use explain_core::explain::CompiledPredicate;
use explain_core::replay::ReplayedTable;
use explain_core::report::funnel::{MATCHING_STAGE, ROW_GROUP_STAGE};
use explain_core::report_request::ReportRequest;
use explain_core::session::Session;
use explain_core::verify::verify_snapshot;
use generators::catalog::named;
use generators::writer::write_table;
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;
use oracle::row_groups::FooterPruning;

/// Predicates over each primitive column of a fixture: a range, an equality and a null test.
fn predicates(snapshot: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for field in &snapshot.fields {
        let literal = match &field.data_type {
            oracle::delta_schema::DeltaType::Primitive(p) => match p.as_str() {
                "byte" | "short" | "integer" | "long" | "float" | "double" => "1",
                "string" => "'m'",
                "date" => "'2021-01-01'",
                "timestamp" | "timestamp_ntz" => "'2021-01-01 00:00:00'",
                _ => continue,
            },
            oracle::delta_schema::DeltaType::Decimal { .. } => "1",
            _ => continue,
        };
        let col = format!("\"{}\"", field.name);
        out.push(format!("{col} > {literal}"));
        out.push(format!("{col} = {literal}"));
        out.push(format!("{col} IS NULL"));
    }
    out
}

/// `predicate` explained on `table` and verified against the oracle's replay, with the oracle's
/// own count over the table loaded whole beside it: `(report, failure line, matching rows per
/// file)`; `None` when one side cannot read the predicate (not a verify case).
fn explain_and_verify(
    session: &Session<'_>,
    loaded: &LoadedTable,
    predicate: &str,
    ctx: &str,
) -> Option<(explain_core::report::Report, Option<String>, Vec<u64>)> {
    let table = session.table();
    let compiled = CompiledPredicate::compile(predicate, table).ok()?;
    let matching_rows = loaded.matching_rows(predicate).ok()?;
    let request = ReportRequest {
        explain_why: true,
        ..ReportRequest::default()
    };
    let ((mut report, _), explanation) = session
        .report_with_explanation(Some(&compiled), &request, Instant::now())
        .unwrap_or_else(|e| panic!("{ctx}: explain: {e}"));
    let read = std::sync::atomic::AtomicUsize::new(0);
    let failure = verify_snapshot(
        table,
        &explanation,
        Some(predicate),
        &loaded.snapshot,
        2,
        &mut report,
        &|n| {
            read.fetch_max(n, std::sync::atomic::Ordering::Relaxed);
        },
    )
    .unwrap_or_else(|e| panic!("{ctx}: verify: {e}"));
    // The progress heard every file read.
    assert_eq!(read.into_inner(), loaded.snapshot.files.len(), "{ctx}");
    Some((report, failure, matching_rows))
}

#[test]
fn the_funnel_agrees_with_the_oracle_and_nests_on_every_fixture() {
    let mut verified = 0;
    for location in testkit::all_tables() {
        let location = location.to_string_lossy().into_owned();
        let table = ReplayedTable::open(&location, None).unwrap();
        let loaded = LoadedTable::load(Snapshot::open(&location, None).unwrap(), &plan(2)).unwrap();
        let session = Session::new(&table);
        for predicate in predicates(&loaded.snapshot) {
            let ctx = format!("{location}: `{predicate}`");
            let Some((report, failure, matching_rows)) =
                explain_and_verify(&session, &loaded, &predicate, &ctx)
            else {
                continue;
            };
            let funnel = report.verify.as_ref().expect("the funnel is in the report");
            assert_eq!(failure, None, "{ctx}");
            assert!(funnel.dropped_matching_files.is_empty(), "{ctx}");
            assert!(
                funnel.dropped_matching_row_groups.is_empty(),
                "{ctx}: footer rules dropped {:?}",
                funnel.dropped_matching_row_groups
            );
            // The matching stage is the oracle's count.
            let matched = funnel.stage(MATCHING_STAGE).unwrap();
            assert_eq!(
                matched.files,
                matching_rows.iter().filter(|n| **n > 0).count(),
                "{ctx}"
            );
            assert_eq!(matched.rows, matching_rows.iter().sum::<u64>(), "{ctx}");
            // Each stage keeps at most what the one before it kept.
            for pair in funnel.stages.windows(2) {
                assert!(
                    pair[1].files <= pair[0].files,
                    "{ctx}: {} keeps more files than {}",
                    pair[1].name,
                    pair[0].name
                );
            }
            let read = funnel.stage(ROW_GROUP_STAGE).unwrap();
            assert!(read.rows >= matched.rows, "{ctx}");
            assert!(read.row_groups >= matched.row_groups, "{ctx}");
            assert_eq!(
                funnel.false_positive_files.count,
                report.final_files - matched.files,
                "{ctx}: every kept file either matches or is a false positive"
            );
            verified += 1;
        }
    }
    assert!(verified > 200, "only {verified} predicates verified");
}

/// The row groups DataFusion's own scan of `path` prunes by footer statistics for `predicate`,
/// read from its plan's metrics.
fn datafusion_pruned(path: &str, predicate: &str) -> usize {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        // No file-level statistics: a file they prune is never opened, and its row groups
        // never counted; the footer's row-group pruning is what is compared.
        let config = datafusion::prelude::SessionConfig::new()
            .set_bool("datafusion.execution.collect_statistics", false);
        let ctx = SessionContext::new_with_config(config);
        ctx.register_parquet("f", path, ParquetReadOptions::default())
            .await
            .unwrap();
        let df = ctx
            .sql(&format!("SELECT * FROM f WHERE {predicate}"))
            .await
            .unwrap();
        let plan = df.create_physical_plan().await.unwrap();
        collect(plan.clone(), ctx.task_ctx()).await.unwrap();
        pruned_in(plan.as_ref())
    })
}

fn pruned_in(plan: &dyn ExecutionPlan) -> usize {
    use datafusion::physical_plan::metrics::MetricValue;
    let own: usize = plan
        .metrics()
        .iter()
        .flat_map(|m| m.iter().cloned().collect::<Vec<_>>())
        .map(|metric| match metric.value() {
            MetricValue::PruningMetrics {
                name,
                pruning_metrics,
            } if name.as_ref() == "row_groups_pruned_statistics" => pruning_metrics.pruned(),
            _ => 0,
        })
        .sum();
    own + plan
        .children()
        .iter()
        .map(|c| pruned_in(c.as_ref()))
        .sum::<usize>()
}

#[test]
fn the_row_group_stage_prunes_what_datafusions_parquet_scan_prunes() {
    // Four row groups of six sorted rows per file: footers with ranges to tell apart.
    let dir = tempfile::tempdir().unwrap();
    write_table(&named("row-groups").unwrap(), dir.path()).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let snapshot = Snapshot::open(&location, None).unwrap();
    let predicates = [
        "i32 > 0",
        "i32 < -100",
        "i64 >= 1000",
        "i64 = 5",
        "s > 'm'",
        "s = 'a'",
        "d < '2000-01-01'",
        "d >= '2020-06-01'",
        "f64 > 100",
        "i32 IS NULL",
        "i16 IS NOT NULL AND i8 < 0",
        "i32 > 10 OR i64 < -10",
    ];
    let (mut pruned_total, mut groups_total) = (0usize, 0usize);
    for predicate in predicates {
        let footers = FooterPruning::new(&snapshot, Some(predicate)).unwrap();
        for file in &snapshot.files {
            let ours = footers.row_groups(file).unwrap();
            let pruned = ours.iter().filter(|g| !g.kept).count();
            let path = dir.path().join(&file.path);
            let theirs = datafusion_pruned(&path.to_string_lossy(), predicate);
            assert_eq!(
                pruned, theirs,
                "`{predicate}` on {}: {pruned} row groups pruned here, {theirs} by DataFusion's scan",
                file.path
            );
            pruned_total += pruned;
            groups_total += ours.len();
        }
    }
    // The comparison is worth something only if the footers prune some and keep some.
    assert!(
        groups_total >= 4 * snapshot.files.len(),
        "{groups_total} row groups"
    );
    assert!(
        pruned_total > 0 && pruned_total < groups_total,
        "{pruned_total} of {groups_total} row groups pruned"
    );
}

/// Every catalog table written with several row groups per file (the writers' quirks, NaN,
/// truncated strings, checkpoints, partition types): the funnel nests, its matching stage is the
/// oracle's, and the footers prune within files. A dropped matching file is a failure unless a
/// hazard announced it (NaN in default mode).
#[test]
fn the_funnel_holds_on_every_catalog_table_cut_into_row_groups() {
    let (mut verified, mut footer_pruned, mut findings) = (0, 0usize, Vec::new());
    for name in generators::catalog::NAMES {
        let spec = generators::spec::TableSpec {
            rows_per_row_group: Some(6),
            ..named(name).unwrap()
        };
        let dir = tempfile::tempdir().unwrap();
        write_table(&spec, dir.path()).unwrap();
        let location = dir.path().to_string_lossy().into_owned();
        let table = ReplayedTable::open(&location, None).unwrap();
        let loaded = LoadedTable::load(Snapshot::open(&location, None).unwrap(), &plan(2)).unwrap();
        let session = Session::new(&table);
        for predicate in predicates(&loaded.snapshot) {
            let ctx = format!("{name}: `{predicate}`");
            let Some((report, failure, matching_rows)) =
                explain_and_verify(&session, &loaded, &predicate, &ctx)
            else {
                continue;
            };
            let funnel = report.verify.as_ref().unwrap();
            if let Some(line) = &failure {
                assert!(
                    line.contains("announced by a hazard"),
                    "{ctx}: an unannounced drop: {line}"
                );
            }
            let matched = funnel.stage(MATCHING_STAGE).unwrap();
            assert_eq!(
                matched.files,
                matching_rows.iter().filter(|n| **n > 0).count(),
                "{ctx}"
            );
            assert_eq!(matched.rows, matching_rows.iter().sum::<u64>(), "{ctx}");
            let read = funnel.stage(ROW_GROUP_STAGE).unwrap();
            assert!(read.files <= report.final_files, "{ctx}");
            // Rows read hold every matching row, unless a stage dropped some (and said so).
            let dropped = failure.is_some() || !funnel.dropped_matching_row_groups.is_empty();
            assert!(read.rows >= matched.rows || dropped, "{ctx}");
            // Row groups of the kept files: four per file here.
            footer_pruned += 4 * report.final_files - read.row_groups.unwrap();
            findings.extend(
                funnel
                    .dropped_matching_row_groups
                    .iter()
                    .map(|g| format!("{ctx}: {g}")),
            );
            verified += 1;
        }
    }
    assert!(verified > 300, "only {verified} predicates verified");
    assert!(footer_pruned > 0, "the footers never pruned a row group");
    // Findings about DataFusion's footer rules are reported, not failures; say what they were.
    eprintln!(
        "{} matching row groups dropped by the footer rules",
        findings.len()
    );
    for f in findings.iter().take(20) {
        eprintln!("  {f}");
    }
}
