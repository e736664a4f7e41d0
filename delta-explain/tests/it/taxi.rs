//! The reference behaviour on `taxi-nyc` (../shared/design.md), in JSON and text.

use serde_json::Value;

use crate::support::{analysis_codes, assert_golden, parse_report, run, run_json, taxi};

/// One reference case: the counts of each phase, the normalized render, the buckets, the
/// confidence and the note codes.
struct Case {
    predicate: &'static str,
    /// `(phase name, input, output, confidence, honoured predicate)`.
    phases: &'static [(&'static str, u64, u64, &'static str, &'static str)],
    final_files: u64,
    normalized: &'static str,
    partition_safe: &'static [&'static str],
    partition_exact: &'static [&'static str],
    stats_safe: &'static [&'static str],
    unsplittable: &'static [&'static str],
    confidence: &'static str,
    notes: &'static [&'static str],
    /// Hazard codes (analysis.hazards): never notes, never in the confidence.
    hazards: &'static [&'static str],
    golden: Option<&'static str>,
}

const P: &str = "Partition pruning";
const D: &str = "Data skipping (min/max statistics)";

const CASES: &[Case] = &[
    Case {
        predicate: "pickup_date = '2024-01-03' AND trip_distance > 5",
        phases: &[
            (P, 20, 4, "exact", "pickup_date = '2024-01-03'"),
            (D, 4, 2, "conservative", "trip_distance > 5"),
        ],
        final_files: 2,
        normalized: "pickup_date = '2024-01-03' AND trip_distance > 5",
        partition_safe: &["pickup_date = '2024-01-03'"],
        partition_exact: &[],
        stats_safe: &["trip_distance > 5"],
        unsplittable: &[],
        confidence: "conservative",
        notes: &[],
        hazards: &["NAN_UNGUARDED_BOUNDS"],
        golden: Some("reference-1-partition-and-stats.txt"),
    },
    Case {
        predicate: "NOT (pickup_date != '2024-01-03' OR trip_distance <= 5)",
        phases: &[
            (P, 20, 4, "exact", "pickup_date = '2024-01-03'"),
            (D, 4, 2, "conservative", "trip_distance > 5"),
        ],
        final_files: 2,
        normalized: "pickup_date = '2024-01-03' AND trip_distance > 5",
        partition_safe: &["pickup_date = '2024-01-03'"],
        partition_exact: &[],
        stats_safe: &["trip_distance > 5"],
        unsplittable: &[],
        confidence: "conservative",
        notes: &[],
        hazards: &["NAN_UNGUARDED_BOUNDS"],
        golden: Some("reference-2-de-morgan.txt"),
    },
    Case {
        predicate: "UPPER(pickup_date) = '2024-01-03' AND trip_distance > 8",
        phases: &[(D, 20, 7, "incomplete", "trip_distance > 8")],
        final_files: 7,
        normalized: "UPPER(pickup_date) = '2024-01-03' AND trip_distance > 8",
        partition_safe: &[],
        partition_exact: &[],
        stats_safe: &["trip_distance > 8"],
        unsplittable: &["UPPER(pickup_date) = '2024-01-03'"],
        confidence: "incomplete",
        notes: &["UNSUPPORTED_EXPRESSION"],
        hazards: &["NAN_UNGUARDED_BOUNDS"],
        golden: Some("reference-3-unsupported.txt"),
    },
    Case {
        predicate: "pickup_date LIKE '2024-01-0%' AND trip_distance > 8",
        phases: &[
            (
                P,
                20,
                20,
                "exact",
                "pickup_date >= '2024-01-0' AND pickup_date < '2024-01-1'",
            ),
            (D, 20, 7, "conservative", "trip_distance > 8"),
        ],
        final_files: 7,
        normalized: "pickup_date >= '2024-01-0' AND pickup_date < '2024-01-1' AND trip_distance > 8",
        partition_safe: &["pickup_date >= '2024-01-0'", "pickup_date < '2024-01-1'"],
        partition_exact: &[],
        stats_safe: &["trip_distance > 8"],
        unsplittable: &[],
        confidence: "conservative",
        notes: &[],
        hazards: &["NAN_UNGUARDED_BOUNDS"],
        golden: Some("reference-4-like-prefix.txt"),
    },
    Case {
        predicate: "pickup_date LIKE '%01-03%' AND trip_distance > 5",
        phases: &[
            (P, 20, 4, "exact", "pickup_date LIKE '%01-03%'"),
            (D, 4, 2, "conservative", "trip_distance > 5"),
        ],
        final_files: 2,
        normalized: "pickup_date LIKE '%01-03%' AND trip_distance > 5",
        partition_safe: &[],
        partition_exact: &["pickup_date LIKE '%01-03%'"],
        stats_safe: &["trip_distance > 5"],
        unsplittable: &[],
        confidence: "conservative",
        notes: &[],
        hazards: &["NAN_UNGUARDED_BOUNDS"],
        golden: Some("reference-5-like-substring.txt"),
    },
    Case {
        predicate: "pickup_date = '2024-01-03' OR trip_distance > 30",
        phases: &[(
            D,
            20,
            6,
            "incomplete",
            "pickup_date = '2024-01-03' OR trip_distance > 30",
        )],
        final_files: 6,
        normalized: "pickup_date = '2024-01-03' OR trip_distance > 30",
        partition_safe: &[],
        partition_exact: &[],
        stats_safe: &[],
        unsplittable: &["pickup_date = '2024-01-03' OR trip_distance > 30"],
        confidence: "incomplete",
        notes: &["UNSPLITTABLE_OR"],
        hazards: &["NAN_UNGUARDED_BOUNDS"],
        golden: Some("reference-6-mixed-or.txt"),
    },
    Case {
        predicate: "pickup_date IN ('2024-01-02', '2024-01-03') AND trip_distance > 5",
        phases: &[
            (
                P,
                20,
                8,
                "exact",
                "pickup_date IN ('2024-01-02', '2024-01-03')",
            ),
            (D, 8, 4, "conservative", "trip_distance > 5"),
        ],
        final_files: 4,
        normalized: "pickup_date IN ('2024-01-02', '2024-01-03') AND trip_distance > 5",
        partition_safe: &["pickup_date IN ('2024-01-02', '2024-01-03')"],
        partition_exact: &[],
        stats_safe: &["trip_distance > 5"],
        unsplittable: &[],
        confidence: "conservative",
        notes: &[],
        hazards: &["NAN_UNGUARDED_BOUNDS"],
        golden: None,
    },
    Case {
        predicate: "pickup_date BETWEEN '2024-01-02' AND '2024-01-03'",
        phases: &[(
            P,
            20,
            8,
            "exact",
            "pickup_date >= '2024-01-02' AND pickup_date <= '2024-01-03'",
        )],
        final_files: 8,
        normalized: "pickup_date >= '2024-01-02' AND pickup_date <= '2024-01-03'",
        partition_safe: &["pickup_date >= '2024-01-02'", "pickup_date <= '2024-01-03'"],
        partition_exact: &[],
        stats_safe: &[],
        unsplittable: &[],
        confidence: "exact",
        notes: &[],
        hazards: &[],
        golden: None,
    },
    Case {
        predicate: "(pickup_date = '2024-01-03' AND trip_distance > 5) OR (pickup_date = '2024-01-03' AND fare_amount > 50)",
        phases: &[
            (P, 20, 4, "exact", "pickup_date = '2024-01-03'"),
            (
                D,
                4,
                4,
                "conservative",
                "trip_distance > 5 OR fare_amount > 50",
            ),
        ],
        final_files: 4,
        normalized: "pickup_date = '2024-01-03' AND (trip_distance > 5 OR fare_amount > 50)",
        partition_safe: &["pickup_date = '2024-01-03'"],
        partition_exact: &[],
        stats_safe: &["trip_distance > 5 OR fare_amount > 50"],
        unsplittable: &[],
        confidence: "conservative",
        notes: &[],
        hazards: &["NAN_UNGUARDED_BOUNDS"],
        golden: Some("factored-or.txt"),
    },
];

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("{v} is an array"))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn check_json(case: &Case) {
    let table = taxi();
    let doc = run_json(&[&table, "-w", case.predicate]);
    let ctx = case.predicate;
    assert_eq!(doc["total_files"], 20, "{ctx}");
    assert_eq!(doc["final_files"], case.final_files, "{ctx}");
    assert_eq!(doc["version"], 3, "{ctx}");
    assert_eq!(doc["predicate"], case.predicate, "{ctx}");
    assert_eq!(doc["normalized_predicate"], case.normalized, "{ctx}");
    let a = &doc["analysis"];
    let buckets = [
        ("partition_safe", case.partition_safe),
        ("partition_exact", case.partition_exact),
        ("stats_safe", case.stats_safe),
        ("unsplittable", case.unsplittable),
    ];
    for (bucket, expected) in buckets {
        assert_eq!(
            strings(&a["fragments"][bucket]),
            expected,
            "{ctx}: {bucket}"
        );
        // The peer report's form: the fragments joined by AND, null when there are none.
        let joined = (!expected.is_empty()).then(|| expected.join(" AND "));
        assert_eq!(a[bucket].as_str(), joined.as_deref(), "{ctx}: {bucket}");
    }
    assert_eq!(a["confidence"], case.confidence, "{ctx}");
    let codes: Vec<&str> = a["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, case.notes, "{ctx}");
    let hazards: Vec<&str> = a["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["code"].as_str().unwrap())
        .collect();
    assert_eq!(hazards, case.hazards, "{ctx}");
    let phases = doc["phases"].as_array().unwrap();
    assert_eq!(phases.len(), case.phases.len(), "{ctx}: phases {phases:?}");
    for (got, (name, input, output, confidence, predicate)) in phases.iter().zip(case.phases) {
        assert_eq!(got["name"], *name, "{ctx}");
        assert_eq!(got["input_files"], *input, "{ctx}: {name} input");
        assert_eq!(got["output_files"], *output, "{ctx}: {name} output");
        assert_eq!(got["confidence"], *confidence, "{ctx}: {name} confidence");
        assert_eq!(got["predicate"], *predicate, "{ctx}: {name} predicate");
    }
    // Phases chain: each starts where the previous ended, the last ends at the final count.
    let mut expected_input = 20;
    for p in phases {
        assert_eq!(p["input_files"], expected_input, "{ctx}: phases chain");
        expected_input = p["output_files"].as_u64().unwrap();
    }
    assert_eq!(
        expected_input, case.final_files,
        "{ctx}: the last phase ends at final_files"
    );
    let pct = doc["total_pruning_pct"].as_f64().unwrap();
    let want = (20 - case.final_files) as f64 * 100.0 / 20.0;
    assert!(
        (pct - want).abs() < 0.01,
        "{ctx}: total_pruning_pct {pct} vs {want}"
    );
}

#[test]
fn reference_cases_in_json() {
    for case in CASES {
        check_json(case);
    }
}

#[test]
fn reference_cases_in_text() {
    let table = taxi();
    for case in CASES {
        let r = run(&[&table, "-w", case.predicate]);
        assert_eq!(r.code, 0, "{}: {}", case.predicate, r.stderr);
        assert!(
            r.stdout.contains(&format!(
                "Total reduction: 20 -> {} files",
                case.final_files
            )),
            "{}: {}",
            case.predicate,
            r.stdout
        );
        if let Some(golden) = case.golden {
            assert_golden(golden, &r.stdout);
        }
    }
}

#[test]
fn degraded_phase_annotates_what_it_stripped() {
    let r = run(&[
        &taxi(),
        "-w",
        "UPPER(pickup_date) = '2024-01-03' AND trip_distance > 8",
    ]);
    assert!(
        r.stdout
            .contains("predicate:       trip_distance > 8 (+1 fragment left out, keeps all files)"),
        "{}",
        r.stdout
    );
    let doc = run_json(&[
        &taxi(),
        "-w",
        "UPPER(pickup_date) = '2024-01-03' AND trip_distance > 8",
    ]);
    assert_eq!(
        strings(&doc["phases"][0]["stripped"]),
        ["UPPER(pickup_date) = '2024-01-03'"]
    );
}

#[test]
fn no_predicate_reports_the_baseline() {
    let doc = run_json(&[&taxi()]);
    assert_eq!(doc["total_files"], 20);
    assert_eq!(doc["final_files"], 20);
    assert_eq!(doc["predicate"], Value::Null);
    assert_eq!(doc["analysis"], Value::Null);
    assert_eq!(doc["phases"].as_array().unwrap().len(), 0);
}

/// A predicate may start with a minus sign: `-w '-x > 0'` is the predicate, not a flag, in
/// the short and the long form, as `-w='-x > 0'` is.
#[test]
fn a_predicate_may_start_with_a_minus_sign() {
    let joined = run_json(&[&taxi(), "-w=-trip_distance > -5"]);
    assert_eq!(joined["predicate"], "-trip_distance > -5");
    for args in [
        ["-w", "-trip_distance > -5"],
        ["--where", "-trip_distance > -5"],
    ] {
        let doc = run_json(&[&taxi(), args[0], args[1]]);
        assert_eq!(doc["predicate"], joined["predicate"], "{args:?}");
        assert_eq!(doc["final_files"], joined["final_files"], "{args:?}");
    }
}

#[test]
fn time_travel_reads_older_versions() {
    // Each commit of taxi-nyc adds one file per day: version N holds 5 * (N + 1) files.
    for version in 0..=3u64 {
        let v = version.to_string();
        let doc = run_json(&[
            &taxi(),
            "--at-version",
            &v,
            "-w",
            "pickup_date = '2024-01-03'",
        ]);
        assert_eq!(doc["version"], version);
        assert_eq!(doc["total_files"], 5 * (version + 1));
        assert_eq!(doc["final_files"], version + 1);
    }
}

#[test]
fn constant_predicates() {
    let cases: &[(&str, u64)] = &[
        ("FALSE", 0),
        ("TRUE", 20),
        ("trip_distance = NULL", 0),
        ("1 = 1 AND pickup_date = '2024-01-01'", 4),
    ];
    for (predicate, expected) in cases {
        let doc = run_json(&[&taxi(), "-w", predicate]);
        assert_eq!(doc["final_files"], *expected, "{predicate}");
    }
}

#[test]
fn strict_leaves_nan_exposed_fragments_out() {
    let doc = run_json(&[
        &taxi(),
        "-w",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
        "--strict",
    ]);
    assert_eq!(doc["strict"], true);
    assert_eq!(
        doc["final_files"], 4,
        "without the NaN-exposed bound only partition pruning remains"
    );
    assert_eq!(
        strings(&doc["phases"][1]["nan_excluded"]),
        ["trip_distance > 5"]
    );
    assert_eq!(analysis_codes(&doc, "hazards"), ["NAN_STRICT_EXCLUDED"]);
    assert!(
        doc["analysis"]["notes"].as_array().unwrap().is_empty(),
        "hazards are not notes"
    );
    // A NaN with its sign bit set is below -inf in DataFusion's order: `<` is exposed too.
    let doc = run_json(&[&taxi(), "-w", "trip_distance < 1", "--strict"]);
    assert_eq!(doc["final_files"], 20);
    // NaN never satisfies `=` with a number: such bounds stay in the scan under --strict, and
    // the zero literal stands for both zeros.
    let doc = run_json(&[&taxi(), "-w", "trip_distance = 0", "--strict"]);
    let codes: Vec<&str> = doc["analysis"]["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["SIGNED_ZERO_WIDENED"]);
    assert_eq!(doc["analysis"]["confidence"], "conservative");
    assert!(
        doc["final_files"].as_u64().unwrap() < 20,
        "`trip_distance = 0` still prunes under --strict"
    );
}

#[test]
fn verbose_lists_each_file_with_the_phase_that_pruned_it() {
    let doc = run_json(&[
        &taxi(),
        "-w",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
        "-v",
    ]);
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 20);
    assert_eq!(doc["files_truncated"], false);
    for f in files {
        let day = f["partition_values"]["pickup_date"].as_str().unwrap();
        let max = f["max_values"]["trip_distance"].as_f64().unwrap();
        let (kept, pruned_by) = if day != "2024-01-03" {
            (false, Value::from("Partition pruning"))
        } else if max > 5.0 {
            (true, Value::Null)
        } else {
            (false, Value::from("Data skipping (min/max statistics)"))
        };
        assert_eq!(f["kept"], kept, "{f}");
        assert_eq!(f["pruned_by"], pruned_by, "{f}");
        assert_eq!(f["num_records"], 200);
        assert_eq!(f["has_stats"], true);
    }
    assert_eq!(files.iter().filter(|f| f["kept"] == true).count(), 2);
    let limited = run_json(&[&taxi(), "-w", "trip_distance > 5", "-v", "--limit", "3"]);
    assert_eq!(limited["files"].as_array().unwrap().len(), 3);
    assert_eq!(limited["files_truncated"], true);
    assert!(
        limited["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["kept"] == true),
        "kept files come first"
    );
}

#[test]
fn gates_fail_with_exit_1_and_still_print_the_report() {
    let p = "pickup_date = '2024-01-03' AND trip_distance > 5";
    let failed = run(&[&taxi(), "-w", p, "--min-pruning", "95", "--format", "json"]);
    assert_eq!(failed.code, 1, "{}", failed.stderr);
    let doc: Value = parse_report(&failed.stdout);
    assert_eq!(doc["result"], "fail");
    assert_eq!(doc["assertions"][0]["name"], "min_pruning");
    assert_eq!(doc["assertions"][0]["actual"], 90.0);
    assert_eq!(failed.stderr.lines().count(), 1, "{}", failed.stderr);
    let passed = run(&[&taxi(), "-w", p, "--min-pruning", "80"]);
    assert_eq!(passed.code, 0, "{}", passed.stderr);
    assert!(passed.stdout.contains("Result: pass"));
    let stats = run_json(&[&taxi(), "-w", p, "--assert-stats"]);
    assert_eq!(stats["assertions"][0]["name"], "stats_complete");
    assert_eq!(stats["assertions"][0]["missing_count"], 0);
    assert_eq!(stats["result"], "pass");
}

#[test]
fn verbose_page() {
    let r = run(&[
        &taxi(),
        "-w",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
        "-v",
        "--limit",
        "4",
    ]);
    assert_eq!(r.code, 0);
    assert_golden("verbose-limit-4.txt", &r.stdout);
}

#[test]
fn accepted_partition_values_in_json() {
    let cases: &[(&str, Value)] = &[
        (
            "pickup_date = '2024-01-03' AND trip_distance > 5",
            serde_json::json!({"pickup_date": ["2024-01-03"]}),
        ),
        (
            "pickup_date > '2024-01-03'",
            serde_json::json!({"pickup_date": ["2024-01-04", "2024-01-05"]}),
        ),
        (
            "pickup_date = '2030-01-01'",
            serde_json::json!({"pickup_date": []}),
        ),
        (
            "trip_distance > 5",
            serde_json::json!({"pickup_date": null}),
        ),
    ];
    for (predicate, expected) in cases {
        let run = crate::support::run(&[&taxi(), "-w", predicate, "--format", "json"]);
        assert_eq!(run.code, 0, "{predicate}: {}", run.stderr);
        // No present value accepted: the run says so on stderr, and only then.
        assert_eq!(
            run.stderr
                .contains("warning: no file holds a `pickup_date` value"),
            expected["pickup_date"] == serde_json::json!([]),
            "{predicate}: {}",
            run.stderr
        );
        let doc = crate::support::parse_report(&run.stdout);
        assert_eq!(
            &doc["analysis"]["partition_values_accepted"], expected,
            "{predicate}"
        );
    }
}

/// Comparisons across types run as engines run them (retype.rs), never exit 2 where an engine
/// would run the query.
#[test]
fn comparisons_across_types_prune_as_the_equivalent_in_type_predicate() {
    let kept = |p: &str| {
        run_json(&[&taxi(), "-w", p])["final_files"]
            .as_u64()
            .unwrap()
    };
    for (across, within) in [
        ("passenger_count > 1.5", "passenger_count >= 2"),
        ("passenger_count = 1.5", "FALSE"),
        ("passenger_count < 1e30", "passenger_count IS NOT NULL"),
        ("PULocationID = '132'", "PULocationID = 132"),
        ("PULocationID IN (132.5, 161)", "PULocationID = 161"),
    ] {
        assert_eq!(
            kept(across),
            kept(within),
            "`{across}` keeps what `{within}` keeps"
        );
    }
    assert_eq!(
        kept("trip_distance > '8'"),
        kept("trip_distance > 8"),
        "a quoted number on a double column"
    );
    assert!(
        kept("trip_distance > '8'") < 20,
        "not vacuous: the quoted number prunes"
    );
}

/// Bytes and records per phase and in total agree with the per-file view: the sums of
/// `size_bytes` and `num_records` over the files each survivor set keeps.
#[test]
fn bytes_and_records_are_counted_per_phase() {
    let doc = run_json(&[
        &taxi(),
        "-w",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
        "-v",
    ]);
    let files = doc["files"].as_array().unwrap();
    let sum = |keep: &dyn Fn(&Value) -> bool, key: &str| -> u64 {
        files
            .iter()
            .filter(|f| keep(f))
            .map(|f| f[key].as_u64().unwrap())
            .sum()
    };
    let all = |_: &Value| true;
    let after_partition = |f: &Value| f["pruned_by"] != "Partition pruning";
    let kept = |f: &Value| f["kept"] == true;
    assert_eq!(doc["total_bytes"], sum(&all, "size_bytes"));
    assert_eq!(doc["final_bytes"], sum(&kept, "size_bytes"));
    assert_eq!(doc["total_records"], 4000);
    assert_eq!(doc["final_records"], sum(&kept, "num_records"));
    assert_eq!(doc["files_without_record_count"], 0);
    let phases = doc["phases"].as_array().unwrap();
    assert_eq!(phases[0]["input_bytes"], sum(&all, "size_bytes"));
    assert_eq!(
        phases[0]["output_bytes"],
        sum(&after_partition, "size_bytes")
    );
    assert_eq!(phases[0]["output_records"], 800);
    assert_eq!(phases[1]["input_bytes"], phases[0]["output_bytes"]);
    assert_eq!(phases[1]["output_bytes"], doc["final_bytes"]);
    assert_eq!(
        phases[1]["pruned_bytes"].as_u64().unwrap(),
        phases[1]["input_bytes"].as_u64().unwrap() - phases[1]["output_bytes"].as_u64().unwrap()
    );
    assert_eq!(phases[1]["output_records"], 400);
}
