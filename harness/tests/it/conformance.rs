//! The conformance campaign's adapters on generated tables whose findings are known: each
//! reader is held to its own engine's rows, a reader that skips a file holding a matching row
//! is caught, a correct answer passes, and an unavailable reader is never a pass.

use generators::catalog::named_with_seed;
use generators::writer::write_table;
use harness::conformance::datafusion_parquet::DataFusionParquet;
use harness::conformance::kernel::KernelAdapter;
use harness::conformance::workers::WorkerAdapter;
use harness::conformance::{Adapter, Reading, TableUnderTest, Verdict, check, classify};
use oracle::engines::Answer;
use oracle::readers::DeltaReader;

/// A campaign over one table at `location` and the `predicates` given (seed 1, no
/// reproductions written).
fn fixture(
    name: &str,
    location: String,
    predicates: Vec<String>,
) -> harness::conformance::ConformanceOptions {
    harness::conformance::ConformanceOptions {
        seconds: 0,
        max_cases: None,
        seed: 1,
        predicates_per_table: 0,
        work_dir: None,
        out: None,
        fixtures: vec![(name.to_string(), location, predicates)],
        histories: false,
    }
}

fn table(name: &str, seed: u64) -> (tempfile::TempDir, TableUnderTest) {
    let dir = tempfile::tempdir().unwrap();
    write_table(&named_with_seed(name, seed).unwrap(), dir.path()).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let table = TableUnderTest::load(&location, name, seed).unwrap();
    (dir, table)
}

#[test]
fn a_verdict_follows_the_rows() {
    let truth = Answer::Rows(vec![2, 0, 1]);
    let rows = |per_file: Vec<u64>| Reading::Rows {
        total: per_file.iter().sum(),
        per_file: Some(per_file),
    };
    assert_eq!(classify(&rows(vec![2, 0, 1]), &truth).0, Verdict::Correct);
    assert_eq!(
        classify(&rows(vec![2, 0, 0]), &truth).0,
        Verdict::MissingRows
    );
    assert_eq!(classify(&rows(vec![2, 1, 1]), &truth).0, Verdict::ExtraRows);
    // Rows moved between files: the total agrees, the files do not.
    assert_eq!(
        classify(&rows(vec![1, 1, 1]), &truth).0,
        Verdict::MissingRows
    );
    let kept = |k: Vec<bool>| Reading::Survivors(k);
    assert_eq!(
        classify(&kept(vec![true, false, true]), &truth).0,
        Verdict::Correct
    );
    assert_eq!(
        classify(&kept(vec![true, true, false]), &truth).0,
        Verdict::MissingRows
    );
    let refused = Reading::Refused("no".into());
    assert_eq!(classify(&refused, &truth).0, Verdict::Refused);
    // A reader's own word that it does not support the table's feature: its documented limit,
    // not a finding; any other refusal stays one.
    for message in [
        "delta table requires reader version 2 (column mapping), which polars does not support",
        "External error: Transaction failed: Unsupported table features required: [TypeWideningPreview]",
    ] {
        let unsupported = classify(&Reading::Refused(message.into()), &truth).0;
        assert_eq!(unsupported, Verdict::Unsupported, "{message}");
        assert!(!unsupported.is_finding());
    }
    assert!(
        classify(
            &Reading::Refused("invalid primitive value found during CSV parsing".into()),
            &truth
        )
        .0
        .is_finding()
    );
    // An overflow the reader raises and its engine does not over plain rows: the plan
    // decides which rows the expression is evaluated on, so neither is wrong.
    let overflow = Reading::PlanDependent("Out of Range Error: Overflow in addition".into());
    let plan = classify(&overflow, &truth).0;
    assert_eq!(plan, Verdict::PlanDependent);
    assert!(!plan.is_finding());
    let truth_refused = Answer::Refused("no".into());
    assert_eq!(classify(&refused, &truth_refused).0, Verdict::BothRefused);
    assert_eq!(classify(&overflow, &truth_refused).0, Verdict::BothRefused);
    assert_eq!(
        classify(&rows(vec![0, 0, 0]), &truth_refused).0,
        Verdict::TruthRefused
    );
}

/// A negative NaN matches `y < -0.906` under DataFusion's total order; the statistics leave
/// NaN out, so a scan that prunes with them drops the rows (found by the campaign: delta_kernel
/// 0.30.1 and DataFusion 55.2.0's pruned Parquet scan alike). `y IS NULL` holds as control.
#[test]
fn the_in_process_readers_are_caught_dropping_negative_nan_rows() {
    let (_dir, table) = table("nan-negative", 4_746_479_065_444_327_403);
    let mut kernel = KernelAdapter::default();
    let mut parquet = DataFusionParquet::new().unwrap();
    for adapter in [&mut kernel as &mut dyn Adapter, &mut parquet] {
        assert_eq!(adapter.open(&table).unwrap(), Ok(()), "{}", adapter.name());
        let (verdict, detail) = check(adapter, &table, "y < -90604461669921875e-14");
        assert_eq!(
            verdict,
            Verdict::MissingRows,
            "{}: {detail}",
            adapter.name()
        );
        let (verdict, detail) = check(adapter, &table, "y IS NULL");
        assert_eq!(verdict, Verdict::Correct, "{}: {detail}", adapter.name());
    }
}

/// delta-rs 1.6.6 reads a `-0.0` float partition as a value `!= -0` matches (SQL: `-0.0 = 0`,
/// as DataFusion reads the same rows); DuckDB's delta extension answers as DuckDB does over
/// the rows. The workers come from `oracle/engines/setup.sh`'s environment.
#[test]
#[ignore = "external tier: delta-rs and DuckDB's delta extension (bash oracle/engines/setup.sh)"]
fn the_workers_read_the_tables_themselves() {
    let (_dir, table) = table("signed-zero-partitions", 7_870_161_820_730_376_918);
    let mut delta_rs = WorkerAdapter::start(DeltaReader::DeltaRs);
    let mut duckdb = WorkerAdapter::start(DeltaReader::DuckdbDelta);
    for adapter in [&mut delta_rs as &mut dyn Adapter, &mut duckdb] {
        let version = adapter.version();
        assert!(
            version.is_ok(),
            "{}: {version:?} (run oracle/engines/setup.sh)",
            adapter.name()
        );
        assert_eq!(adapter.open(&table).unwrap(), Ok(()), "{}", adapter.name());
    }
    let (verdict, detail) = check(&mut delta_rs, &table, "pf != -0");
    assert_eq!(verdict, Verdict::ExtraRows, "delta-rs: {detail}");
    let (verdict, detail) = check(&mut duckdb, &table, "pf != -0");
    assert_eq!(verdict, Verdict::Correct, "duckdb-delta: {detail}");
    let (verdict, detail) = check(&mut delta_rs, &table, "id IS NOT NULL");
    assert_eq!(verdict, Verdict::Correct, "delta-rs: {detail}");
}

