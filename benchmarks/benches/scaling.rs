//! Criterion benchmarks of the performance claims (`cargo bench -p benchmarks`; not run in CI).
//!
//! - `explain/<layout>/<partitioning>`: per table size, (a) one kernel scan with the full
//!   predicate, (b) three independent kernel scans, (c) delta-explain, side by side;
//! - `predicates/taxi-nyc`: 100 predicates after one replay against 100 separate runs;
//! - `matching/taxi-nyc`: the oracle's per-file matching against a plain DataFusion count.
//!
//! `DELTA_EXPLAIN_BENCH_SIZES=1000,10000` picks the sizes (default 1k, 10k, 100k, 1M files);
//! `DELTA_EXPLAIN_BENCH_WORK=DIR` keeps the generated tables between runs. The scaling report
//! (`src/bin/scaling.rs`) measures the same functions with peak memory and writes the plots.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use explain_core::replay::ReplayedTable;
use explain_core::report_request::ReportRequest;
use explain_core::session::Session;
use harness::corpus::{corpus_path, read_corpus};
use harness::scaling::{
    ParquetCount, TableShape, delta_explain, floor_scan, naive_explain, oracle_subject,
    scan_predicates,
};

fn sizes() -> Vec<usize> {
    std::env::var("DELTA_EXPLAIN_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000, 1_000_000])
}

fn work_dir() -> (Option<tempfile::TempDir>, PathBuf) {
    match std::env::var_os("DELTA_EXPLAIN_BENCH_WORK") {
        Some(dir) => (None, PathBuf::from(dir)),
        None => {
            let temp = tempfile::tempdir().expect("a temporary folder for the benchmark tables");
            let path = temp.path().to_path_buf();
            (Some(temp), path)
        }
    }
}

fn explain_modes(c: &mut Criterion) {
    let (_temp, work) = work_dir();
    let sizes = sizes();
    let Some(&smallest) = sizes.first() else {
        return;
    };
    for config in TableShape::all_of(smallest) {
        let mut group = c.benchmark_group(format!("explain/{}", config.config_name()));
        group.sample_size(10);
        for &files in &sizes {
            let shape = TableShape { files, ..config };
            let dir = shape.write(&work).expect("the benchmark table is written");
            let table = dir.to_string_lossy().to_string();
            let predicate = shape.predicate();
            let scans = scan_predicates(&table, &predicate).expect("the predicate compiles");
            if files >= 100_000 {
                // One iteration takes seconds: flat sampling, and no more samples than asked.
                group
                    .sampling_mode(SamplingMode::Flat)
                    .measurement_time(Duration::from_secs(30));
            }
            group.throughput(Throughput::Elements(files as u64));
            group.bench_with_input(
                BenchmarkId::new("a-one-kernel-scan", files),
                &table,
                |b, t| b.iter(|| black_box(floor_scan(t, scans.full.clone()).expect("scan"))),
            );
            group.bench_with_input(
                BenchmarkId::new("b-three-kernel-scans", files),
                &table,
                |b, t| b.iter(|| black_box(naive_explain(t, &scans).expect("scans"))),
            );
            group.bench_with_input(
                BenchmarkId::new("c-delta-explain", files),
                &table,
                |b, t| b.iter(|| black_box(delta_explain(t, &predicate).expect("explain"))),
            );
        }
        group.finish();
    }
}

const PREDICATES: usize = 100;

fn many_predicates(c: &mut Criterion) {
    let taxi = testkit::fixtures_location()
        .join("taxi-nyc")
        .to_string_lossy()
        .to_string();
    let corpus = read_corpus(&corpus_path("taxi-nyc")).expect("the taxi corpus");
    let batch: Vec<&String> = corpus.iter().cycle().take(PREDICATES).collect();
    let table = ReplayedTable::open(&taxi, None).expect("taxi replays");
    let session = Session::new(&table);
    let request = ReportRequest::default();
    let mut group = c.benchmark_group("predicates/taxi-nyc");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(PREDICATES as u64));
    let lines: Vec<&str> = batch.iter().map(|p| p.as_str()).collect();
    group.bench_function("after-one-replay", |b| {
        b.iter(|| {
            for p in &batch {
                let (report, _) = session
                    .report(Some(p), &request, Instant::now())
                    .expect("explain");
                black_box(report.to_json());
            }
        })
    });
    group.bench_function("after-one-replay-every-core", |b| {
        b.iter(|| {
            for outcome in session.reports(&lines, &request, explain_core::cores()) {
                black_box(outcome.expect("explain").0.to_json());
            }
        })
    });
    group.bench_function("separate-runs", |b| {
        b.iter(|| {
            for p in &batch {
                black_box(delta_explain(&taxi, p).expect("explain"));
            }
        })
    });
    group.finish();
}

fn matching(c: &mut Criterion) {
    let taxi = testkit::fixtures_location()
        .join("taxi-nyc")
        .to_string_lossy()
        .to_string();
    let (loaded, files, predicates) = oracle_subject(&taxi).expect("the oracle loads taxi");
    let plain = ParquetCount::new(files).expect("DataFusion reads the Parquet files");
    let runnable: Vec<&String> = predicates
        .iter()
        .filter(|p| plain.count(p).is_ok())
        .take(PREDICATES)
        .collect();
    let rows: u64 = loaded.counts.iter().map(|c| c.live_rows).sum();
    let mut group = c.benchmark_group("matching/taxi-nyc");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(rows * runnable.len() as u64));
    group.bench_function("oracle-rows-per-file", |b| {
        b.iter(|| {
            for p in &runnable {
                black_box(loaded.matching_rows(p).expect("match"));
            }
        })
    });
    group.bench_function("datafusion-count-parquet", |b| {
        b.iter(|| {
            for p in &runnable {
                black_box(plain.count(p).expect("count"));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, explain_modes, many_predicates, matching);
criterion_main!(benches);
