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
    let truth_refused = Answer::Refused("no".into());
    assert_eq!(classify(&refused, &truth_refused).0, Verdict::BothRefused);
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