/// An overflow that depends on DuckDB's plan: `abs(i64)` overflows on the table's
/// `i64::MIN` row, and under `abs(i64) > 0 AND i8 IS NULL` whether DuckDB evaluates `abs` on
/// that row (whose `i8` is not NULL) is its plan's choice. DuckDB over the plain rows answers;
/// its delta extension, scanning file by file, raises. Neither is wrong: `plan-dependent`, not
/// a finding. The control shows the row is there: `abs(i64) > 0` alone raises in both.
#[test]
#[ignore = "external tier: DuckDB's delta extension (bash oracle/engines/setup.sh)"]
fn an_overflow_only_the_readers_plan_reaches_is_plan_dependent() {
    let (_dir, table) = table("edge-values", 7);
    let mut duckdb = WorkerAdapter::start(DeltaReader::DuckdbDelta);
    let version = duckdb.version();
    assert!(version.is_ok(), "{version:?} (run oracle/engines/setup.sh)");
    assert_eq!(duckdb.open(&table).unwrap(), Ok(()));
    let (verdict, detail) = check(&mut duckdb, &table, "abs(i64) > 0 AND i8 IS NULL");
    assert_eq!(verdict, Verdict::PlanDependent, "{detail}");
    assert!(detail.contains("Overflow"), "{detail}");
    assert!(!verdict.is_finding());
    let (verdict, detail) = check(&mut duckdb, &table, "abs(i64) > 0");
    assert_eq!(verdict, Verdict::BothRefused, "{detail}");
    let (verdict, detail) = check(&mut duckdb, &table, "i8 IS NULL");
    assert_eq!(verdict, Verdict::Correct, "{detail}");
}

/// A reader whose environment is missing checked nothing: the campaign says so and fails.
#[test]
fn an_unavailable_reader_is_never_a_pass() {
    let out = tempfile::tempdir().unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_campaign"))
        .args([
            "--engines",
            "polars",
            "--cases",
            "4",
            "--seconds",
            "60",
            "--predicates",
            "2",
        ])
        .arg("--out")
        .arg(out.path())
        .env("DX_ENGINES_PYTHON", "/nonexistent/python")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("unavailable, nothing checked: polars"),
        "{stderr}"
    );
    let page = std::fs::read_to_string(out.path().join("README.md")).unwrap();
    assert!(page.contains("| polars | unavailable:"), "{page}");
}

/// The generator's signed-zero partition knob: partitions spelled `0`, `-0` and `-0.0`. SQL
/// reads `-0.0 = 0`; delta_kernel 0.30.1 orders partition values by Arrow's total order, so
/// `pf = 0` and `pf >= 0` drop the negative-zero partitions and `pf = -0.0` the positive ones.
/// `pf < 0.5` keeps them all.
#[test]
fn the_kernel_adapter_reproduces_the_signed_zero_partition_drop() {
    let (_dir, table) = table("signed-zero-partitions", 7_870_161_820_730_376_918);
    let mut kernel = KernelAdapter::default();
    kernel.open(&table).unwrap().unwrap();
    let negative_zero: Vec<usize> = (0..table.files())
        .filter(|i| {
            let values = &table.loaded.snapshot.files[*i].partition_values;
            matches!(values.get("pf"), Some(Some(v)) if v.starts_with("-0"))
        })
        .collect();
    assert!(
        !negative_zero.is_empty(),
        "the knob wrote negative-zero partitions"
    );
    for predicate in ["pf = 0", "pf >= 0", "pf IN (0)"] {
        let (verdict, detail) = check(&mut kernel, &table, predicate);
        assert_eq!(verdict, Verdict::MissingRows, "{predicate}: {detail}");
        assert!(
            detail.ends_with(&format!("files {negative_zero:?}")),
            "{predicate}: {detail}"
        );
    }
    let (verdict, detail) = check(&mut kernel, &table, "pf < 0.5");
    assert_eq!(verdict, Verdict::Correct, "{detail}");
}

/// The kernel's finding of `verdict` for `predicate` (already minimal) on `table`.
fn kernel_finding(
    verdict: Verdict,
    table: &TableUnderTest,
    predicate: &str,
    detail: String,
) -> harness::conformance::Finding {
    harness::conformance::Finding {
        cause: String::new(),
        seen: 1,
        upstream: None,
        aliases: Vec::new(),
        engine: "kernel".into(),
        version: "test".into(),
        verdict,
        table: table.spec.clone(),
        seed: table.seed,
        predicate: predicate.into(),
        minimized: predicate.into(),
        variant: None,
        detail,
        reproduction: None,
        unreproduced: None,
        localization: None,
        found_after: 0.0,
    }
}

/// The shrinker's table half on the signed-zero finding: the table reduces to fewer live
/// files that still show the drop (each removed by a commit of the copy, the checkpoints and
/// partition spellings kept), and the kernel's reproduction is a crate of one test holding
/// the kernel's own form of the predicate it was given and the files that must survive.
#[test]
fn a_kernel_finding_reduces_its_table_and_reproduces_as_a_rust_test() {
    use harness::conformance::{reduce, repro};
    let (_dir, table) = table("signed-zero-partitions", 7_870_161_820_730_376_918);
    let mut kernel = KernelAdapter::default();
    kernel.open(&table).unwrap().unwrap();
    let predicate = "pf = 0";
    assert_eq!(
        check(&mut kernel, &table, predicate).0,
        Verdict::MissingRows
    );
    let reduced = reduce::reduce(&mut kernel, &table, &|a, t| {
        check(a, t, predicate).0 == Verdict::MissingRows
    })
    .expect("some files are not needed to show the drop");
    let small = &reduced.table;
    assert!(
        small.files() < table.files() && small.files() >= 1,
        "{} of {} files",
        small.files(),
        table.files()
    );
    kernel.open(small).unwrap().unwrap();
    let (verdict, detail) = check(&mut kernel, small, predicate);
    assert_eq!(verdict, Verdict::MissingRows, "{detail}");
    // Nothing removed that the finding needs: without a negative-zero partition it is gone.
    assert!(
        small
            .loaded
            .snapshot
            .files
            .iter()
            .any(|f| matches!(f.partition_values.get("pf"), Some(Some(v)) if v.starts_with("-0")))
    );
    let finding = kernel_finding(verdict, small, predicate, detail);
    let out = tempfile::tempdir().unwrap();
    let folder = repro::write(out.path(), 1, &finding, small, table.files(), &mut kernel).unwrap();
    let dir = out.path().join(folder);
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!(
            "{} live file(s) of its {}",
            small.files(),
            table.files()
        )),
        "{readme}"
    );
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("delta_kernel = { version = \"=0.30."),
        "{manifest}"
    );
    let test = std::fs::read_to_string(dir.join("repro.rs")).unwrap();
    let json = test
        .split("r#\"")
        .nth(1)
        .and_then(|rest| rest.split("\"#").next())
        .expect("the predicate's JSON");
    let given: delta_kernel::expressions::Predicate = serde_json::from_str(json).unwrap();
    assert!(format!("{given:?}").contains("pf"), "{given:?}");
    // The files that must survive are the negative-zero partitions' files the kernel drops.
    for f in
        small.loaded.snapshot.files.iter().filter(
            |f| matches!(f.partition_values.get("pf"), Some(Some(v)) if v.starts_with("-0")),
        )
    {
        assert!(
            test.contains(&format!("{:?}", f.path)),
            "{} in {test}",
            f.path
        );
    }
    assert!(dir.join("table/_delta_log").is_dir());
}

