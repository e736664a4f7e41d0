//! The benchmarks' three ways of explaining agree file for file on every shape, and the
//! scaling report's binary writes a complete report. (Speed is measured by `cargo bench` and
//! `scaling report`, never asserted here.)

use harness::scaling::{
    Partitioning, TableShape, delta_explain, final_files, floor_scan, log_log_slope, naive_explain,
    scan_predicates,
};

/// For each shape of 1,000 files, the high-cardinality ones too: (a) one kernel scan, (b)
/// three kernel scans and (c) the tool keep the same files, and the counts are the ones the
/// shape's predicate selects by design.
#[test]
fn the_three_modes_agree_on_every_shape() {
    let work = tempfile::tempdir().unwrap();
    let shapes = TableShape::all_of(1_000)
        .into_iter()
        .chain(TableShape::high_cardinality(1_000));
    for shape in shapes {
        let dir = shape.write(work.path()).unwrap();
        let table = dir.to_string_lossy().into_owned();
        let predicate = shape.predicate();
        let scans = scan_predicates(&table, &predicate).unwrap();
        let floor = floor_scan(&table, scans.full.clone()).unwrap();
        let [all, partition, full] = naive_explain(&table, &scans).unwrap();
        let report: serde_json::Value =
            serde_json::from_str(&delta_explain(&table, &predicate).unwrap()).unwrap();
        let name = shape.name();
        // ids below 100 n live in the first tenth of the files; `p = 'p3'` keeps one in ten,
        // or the one file of its own partition (file 3, among the first tenth).
        let (expected_partition, expected_final) = match shape.partitioning {
            Partitioning::Flat => (1_000, 100),
            Partitioning::Partitioned => (100, 10),
            Partitioning::PartitionPerFile => (1, 1),
        };
        assert_eq!(all, 1_000, "{name}: the baseline scan keeps every file");
        assert_eq!(partition, expected_partition, "{name}: the partition scan");
        assert_eq!(
            (floor, full),
            (expected_final, expected_final),
            "{name}: the full scans"
        );
        assert_eq!(
            final_files(&report.to_string()).unwrap(),
            expected_final,
            "{name}: delta-explain"
        );
        assert_eq!(report["total_files"], 1_000, "{name}");
        if shape.partitioning.has_partition_column() {
            assert_eq!(
                report["phases"][0]["output_files"], expected_partition,
                "{name}: the partition phase"
            );
        }
    }
}

#[test]
fn cpu_time_is_read_and_never_runs_backwards() {
    let before = harness::scaling::cpu_ms().expect("/proc/self/stat readable");
    // Some work, so the counter has something to count (its size is not asserted).
    let sum: u64 = (0..2_000_000u64).map(std::hint::black_box).sum();
    std::hint::black_box(sum);
    let after = harness::scaling::cpu_ms().expect("/proc/self/stat readable");
    assert!(
        before >= 0.0 && after >= before,
        "cpu time went from {before} to {after}"
    );
}

#[test]
fn log_log_slope_reads_the_growth_exponent() {
    let linear: Vec<(f64, f64)> = [1e4, 1e5, 1e6].iter().map(|x| (*x, 3.0 * x)).collect();
    let square: Vec<(f64, f64)> = [1e4, 1e5, 1e6].iter().map(|x| (*x, x * x)).collect();
    assert!((log_log_slope(&linear).unwrap() - 1.0).abs() < 1e-9);
    assert!((log_log_slope(&square).unwrap() - 2.0).abs() < 1e-9);
    assert_eq!(
        log_log_slope(&[(10.0, 5.0)]),
        None,
        "one point has no slope"
    );
}