/// A reader that fails on a table (the kernel on a delta-rs decimal partition spelled
/// `0.-25`) still gets its reproduction: the README says how it fails, and the crate's test
/// runs the scan that fails.
#[test]
fn a_kernel_error_finding_is_reproduced_too() {
    use harness::conformance::repro;
    let (_dir, table) = table("partition-spellings", 13_997_387_869_873_202_004);
    let mut kernel = KernelAdapter::default();
    kernel.open(&table).unwrap().unwrap();
    // A predicate the kernel is given, and one of which nothing lowers (two columns compared):
    // the scan fails either way, and each reproduction is that scan.
    for (n, predicate, lowered) in [(1, "pl != 11", true), (2, "pl < v", false)] {
        let (verdict, detail) = check(&mut kernel, &table, predicate);
        assert_eq!(verdict, Verdict::Error, "{predicate}: {detail}");
        let finding = kernel_finding(verdict, &table, predicate, detail);
        let out = tempfile::tempdir().unwrap();
        let folder = repro::write(out.path(), n, &finding, &table, table.files(), &mut kernel)
            .expect("an error finding is reproduced");
        let dir = out.path().join(folder);
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        assert!(readme.contains("The reader: fails: "), "{readme}");
        let test = std::fs::read_to_string(dir.join("repro.rs")).unwrap();
        assert!(test.contains("scan_metadata(&engine).unwrap()"), "{test}");
        assert_eq!(test.contains("with_predicate"), lowered, "{test}");
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert_eq!(manifest.contains("serde_json"), lowered, "{manifest}");
        assert!(dir.join("table/_delta_log").is_dir());
    }
}

/// Column mapping: the Parquet scan reads each file by its physical column names and renames
/// them to the logical ones before the predicate, as a reader's schema mapping does, so the
/// shared fixtures written with `delta.columnMapping.mode = name` are read, not skipped, and
/// agree with the truth on the predicates of their corpora.
#[test]
fn the_parquet_scan_reads_column_mapped_fixtures_by_their_logical_names() {
    let real = testkit::fixtures().join("real");
    let mut parquet = DataFusionParquet::new().unwrap();
    let mut read = 0;
    for name in [
        "data-reader-partition-values-column-mapping-name",
        "table-with-columnmapping-mode-name",
        "data-skipping-basic-stats-all-types-columnmapping-name",
    ] {
        let location = real.join(name).to_string_lossy().into_owned();
        let table = TableUnderTest::load(&location, name, 0).unwrap();
        assert_ne!(
            table.loaded.snapshot.mapping,
            oracle::delta_schema::ColumnMapping::None,
            "{name}"
        );
        match parquet.open(&table).unwrap() {
            Ok(()) => {}
            Err(reason) => {
                assert!(reason.contains("nested"), "{name}: skipped: {reason}");
                continue;
            }
        }
        let corpus = testkit::workspace_root().join(format!("corpora/{name}.txt"));
        let corpus = std::fs::read_to_string(&corpus).unwrap();
        for predicate in corpus
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            // The first of each corpus: the rest are the campaign's (`--fixtures`).
            .take(25)
        {
            let (verdict, detail) = check(&mut parquet, &table, predicate);
            assert!(
                matches!(
                    verdict,
                    Verdict::Correct | Verdict::BothRefused | Verdict::TruthRefused
                ),
                "{name}: `{predicate}`: {verdict:?} {detail}"
            );
            read += usize::from(verdict == Verdict::Correct);
        }
    }
    assert!(read > 10, "{read} predicates read and matched");
}

/// Findings are causes: every failing case is counted under the cause of its minimized
/// predicate (reader, verdict, shape, table features), so a drop read through three
/// spellings is one finding seen three times and the same drop on a column of another kind
/// another; a known list names causes, and a cause it does not name is new even on a table it
/// names.
#[test]
fn failing_cases_are_counted_under_their_cause() {
    use harness::conformance::{new_findings, run};
    let (_dir, table) = table("all-types", 11);
    let predicates = [
        "i32 IS NOT NULL",
        "i32 IS NOT NULL OR i32 = 12345",
        "i32 IS NOT NULL AND (i32 IS NOT NULL OR i32 = 7)",
        "i64 IS NOT NULL",
        "i64 > 100000000000000000",
    ];
    let options = fixture(
        "all-types",
        table.location.clone(),
        predicates.iter().map(|p| p.to_string()).collect(),
    );
    // Drops the first file wherever a column is read as not NULL.
    let mut adapters: Vec<Box<dyn Adapter>> = vec![Box::new(Dropping {
        kernel: KernelAdapter::default(),
        drop: |p| p.contains("IS NOT NULL").then_some(0),
    })];
    let report = run(&options, &mut adapters, &mut |_, _| {}).unwrap();
    let seen: u64 = report.findings.iter().map(|f| f.seen).sum();
    assert_eq!(
        seen, report.failing_cases,
        "every failing case is counted once"
    );
    assert_eq!(report.failing_cases, 4, "{:#?}", report.findings);
    let integer = report
        .findings
        .iter()
        .find(|f| f.minimized == "i32 IS NOT NULL")
        .unwrap_or_else(|| panic!("{:#?}", report.findings));
    assert_eq!(integer.seen, 3, "{:#?}", report.findings);
    assert_eq!(
        integer.cause,
        "dropping missing-rows | integer IS NOT NULL | partitioned,timestampNtz"
    );
    let long = report
        .findings
        .iter()
        .find(|f| f.minimized == "i64 IS NOT NULL")
        .unwrap_or_else(|| panic!("{:#?}", report.findings));
    assert_eq!(long.seen, 1);
    assert_eq!(
        long.cause,
        "dropping missing-rows | long IS NOT NULL | partitioned,timestampNtz"
    );
    // The same cause known (from another table, say) is not new; a known list naming only the
    // table and verdict under another cause does not hide it.
    let mut known = integer.clone();
    known.table = "elsewhere".into();
    assert!(
        !new_findings(&report, std::slice::from_ref(&known))
            .iter()
            .any(|f| f.cause == integer.cause)
    );
    known.cause = "dropping missing-rows | string = ?str | plain".into();
    known.table = integer.table.clone();
    assert!(
        new_findings(&report, std::slice::from_ref(&known))
            .iter()
            .any(|f| f.cause == integer.cause)
    );
}

/// Rows a reader gets wrong only where a float column holds NaN or a signed zero are one cause,
/// the hazard's, whatever the operator or the literal: the kernel's signed-zero partition drop
/// read through `=`, `IN`, `>=` and `BETWEEN` is `signed zero in partition double`, its negative
/// NaN drop through `<`, `<=` and `NOT >=` is `NaN in float`. A reader that loses rows the
/// hazard cannot account for (a file dropped whole, its numbers with it) keeps its shape's
/// cause.
#[test]
fn a_float_hazard_is_one_cause_whatever_the_operator() {
    use harness::conformance::run;
    let run_on = |name: &str, seed: u64, predicates: &[&str], adapter: Box<dyn Adapter>| {
        let (_dir, table) = table(name, seed);
        let options = fixture(
            name,
            table.location.clone(),
            predicates.iter().map(|p| p.to_string()).collect(),
        );
        run(&options, &mut [adapter], &mut |_, _| {}).unwrap()
    };
    let zero = run_on(
        "signed-zero-partitions",
        7_870_161_820_730_376_918,
        &[
            "pf = 0",
            "pf IN (0, 12345)",
            "pf >= 0",
            "pf BETWEEN -0.0 AND 0",
        ],
        Box::<KernelAdapter>::default(),
    );
    assert!(zero.failing_cases >= 3, "{:#?}", zero.findings);
    assert_eq!(zero.findings.len(), 1, "{:#?}", zero.findings);
    assert_eq!(
        zero.findings[0].cause,
        "kernel missing-rows | signed zero in partition double | partitioned"
    );
    assert_eq!(zero.findings[0].seen, zero.failing_cases);
    let nan = run_on(
        "nan-negative",
        4_746_479_065_444_327_403,
        &[
            "y < -90604461669921875e-14",
            "y <= -0.906",
            "NOT y >= -0.9",
            "y IS NULL",
        ],
        Box::<KernelAdapter>::default(),
    );
    assert!(nan.failing_cases >= 2, "{:#?}", nan.findings);
    assert_eq!(nan.findings.len(), 1, "{:#?}", nan.findings);
    assert_eq!(
        nan.findings[0].cause,
        "kernel missing-rows | NaN in float | partitioned"
    );
    assert_eq!(nan.findings[0].seen, nan.failing_cases);
    // The first file dropped whole for a predicate over the same float column: its matching
    // numbers are lost too, which no hazard accounts for.
    let dropped = run_on(
        "nan-negative",
        4_746_479_065_444_327_403,
        &["y IS NOT NULL"],
        Box::new(Dropping {
            kernel: KernelAdapter::default(),
            drop: |p| (p == "y IS NOT NULL").then_some(0),
        }),
    );
    assert_eq!(dropped.findings.len(), 1, "{:#?}", dropped.findings);
    assert_eq!(
        dropped.findings[0].cause,
        "dropping missing-rows | float IS NOT NULL | partitioned"
    );
    // A row lost for the integer part of `id > -100000 OR x = 12345.5`, in a file holding a NaN
    // of `x`: the bound holds (one row, no more than the file's NaN rows), but the part that
    // reads the float alone is read right, so NaN is not the cause.
    let losing = run_on(
        "nan-negative",
        4_746_479_065_444_327_403,
        &["id > -100000 OR x = 12345.5"],
        Box::new(Losing {
            kernel: KernelAdapter::default(),
        }),
    );
    assert_eq!(losing.findings.len(), 1, "{:#?}", losing.findings);
    let cause = &losing.findings[0].cause;
    assert!(
        cause.starts_with("losing missing-rows | ") && !cause.contains("NaN"),
        "{cause}"
    );
}

/// A reader that loses one row per file holding a NaN of `x`, for a predicate reading `id`;
/// its truth is the kernel adapter's.
struct Losing {
    kernel: KernelAdapter,
}

impl Adapter for Losing {
    fn name(&self) -> &'static str {
        "losing"
    }
    fn version(&self) -> Result<String, String> {
        Ok("test".into())
    }
    fn open(&mut self, table: &TableUnderTest) -> Result<Result<(), String>, String> {
        self.kernel.open(table)
    }
    fn read(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Reading, String> {
        let Answer::Rows(mut rows) = self.kernel.truth(table, predicate)? else {
            return Err("the truth refused".into());
        };
        if predicate.contains("id >") {
            let nan = table.loaded.matching_rows("isnan(x)").unwrap();
            for (n, nans) in rows.iter_mut().zip(nan) {
                if nans > 0 && *n > 0 {
                    *n -= 1;
                }
            }
        }
        Ok(Reading::Rows {
            total: rows.iter().sum(),
            per_file: Some(rows),
        })
    }
    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
        self.kernel.truth(table, predicate)
    }
}

/// The log of the table at `root` rewritten: the first add's partition value of `column`
/// spelled `value`, and a later add's recorded max of an integer column put below its
/// recorded min.
fn contradict(root: &std::path::Path, column: &str, value: &str) {
    let log = root.join("_delta_log");
    let mut adds = 0;
    let mut edited = false;
    let mut commits: Vec<_> = std::fs::read_dir(&log)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    commits.sort();
    for path in commits {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = Vec::new();
        for line in text.lines() {
            let mut action: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(add) = action.get_mut("add") {
                adds += 1;
                if adds == 1 {
                    add["partitionValues"][column] = serde_json::json!(value);
                }
                if adds >= 2 && !edited {
                    let mut stats: serde_json::Value =
                        serde_json::from_str(add["stats"].as_str().unwrap_or("{}")).unwrap();
                    let key = stats["minValues"].as_object().and_then(|m| {
                        m.iter()
                            .find(|(_, v)| v.as_i64().is_some_and(|n| n > i64::MIN))
                            .map(|(k, _)| k.clone())
                    });
                    if let Some(key) = key {
                        let low = stats["minValues"][&key].as_i64().unwrap();
                        stats["maxValues"][&key] = serde_json::json!(low - 1);
                        add["stats"] = serde_json::json!(stats.to_string());
                        edited = true;
                    }
                }
            }
            lines.push(action.to_string());
        }
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
    assert!(adds >= 2 && edited);
}

/// A table whose log contradicts its own files (a partition value `0.-25` where the column is
/// a double, as delta-rs once wrote -0.25; a recorded max below the file's values) blames no
/// reader: the campaign says what is wrong with it, and every reader's cases on it are
/// `invalid-table`, none a finding.
#[test]
fn a_table_whose_log_contradicts_its_files_blames_no_reader() {
    use harness::conformance::{run, validate};
    let (dir, table) = table("signed-zero-partitions", 7_870_161_820_730_376_918);
    assert!(validate::problems(&table).is_empty(), "valid as written");
    drop(table);
    contradict(dir.path(), "pf", "0.-25");
    let location = dir.path().to_string_lossy().into_owned();
    let table = TableUnderTest::load(&location, "signed-zero-partitions", 0).unwrap();
    let problems = validate::problems(&table);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("\"0.-25\"") && p.contains("`pf`")),
        "{problems:#?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("above its recorded max")),
        "{problems:#?}"
    );
    let predicates = ["pf = 0", "pf > 1", "i64 > 5"];
    let options = fixture(
        "signed-zero-partitions",
        location,
        predicates.iter().map(|p| p.to_string()).collect(),
    );
    let mut adapters: Vec<Box<dyn Adapter>> = vec![
        Box::new(KernelAdapter::default()),
        Box::new(DataFusionParquet::new().unwrap()),
    ];
    let report = run(&options, &mut adapters, &mut |_, _| {}).unwrap();
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert_eq!(report.invalid_tables.len(), 1);
    for tally in report.engines.values() {
        assert_eq!(
            tally.verdicts.get("invalid-table").copied(),
            Some(predicates.len() as u64),
            "{tally:?}"
        );
    }
}

/// Every table of the generators' catalog is valid as written (its partition values parse,
/// its bounds bound, its null counts count), but for the knobs that reproduce a writer's bug
/// on purpose, two of which the validator is seen to catch: `partition-spellings` writes
/// delta-rs' `0.-25` for the decimal -0.25, `strings-legacy-tie-breaker` truncates a string
/// maximum with U+FFFD, below a value holding a character past it (`ipr🌼z`).
#[test]
fn the_catalogs_tables_are_valid_but_for_the_writer_bugs_they_reproduce() {
    use harness::conformance::validate;
    let mut invalid = Vec::new();
    for name in generators::catalog::NAMES {
        let (_dir, table) = table(name, generators::catalog::named(name).unwrap().seed);
        let problems = validate::problems(&table);
        if !problems.is_empty() {
            invalid.push(format!("{name}: {problems:?}"));
        }
    }
    let writer_bugs = [
        "strings-bare-prefix",
        "decimal-f64-bounds",
        "strings-legacy-tie-breaker",
        "partition-spellings",
    ];
    let unexpected: Vec<&String> = invalid
        .iter()
        .filter(|i| !writer_bugs.iter().any(|e| i.starts_with(&format!("{e}:"))))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    for caught in ["strings-legacy-tie-breaker", "partition-spellings"] {
        assert!(
            invalid.iter().any(|i| i.starts_with(&format!("{caught}:"))),
            "{caught} is caught: {invalid:#?}"
        );
    }
}

/// A reader that refuses as `refuse` says (its words, or none: it reads as the kernel does);
/// its truth is the kernel adapter's. It stands for a reader's refusals, which the real readers
/// give only on tables and predicates of their own.
struct Refusing {
    kernel: KernelAdapter,
    refuse: fn(&str) -> Option<String>,
}