#[test]
fn the_scaling_binary_writes_a_complete_report() {
    let out = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let run = testkit::run_binary(
        env!("CARGO_BIN_EXE_scaling"),
        &[
            "report",
            "--out",
            &out.path().to_string_lossy(),
            "--work",
            &work.path().to_string_lossy(),
            "--sizes",
            "1000,2000",
            "--repeats",
            "1",
            "--predicates",
            "40",
            "--separate-runs",
            "4",
            "--class-sizes",
            "1000",
            "--high-cardinality-sizes",
            "1000",
            "--class-repeats",
            "1",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap())
            .unwrap();
    let shapes = report["shapes"].as_array().unwrap();
    assert_eq!(shapes.len(), 8, "four shapes at each of two sizes");
    for shape in shapes {
        for mode in ["floor", "naive", "explain", "replay", "unpruned"] {
            // Small tables get four times the runs asked for: their jitter is a larger share.
            assert_eq!(
                shape[mode]["runs"].as_array().unwrap().len(),
                4,
                "{mode}: {shape}"
            );
            assert!(
                shape[mode]["median_ms"].as_f64().unwrap() > 0.0,
                "{mode}: {shape}"
            );
            assert!(
                shape[mode]["peak_mib"].as_f64().unwrap() > 0.0,
                "{mode}: {shape}"
            );
        }
    }
    check_classes(&report);
    check_claims(&report);
    let page = std::fs::read_to_string(out.path().join("README.md")).unwrap();
    std::fs::remove_file(out.path().join("README.md")).unwrap();
    let render = testkit::run_binary(
        env!("CARGO_BIN_EXE_scaling"),
        &["render", "--out", &out.path().to_string_lossy()],
    );
    assert_eq!(render.code, 0, "{}", render.stderr);
    assert_eq!(
        std::fs::read_to_string(out.path().join("README.md")).unwrap(),
        page,
        "render rebuilds the same page from report.json"
    );
    for svg in [
        "checkpoint-time.svg",
        "checkpoint-memory.svg",
        "json-commits-time.svg",
        "json-commits-memory.svg",
        "checkpoint-classes-time-ratio.svg",
        "checkpoint-classes-memory.svg",
        "json-commits-classes-time-ratio.svg",
        "json-commits-classes-memory.svg",
    ] {
        assert!(page.contains(svg), "the page shows {svg}");
        let chart = std::fs::read_to_string(out.path().join(svg)).unwrap();
        assert!(
            chart.starts_with("<svg") && chart.contains("<polyline"),
            "{svg} plots lines"
        );
    }
}

/// Every predicate class each shape can hold is measured, with its runs and survivors.
fn check_classes(report: &serde_json::Value) {
    // Every predicate class each shape can hold: three on the flat shapes, six on the
    // partitioned ones and on the partition-per-file ones, both log layouts.
    let classes = report["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 2 * 3 + 2 * 6 + 2 * 6, "{classes:?}");
    assert_eq!(
        classes
            .iter()
            .filter(|c| c["class"] == "partition-only"
                && c["shape"]["partitioning"] == "partition-per-file")
            .map(|c| c["survivors"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![1; 2],
        "a partition of its own keeps one file"
    );
    for class in [
        "none",
        "partition-only",
        "data-only",
        "mixed",
        "unsupported",
        "mixed-or",
    ] {
        assert!(
            classes.iter().any(|c| c["class"] == class),
            "the class {class} is measured"
        );
    }
    for row in classes {
        for mode in ["floor", "explain"] {
            assert_eq!(row[mode]["runs"].as_array().unwrap().len(), 4, "{row}");
            assert!(row[mode]["peak_mib"].as_f64().unwrap() > 0.0, "{row}");
        }
        assert!(row["wall_ratio"].as_f64().unwrap() > 0.0, "{row}");
        assert!(row["peer"].is_null(), "no peer was given: {row}");
    }
    assert_eq!(
        classes
            .iter()
            .filter(|c| c["class"] == "none")
            .map(|c| c["survivors"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![1000; 6],
        "no predicate keeps every file"
    );
}

/// The throughput measured, and the claims made for each class and shape.
fn check_claims(report: &serde_json::Value) {
    assert_eq!(report["predicates"]["predicates"], 40);
    assert!(
        report["predicates"]["one_core_per_second"]
            .as_f64()
            .unwrap()
            > 0.0,
        "the one-thread throughput is measured"
    );
    assert!(
        report["oracle"]["predicates"].as_u64().unwrap() > 0,
        "the oracle ran some predicates"
    );
    let claims = report["claims"].as_array().unwrap();
    assert!(
        claims
            .iter()
            .any(|c| c["claim"].as_str().unwrap().contains("3,000 predicates"))
    );
    for class in ["none", "mixed-or"] {
        assert!(
            claims
                .iter()
                .any(|c| c["claim"].as_str().unwrap().starts_with(&format!(
                    "{class}: (c) at most 1.1x one kernel scan's wall time"
                ))),
            "a wall-time claim for {class}: {claims:?}"
        );
    }
    // The high-cardinality shapes are claimed apart from the others.
    let per_file: Vec<&str> = claims
        .iter()
        .map(|c| c["claim"].as_str().unwrap())
        .filter(|c| c.starts_with("a partition per file, "))
        .collect();
    assert!(
        per_file
            .iter()
            .any(|c| c.starts_with("a partition per file, partition-only: (c) at most 1.1x")),
        "{per_file:?}"
    );
    assert!(
        claims
            .iter()
            .filter(|c| c["claim"].as_str().unwrap().starts_with("partition-only: "))
            .all(|c| !c["measured"]
                .as_str()
                .unwrap()
                .contains("partition-per-file")),
        "the claims of the other shapes leave the partition-per-file rows out: {claims:?}"
    );
}

/// Shapes round-trip through a report, and a report written before shapes had a
/// partitioning (`"partitioned": true|false`) still reads, so `scaling render` redraws it.
#[test]
fn shapes_read_as_reports_store_them_old_and_new() {
    for shape in TableShape::all_of(7)
        .into_iter()
        .chain(TableShape::high_cardinality(7))
    {
        let text = serde_json::to_string(&shape).unwrap();
        assert_eq!(
            serde_json::from_str::<TableShape>(&text).unwrap(),
            shape,
            "{text}"
        );
    }
    for (partitioned, partitioning) in [
        (true, Partitioning::Partitioned),
        (false, Partitioning::Flat),
    ] {
        let old =
            format!(r#"{{"files": 7, "partitioned": {partitioned}, "layout": "checkpoint"}}"#);
        let shape: TableShape = serde_json::from_str(&old).unwrap();
        assert_eq!(shape.partitioning, partitioning, "{old}");
        assert_eq!(shape.files, 7);
    }
}