impl Adapter for Refusing {
    fn name(&self) -> &'static str {
        "refusing"
    }
    fn version(&self) -> Result<String, String> {
        Ok("test".into())
    }
    fn open(&mut self, table: &TableUnderTest) -> Result<Result<(), String>, String> {
        self.kernel.open(table)
    }
    fn read(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Reading, String> {
        match (self.refuse)(predicate) {
            Some(why) => Ok(Reading::Refused(why)),
            None => self.kernel.read(table, predicate),
        }
    }
    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
        self.kernel.truth(table, predicate)
    }
}

fn run_refusing(
    refuse: fn(&str) -> Option<String>,
    predicates: &[&str],
) -> harness::conformance::ConformanceReport {
    use harness::conformance::run;
    let (_dir, table) = table("all-types", 11);
    let options = fixture(
        "all-types",
        table.location.clone(),
        predicates.iter().map(|p| p.to_string()).collect(),
    );
    let mut adapters: Vec<Box<dyn Adapter>> = vec![Box::new(Refusing {
        kernel: KernelAdapter::default(),
        refuse,
    })];
    run(&options, &mut adapters, &mut |_, _| {}).unwrap()
}

/// Minimizing keeps the cause: a refusal is minimized only through predicates refused in the
/// same words (values aside), so `i32 > 5 OR s = 'a'`, refused for its OR, does not become
/// `i32 > 5`, refused for another reason; and a refusal of the whole table (the reader refuses
/// TRUE alike) is the table's, one cause whatever the predicates, never minimized to one.
#[test]
fn minimizing_keeps_the_cause_and_a_table_refusal_is_the_tables() {
    let report = run_refusing(
        |p| {
            if p.contains(" OR ") {
                Some(format!("OR is not supported (at {})", p.len()))
            } else if p.contains("i32") {
                Some("column i32 is not supported".into())
            } else {
                None
            }
        },
        &["i32 > 5 OR s = 'a'"],
    );
    let or = report
        .findings
        .iter()
        .find(|f| f.detail.starts_with("OR"))
        .unwrap_or_else(|| panic!("{:#?}", report.findings));
    assert!(or.minimized.contains(" OR "), "{:#?}", report.findings);
    let report = run_refusing(
        |_| Some("this table uses feature 7 which is not supported".into()),
        &[
            "i32 > 5 OR s = 'a'",
            "i64 IS NULL",
            "d = DATE '2024-01-01'",
            "NOT (i8 = 3)",
        ],
    );
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let table = &report.findings[0];
    assert_eq!(table.seen, 4);
    assert_eq!(table.minimized, "TRUE");
    assert!(table.cause.contains("(the table)"), "{}", table.cause);
}

/// A reader that reads as the kernel does but drops the file `drop` names for a predicate
/// from its survivor set; its truth is the kernel adapter's.
struct Dropping {
    kernel: KernelAdapter,
    drop: fn(&str) -> Option<usize>,
}

impl Adapter for Dropping {
    fn name(&self) -> &'static str {
        "dropping"
    }
    fn version(&self) -> Result<String, String> {
        Ok("test".into())
    }
    fn open(&mut self, table: &TableUnderTest) -> Result<Result<(), String>, String> {
        self.kernel.open(table)
    }
    fn read(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Reading, String> {
        match (self.kernel.read(table, predicate)?, (self.drop)(predicate)) {
            (Reading::Survivors(mut kept), Some(i)) => {
                kept[i] = false;
                Ok(Reading::Survivors(kept))
            }
            (reading, _) => Ok(reading),
        }
    }
    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
        self.kernel.truth(table, predicate)
    }
}

/// Missing rows are minimized only through predicates that miss rows in the same files: a
/// smaller predicate that drops another file shows another failure, and is not taken for it.
#[test]
fn minimizing_missing_rows_keeps_the_files_they_are_in() {
    use harness::conformance::run;
    let (_dir, table) = table("all-types", 11);
    let predicate = "i32 IS NOT NULL AND s IS NOT NULL";
    let options = fixture(
        "all-types",
        table.location.clone(),
        vec![predicate.to_string()],
    );
    let mut adapters: Vec<Box<dyn Adapter>> = vec![Box::new(Dropping {
        kernel: KernelAdapter::default(),
        // The whole predicate drops file 0; `s IS NOT NULL` alone drops file 1.
        drop: |p| {
            if p.contains("i32") && p.contains("s IS") {
                Some(0)
            } else if p == "s IS NOT NULL" {
                Some(1)
            } else {
                None
            }
        },
    })];
    let report = run(&options, &mut adapters, &mut |_, _| {}).unwrap();
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!(f.verdict, Verdict::MissingRows, "{f:#?}");
    assert_eq!(
        f.minimized, predicate,
        "`s IS NOT NULL` drops another file: not the same failure"
    );
}

/// The reader workers say what a reader's exception was: a refusal of the predicate (it ran no
/// query), an arithmetic error while running (plan-dependent), or a failure (an error on a
/// valid table); by the exception's class and words, as DuckDB, Polars and delta-rs raise them.
#[test]
fn a_readers_exception_is_told_refused_arithmetic_or_error() {
    let worker = testkit::workspace_root().join("oracle/engines");
    let script = r#"
import sys
sys.path.insert(0, sys.argv[1])
from worker import failure_of
def raised(cls, message):
    return failure_of(type(cls, (Exception,), {})(message))
cases = [
    ("ParserException", "Parser Error: syntax error at or near \")\"", "refused"),
    ("BinderException", "Binder Error: Referenced column \"q\" not found", "refused"),
    ("SQLSyntaxError", "unexpected token", "refused"),
    ("ColumnNotFoundError", "unable to find column \"q\"", "refused"),
    ("Exception", "DataFusion error: Error during planning: Cannot infer common type", "refused"),
    ("OutOfRangeException", "Out of Range Error: Overflow in addition of INT64 (9223372036854775807 + 1)!", "arithmetic"),
    ("ComputeError", "arithmetic overflow", "arithmetic"),
    ("Exception", "Arrow error: Divide by zero error", "arithmetic"),
    ("IOException", "IO Error: No files found that match the pattern", "error"),
    ("PanicException", "called `Option::unwrap()` on a `None` value", "error"),
    ("Exception", "Kernel error: Invalid url", "error"),
]
for cls, message, want in cases:
    got = raised(cls, message)
    assert got == want, (cls, message, got, want)
print(len(cases))
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, &worker.to_string_lossy()])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "11");
}

/// The conformance campaign over `table` (written for `name` and `seed`) with `predicates`
/// drawn as the campaign draws them, through `adapters`.
fn run_drawn(
    name: &str,
    seed: u64,
    predicates: usize,
    adapters: &mut [Box<dyn Adapter>],
) -> harness::conformance::ConformanceReport {
    use generators::predicates::{Pools, sample_predicates};
    use harness::conformance::{ConformanceOptions, run};
    let dir = tempfile::tempdir().unwrap();
    let spec = named_with_seed(name, seed).unwrap();
    let written = write_table(&spec, dir.path()).unwrap();
    let drawn: Vec<String> =
        sample_predicates(&Pools::from_table(&spec, &written), 3, seed, predicates)
            .iter()
            .map(ToString::to_string)
            .collect();
    let options = ConformanceOptions {
        seconds: 0,
        max_cases: None,
        seed,
        predicates_per_table: 0,
        work_dir: None,
        out: None,
        fixtures: vec![(
            name.into(),
            dir.path().to_string_lossy().into_owned(),
            drawn,
        )],
        histories: false,
    };
    run(&options, adapters, &mut |_, _| {}).unwrap()
}

/// A reader that fails a table whatever the predicate is one cause, the table's: the kernel
/// unable to open a table whose `_last_checkpoint` names a checkpoint past the last commit,
/// and DataFusion's Parquet scan resolving columns by name where column mapping's ids name
/// them, as delta-rs and DuckDB's extension do (it reads NULLs, so predicates of every shape
/// lose rows or gain them), each counted once under `(the table)` with every case it failed,
/// minimized to the probe it fails. Resolving by field id, the scan reads that table right.
#[test]
fn a_reader_that_fails_the_table_whatever_the_predicate_is_one_cause() {
    let mut kernel: Vec<Box<dyn Adapter>> = vec![Box::new(KernelAdapter::default())];
    let report = run_drawn("checkpoint-hint-ahead", 3, 12, &mut kernel);
    // The kernel cannot open it: one case, not one per predicate.
    assert_eq!(report.failing_cases, 1, "{:#?}", report.findings);
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!((f.verdict, f.seen), (Verdict::Error, 1));
    assert!(
        f.cause.contains("| (the table) |") && f.cause.contains("didn't find any checkpoints"),
        "{}",
        f.cause
    );

    let mut parquet: Vec<Box<dyn Adapter>> = vec![Box::new(DataFusionParquet::new().unwrap())];
    let report = run_drawn("mapping-id-parquet-names", 5, 16, &mut parquet);
    assert_eq!(
        report.failing_cases, 0,
        "by field id: {:#?}",
        report.findings
    );
    let mut parquet: Vec<Box<dyn Adapter>> =
        vec![Box::new(DataFusionParquet::resolving_by_name().unwrap())];
    let report = run_drawn("mapping-id-parquet-names", 5, 16, &mut parquet);
    assert!(report.failing_cases >= 4, "{report:#?}");
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!(f.seen, report.failing_cases);
    assert!(
        f.minimized.contains("IS NOT NULL") && f.cause.contains("| (the table) |"),
        "{f:#?}"
    );
}

/// A reader that errors on every read and quotes the query back (as DuckDB does, `LINE 1:
/// SELECT ... WHERE ... ^`): the words up to the quote are the cause, one for the table.
struct Quoting;

impl Adapter for Quoting {
    fn name(&self) -> &'static str {
        "quoting"
    }
    fn version(&self) -> Result<String, String> {
        Ok("test".into())
    }
    fn open(&mut self, _: &TableUnderTest) -> Result<Result<(), String>, String> {
        Ok(Ok(()))
    }
    fn read(&mut self, _: &TableUnderTest, predicate: &str) -> Result<Reading, String> {
        Err(format!(
            "IO Error: the log didn't hold checkpoint 7 LINE 1: SELECT count(*) FROM t WHERE {predicate} ^"
        ))
    }
    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
        KernelAdapter::default().truth(table, predicate)
    }
}

/// A reader that errs on a predicate its own engine refuses over plain rows too is not at
/// fault (`both-refused`, no finding); where the engine runs it, the error is the reader's.
#[test]
fn an_error_on_a_predicate_the_engine_refuses_too_is_no_finding() {
    struct Strict;
    impl Adapter for Strict {
        fn name(&self) -> &'static str {
            "strict"
        }
        fn version(&self) -> Result<String, String> {
            Ok("test".into())
        }
        fn open(&mut self, _: &TableUnderTest) -> Result<Result<(), String>, String> {
            Ok(Ok(()))
        }
        fn read(&mut self, _: &TableUnderTest, _: &str) -> Result<Reading, String> {
            Err("cannot compare string with numeric type (f64)".into())
        }
        fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
            if predicate.contains("'NaN'") {
                Ok(Answer::Refused(
                    "cannot compare string with numeric type (f64)".into(),
                ))
            } else {
                KernelAdapter::default().truth(table, predicate)
            }
        }
    }
    let (_dir, table) = table("all-types", 11);
    assert_eq!(
        check(&mut Strict, &table, "f64 > 'NaN'").0,
        Verdict::BothRefused
    );
    assert_eq!(check(&mut Strict, &table, "f64 > 1.5").0, Verdict::Error);
}

#[test]
fn an_error_that_quotes_the_query_back_is_one_cause() {
    let mut quoting: Vec<Box<dyn Adapter>> = vec![Box::new(Quoting)];
    let report = run_drawn("all-types", 9, 10, &mut quoting);
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert_eq!((f.seen, f.minimized.as_str()), (10, "TRUE"));
    assert!(
        f.cause
            .ends_with("| IO Error: the log didn't hold checkpoint ?n"),
        "{}",
        f.cause
    );
}

/// Where no row has every column (at the first version of `mapping-id-parquet-names` the column
/// added again later holds no value yet), the probe of every column together matches nothing
/// and cannot show a column read as NULL: each column is probed alone, and the by-name scan's
/// failure is still one cause, the table's.
#[test]
fn a_column_read_as_null_is_the_tables_cause_where_no_row_has_every_column() {
    use harness::conformance::{ConformanceOptions, run};
    let spec = named_with_seed("mapping-id-parquet-names", 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_table(&spec, dir.path()).unwrap();
    let first = tempfile::tempdir().unwrap();
    generators::history::as_of(dir.path(), 1, first.path()).unwrap();
    let location = first.path().to_string_lossy().into_owned();
    let table = TableUnderTest::load(&location, "mapping-id-parquet-names@1", 5).unwrap();
    let all: String = harness::conformance::table_level::present(&table)
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" AND ");
    let mut kernel = KernelAdapter::default();
    assert_eq!(
        kernel.truth(&table, &all).unwrap(),
        Answer::Rows(vec![0; table.files()]),
        "no row has every column at version 1"
    );
    let options = ConformanceOptions {
        seed: 5,
        ..fixture(
            "mapping-id-parquet-names@1",
            location.clone(),
            [
                "y IN (-997, 3)",
                "NOT y IN (-997)",
                "x > 0 OR s LIKE 'a%'",
                "d IS NOT NULL",
            ]
            .iter()
            .map(ToString::to_string)
            .collect(),
        )
    };
    let mut adapters: Vec<Box<dyn Adapter>> =
        vec![Box::new(DataFusionParquet::resolving_by_name().unwrap())];
    let report = run(&options, &mut adapters, &mut |_, _| {}).unwrap();
    assert!(report.failing_cases >= 2, "{report:#?}");
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert!(
        f.cause.contains("| (the table) |") && !f.minimized.contains(" AND "),
        "{f:#?}"
    );
}

/// The DataFusion scan's truth asks the scan's question in the scan's shape: partition values
/// supplied as the read supplies them (literal columns DataFusion folds into the predicate).
/// With the partition value as a real column in the truth, `NOT 18 != p OR ...` folded in the
/// read and not in the truth, and `y IN (0.0, ...)` simplified two ways: one extra row that
/// was the harness's, not the scan's (finding 80 of reports/conformance-20261207c).
#[test]
fn the_parquet_scans_truth_supplies_partition_values_as_the_read_does() {
    let (_dir, table) = table("nan-negative", 5_356_952_367_710_001_266);
    let mut scan = DataFusionParquet::new().unwrap();
    scan.open(&table).unwrap().unwrap();
    for predicate in [
        "NOT 18 != p OR y NOT BETWEEN 'NaN' AND 0.0 AND y IN (0.0, -390.853729248046875)",
        "p IN ('11') OR NOT 18 != p OR y NOT BETWEEN 'NaN' AND 0.0 AND y IN (0.0, -390.853729248046875) AND p + 1 > 4",
    ] {
        let (verdict, detail) = check(&mut scan, &table, predicate);
        assert_eq!(verdict, Verdict::Correct, "{predicate}: {detail}");
    }
}

/// Polars' truth counts as its read counts (`select(len())`), so a term its grouped count's
/// optimizer dropped is refused by both: no finding (finding 76 of
/// reports/conformance-20261207c was this).
#[test]
#[ignore = "external tier: Polars (bash oracle/engines/setup.sh)"]
fn polars_truth_counts_as_its_read_does() {
    let (_dir, table) = table("nan-negative", 5_807_426_607_634_286_098);
    let mut polars = WorkerAdapter::start(DeltaReader::Polars);
    polars
        .version()
        .expect("polars (bash oracle/engines/setup.sh)");
    polars.open(&table).unwrap().unwrap();
    let (verdict, detail) = check(
        &mut polars,
        &table,
        "NOT (id IS NOT NULL OR x = 'NaN' OR id IS NULL)",
    );
    assert!(!verdict.is_finding(), "{verdict:?}: {detail}");
    assert_eq!(verdict, Verdict::BothRefused, "{detail}");
}

/// A hazard label stands only where removing the hazard's rows removes the failure: delta-rs'
/// extra row for `pf + 1 > 5` (a partition filter answered from the log) fits the NaN rows of
/// `x` the first predicate reads, but stays with them removed, and the minimized predicate
/// reads no `x` at all (finding 21 of reports/conformance-20261207c, `NaN in double`).
#[test]
#[ignore = "external tier: delta-rs (bash oracle/engines/setup.sh)"]
fn a_hazard_label_needs_the_hazard_rows_to_make_the_failure() {
    use harness::conformance::run;
    let (_dir, table) = table("signed-zero-partitions", 11_150_833_409_990_627_753);
    let options = fixture(
        "signed-zero-partitions",
        table.location.clone(),
        vec!["(pf + 1 > 5 AND pf IN (-0)) AND x IN (-0.0, 0, 988.4761188030848)".into()],
    );
    let delta_rs = WorkerAdapter::start(DeltaReader::DeltaRs);
    delta_rs
        .version()
        .expect("delta-rs (bash oracle/engines/setup.sh)");
    let report = run(&options, &mut [Box::new(delta_rs)], &mut |_, _| {}).unwrap();
    assert_eq!(report.findings.len(), 1, "{:#?}", report.findings);
    let f = &report.findings[0];
    assert!(
        !f.cause.contains("NaN") && !f.cause.contains("signed zero"),
        "{}",
        f.cause
    );
    assert!(f.cause.contains("partition double"), "{}", f.cause);
    let l = f.localization.as_ref().unwrap();
    assert_eq!(
        l.layer, "partition filter answered from the log, not applied",
        "{l:#?}"
    );
}

/// The experiments place each fault: the kernel's signed-zero drop in partition pruning (it
/// stays without statistics and goes with the partition values as columns), its negative-NaN
/// drop in Delta statistics skipping, the Parquet scan's NaN drop in Parquet statistics
/// pruning.
#[test]
fn the_experiments_place_each_fault_in_its_layer() {
    use harness::conformance::run;
    let run_on = |name: &str, seed: u64, predicate: &str, adapter: Box<dyn Adapter>| {
        let (_dir, table) = table(name, seed);
        let options = fixture(name, table.location.clone(), vec![predicate.into()]);
        run(&options, &mut [adapter], &mut |_, _| {}).unwrap()
    };
    let zero = run_on(
        "signed-zero-partitions",
        7_870_161_820_730_376_918,
        "pf = 0",
        Box::<KernelAdapter>::default(),
    );
    let l = zero.findings[0].localization.clone().unwrap();
    assert_eq!(
        (l.component.as_str(), l.layer.as_str()),
        ("delta_kernel", "partition pruning"),
        "{l:#?}"
    );
    let outcome = |l: &harness::conformance::localize::Localization, name: &str| {
        l.experiments
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.outcome.clone())
            .unwrap_or_default()
    };
    assert_eq!(outcome(&l, "Delta statistics removed"), "still fails");
    assert_eq!(outcome(&l, "partition values written as columns"), "gone");
    let nan = run_on(
        "nan-negative",
        4_746_479_065_444_327_403,
        "y <= -0.906",
        Box::<KernelAdapter>::default(),
    );
    let l = nan.findings[0].localization.clone().unwrap();
    assert_eq!(
        (l.component.as_str(), l.layer.as_str()),
        ("delta_kernel", "Delta statistics skipping"),
        "{l:#?}"
    );
    assert_eq!(
        l.bug,
        "delta_kernel | Delta statistics skipping | missing-rows | NaN in float | partitioned"
    );
    let scan = run_on(
        "nan-negative",
        4_746_479_065_444_327_403,
        "y <= -0.906",
        Box::new(DataFusionParquet::new().unwrap()),
    );
    if let Some(f) = scan.findings.first() {
        let l = f.localization.clone().unwrap();
        assert_eq!(l.component, "DataFusion", "{l:#?}");
        assert_eq!(l.layer, "Parquet statistics pruning", "{l:#?}");
    }
}

/// A reader that embeds delta_kernel and fails as it does is one bug with the kernel: the
/// bug lists both readers (a reader standing for DuckDB's delta extension: the kernel's
/// survivor set, read as rows).
#[test]
fn one_kernel_fault_met_through_two_readers_is_one_bug() {
    use harness::conformance::run;
    let (_dir, table) = table("nan-negative", 4_746_479_065_444_327_403);
    let options = fixture(
        "nan-negative",
        table.location.clone(),
        vec!["y <= -0.906".into(), "NOT y >= -0.9".into()],
    );
    let report = run(
        &options,
        &mut [
            Box::<KernelAdapter>::default(),
            Box::new(EmbedsKernel::default()),
        ],
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!(report.findings.len(), 2, "{:#?}", report.findings);
    assert_eq!(report.bugs.len(), 1, "{:#?}", report.bugs);
    let bug = &report.bugs[0];
    assert_eq!(bug.component, "delta_kernel");
    assert_eq!(bug.readers, vec!["kernel", "duckdb-delta"]);
    assert_eq!(bug.findings, vec![1, 2]);
}

/// Stands for a reader that embeds delta_kernel (named as DuckDB's delta extension): the rows
/// of the files the kernel keeps.
#[derive(Default)]
struct EmbedsKernel {
    kernel: KernelAdapter,
}

impl Adapter for EmbedsKernel {
    fn name(&self) -> &'static str {
        "duckdb-delta"
    }
    fn version(&self) -> Result<String, String> {
        Ok("test".into())
    }
    fn open(&mut self, table: &TableUnderTest) -> Result<Result<(), String>, String> {
        self.kernel.open(table)
    }
    fn read(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Reading, String> {
        let Reading::Survivors(kept) = self.kernel.read(table, predicate)? else {
            return Err("no survivor set".into());
        };
        let Answer::Rows(rows) = self.kernel.truth(table, predicate)? else {
            return Err("the truth refused".into());
        };
        let per_file: Vec<u64> = rows
            .iter()
            .zip(&kept)
            .map(|(n, k)| if *k { *n } else { 0 })
            .collect();
        Ok(Reading::Rows {
            total: per_file.iter().sum(),
            per_file: Some(per_file),
        })
    }
    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
        self.kernel.truth(table, predicate)
    }
}

/// The copies the experiments read: the same live rows with the Delta statistics gone, with
/// the Parquet statistics gone, with partition values as columns; and with a hazard's rows
/// gone, those rows alone.
#[test]
fn a_copy_takes_away_one_layer_and_keeps_the_rows() {
    use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
    use harness::conformance::surgery::{Cut, DropRows, copy};
    let (_dir, table) = table("nan-negative", 4_746_479_065_444_327_403);
    let rows =
        |t: &TableUnderTest, p: &str| -> u64 { t.loaded.matching_rows(p).unwrap().iter().sum() };
    let all = rows(&table, "TRUE");
    assert!(table.files() > 1 && all > 0);
    assert!(!table.loaded.snapshot.metadata.partition_columns.is_empty());

    let no_delta = copy(
        &table,
        &Cut {
            delta_stats: true,
            ..Cut::default()
        },
    )
    .unwrap();
    assert_eq!(rows(&no_delta.table, "TRUE"), all);
    assert!(
        no_delta
            .table
            .loaded
            .snapshot
            .files
            .iter()
            .all(|f| f.stats.is_none())
    );

    let no_parquet = copy(
        &table,
        &Cut {
            parquet_stats: true,
            ..Cut::default()
        },
    )
    .unwrap();
    assert_eq!(rows(&no_parquet.table, "TRUE"), all);
    assert_eq!(
        rows(&no_parquet.table, "y <= -0.906"),
        rows(&table, "y <= -0.906")
    );
    for f in &no_parquet.table.loaded.snapshot.files {
        assert!(f.stats.is_some(), "the Delta statistics stay");
        let path = std::path::Path::new(&no_parquet.table.location).join(&f.path);
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        for g in reader.metadata().row_groups() {
            assert!(
                g.columns().iter().all(|c| c.statistics().is_none()),
                "{}",
                f.path
            );
        }
    }

    let as_columns = copy(
        &table,
        &Cut {
            partitions_as_columns: true,
            ..Cut::default()
        },
    )
    .unwrap();
    assert!(
        as_columns
            .table
            .loaded
            .snapshot
            .metadata
            .partition_columns
            .is_empty()
    );
    let p = &table.loaded.snapshot.metadata.partition_columns[0];
    for value in ["IS NULL", "= 3", "> 10"] {
        let q = format!("{p} {value}");
        assert_eq!(rows(&as_columns.table, &q), rows(&table, &q), "{q}");
    }

    let nan = rows(&table, "isnan(y)");
    assert!(nan > 0);
    let dropped = copy(
        &table,
        &Cut {
            drop_rows: Some(DropRows {
                columns: vec!["y".into()],
                holds: f64::is_nan,
            }),
            ..Cut::default()
        },
    )
    .unwrap();
    assert_eq!(rows(&dropped.table, "isnan(y)"), 0);
    assert_eq!(rows(&dropped.table, "TRUE"), all - nan);
}

/// One fault met through several readers is one bug listing them: the `_last_checkpoint`
/// hint past the log's end fails delta_kernel and every reader embedding it (DuckDB's
/// extension, delta-rs, Polars through delta-rs), and DataFusion's NaN drop in its Parquet
/// pruning reaches delta-rs too (findings 14 to 17, 24 and 25 of
/// reports/conformance-20261207c, six causes: two bugs).
#[test]
#[ignore = "external tier: delta-rs, Polars, DuckDB's delta extension (bash oracle/engines/setup.sh)"]
fn a_fault_of_an_embedded_component_is_one_bug_listing_its_readers() {
    use harness::conformance::{ReaderName, adapters, run};
    let (_dir, hint) = table("checkpoint-hint-ahead", 10_779_522_661_732_518_902);
    let options = fixture(
        "checkpoint-hint-ahead",
        hint.location.clone(),
        vec!["s IS NULL".into()],
    );
    let mut readers = adapters(&[ReaderName::All]).unwrap();
    let report = run(&options, &mut readers, &mut |_, _| {}).unwrap();
    let bug = report
        .bugs
        .iter()
        .find(|b| b.bug.contains("_last_checkpoint") || b.bug.contains("Checkpoint"))
        .unwrap_or_else(|| panic!("{:#?}", report.bugs));
    assert_eq!(bug.component, "delta_kernel", "{bug:#?}");
    for r in ["kernel", "duckdb-delta", "delta-rs", "polars"] {
        assert!(bug.readers.contains(&r.to_string()), "{r}: {bug:#?}");
    }

    let (_dir, nan) = table("nan-negative", 17_000_601_771_070_357_801);
    let options = fixture(
        "nan-negative",
        nan.location.clone(),
        vec!["x <= -987.261060561305".into()],
    );
    let mut readers = adapters(&[ReaderName::DatafusionParquet, ReaderName::DeltaRs]).unwrap();
    let report = run(&options, &mut readers, &mut |_, _| {}).unwrap();
    assert_eq!(report.findings.len(), 2, "{:#?}", report.findings);
    assert_eq!(report.bugs.len(), 1, "{:#?}", report.bugs);
    let bug = &report.bugs[0];
    assert_eq!(
        (bug.component.as_str(), bug.layer.as_str()),
        ("DataFusion", "Parquet statistics pruning"),
        "{bug:#?}"
    );
    assert_eq!(bug.readers, vec!["datafusion-parquet", "delta-rs"]);
}

/// `--reader NAME==VERSION` names a Python reader and a version, and nothing else.
#[test]
fn a_pinned_reader_is_a_reader_and_a_version() {
    use harness::conformance::Pin;
    let pin: Pin = "delta-rs==1.1.4".parse().unwrap();
    assert_eq!(
        (pin.reader, pin.version.as_str()),
        (DeltaReader::DeltaRs, "1.1.4")
    );
    assert_eq!(pin.to_string(), "delta-rs==1.1.4");
    let pin: Pin = "duckdb-delta==1.5.1".parse().unwrap();
    assert_eq!(pin.reader, DeltaReader::DuckdbDelta);
    for bad in [
        "delta-rs",
        "kernel==0.30",
        "polars==",
        "polars==1.0; rm -rf /",
        "polars==1 0",
    ] {
        assert!(bad.parse::<Pin>().is_err(), "{bad}");
    }
}

/// A reader pinned at an older version runs that version, from an environment of its own
/// (`oracle/engines/reader-env.sh`), and reads the tables as any reader does: delta-rs 1.1.4
/// drops the row whose timestamp lies past a maximum truncated to the millisecond
/// (`timestamps-truncated`), which 1.6.6 keeps.
#[test]
#[ignore = "external tier: delta-rs 1.1.4 from PyPI (oracle/engines/reader-env.sh)"]
fn a_reader_pinned_at_a_version_runs_that_version() {
    let mut old = WorkerAdapter::pinned(DeltaReader::DeltaRs, "1.1.4");
    assert_eq!(old.version().unwrap(), "1.1.4");
    let (_dir, table) = table("timestamps-truncated", 947_256_048_266_721_898);
    let predicate = "ts BETWEEN '2023-09-23 10:25:41.683296' AND '2023-09-23 10:25:41.683297'";
    old.open(&table).unwrap().unwrap();
    let (verdict, detail) = check(old.as_mut(), &table, predicate);
    assert_eq!(verdict, Verdict::MissingRows, "{detail}");
    let (verdict, detail) = check(old.as_mut(), &table, "ts IS NOT NULL");
    assert_eq!(verdict, Verdict::Correct, "{detail}");
    let mut new = WorkerAdapter::start(DeltaReader::DeltaRs);
    new.open(&table).unwrap().unwrap();
    let (verdict, detail) = check(&mut new, &table, predicate);
    assert_eq!(verdict, Verdict::Correct, "{detail}");
}
