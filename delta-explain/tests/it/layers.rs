//! `--layers`: the five forms of one predicate, read off the explanation that made the counts.

use serde_json::Value;

use crate::support::{assert_golden, run, run_json, taxi};

const DE_MORGAN: &str = "NOT (pickup_date != '2024-01-03' OR trip_distance <= 5)";

#[test]
fn layers_in_json() {
    let doc = run_json(&[&taxi(), "-w", DE_MORGAN, "--layers"]);
    let layers = &doc["layers"];
    // 1. Parsed: the NOT over the OR, as written.
    assert_eq!(layers["parsed"]["sql"], DE_MORGAN);
    assert_eq!(layers["parsed"]["tree"]["kind"], "not");
    assert_eq!(layers["parsed"]["tree"]["children"][0]["kind"], "or");
    let parsed_leaves: Vec<&str> = layers["parsed"]["tree"]["children"][0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["sql"].as_str().unwrap())
        .collect();
    assert_eq!(
        parsed_leaves,
        ["pickup_date != '2024-01-03'", "trip_distance <= 5"]
    );
    // 2. Normalized: NOT pushed into the leaves.
    assert_eq!(
        layers["normalized"]["sql"],
        "pickup_date = '2024-01-03' AND trip_distance > 5"
    );
    assert_eq!(layers["normalized"]["tree"]["kind"], "and");
    assert_eq!(layers["normalized"]["sql"], doc["normalized_predicate"]);
    // 3. Classification, one entry per conjunct.
    let buckets: Vec<(&str, &str)> = layers["classification"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["fragment"].as_str().unwrap(),
                f["bucket"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        buckets,
        [
            ("pickup_date = '2024-01-03'", "partition_safe"),
            ("trip_distance > 5", "stats_safe")
        ]
    );
    // 4. Kernel predicates of the scans.
    assert_eq!(
        layers["kernel"]["partition_scan"],
        "Column(pickup_date) = '2024-01-03'"
    );
    assert_eq!(layers["kernel"]["partition_evaluator"], Value::Null);
    assert_eq!(
        layers["kernel"]["full_scan"],
        "AND(Column(pickup_date) = '2024-01-03', Column(trip_distance) > 5)"
    );
    // 5. Survivor sets agree with the phase counts and nest.
    let sets = layers["survivors"].as_array().unwrap();
    let counts: Vec<u64> = sets.iter().map(|s| s["count"].as_u64().unwrap()).collect();
    assert_eq!(counts, [20, 4, 2]);
    assert_eq!(counts[2], doc["final_files"].as_u64().unwrap());
    let files = |i: usize| -> Vec<&str> {
        sets[i]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect()
    };
    for f in files(2) {
        assert!(
            files(1).contains(&f),
            "{f}: the full set nests in the partition set"
        );
    }
    for f in files(1) {
        assert!(
            f.starts_with("pickup_date=2024-01-03/"),
            "{f} survives partition pruning"
        );
    }
}

#[test]
fn the_partition_evaluator_fragment_is_shown() {
    let doc = run_json(&[
        &taxi(),
        "-w",
        "pickup_date LIKE '%01-03%' AND trip_distance > 5",
        "--layers",
    ]);
    assert_eq!(
        doc["layers"]["kernel"]["partition_evaluator"],
        "pickup_date LIKE '%01-03%'"
    );
    assert_eq!(doc["layers"]["kernel"]["partition_scan"], Value::Null);
    assert_eq!(doc["layers"]["survivors"][1]["count"], 4);
}

#[test]
fn limit_caps_each_survivor_set() {
    let doc = run_json(&[&taxi(), "-w", DE_MORGAN, "--layers", "--limit", "1"]);
    for set in doc["layers"]["survivors"].as_array().unwrap() {
        assert_eq!(set["files"].as_array().unwrap().len(), 1, "{set}");
        assert_eq!(set["files_truncated"], true, "{set}");
    }
}

#[test]
fn layers_need_a_predicate() {
    let r = run(&[&taxi(), "--layers"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn layers_page() {
    let predicate = "NOT (pickup_date != '2024-01-03' OR trip_distance <= 5) AND (pickup_date LIKE '%3' OR fare_amount > 3 AND NOT passenger_count IN (1, 2))";
    let r = run(&[&taxi(), "-w", predicate, "--layers", "--limit", "3"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_golden("layers.txt", &r.stdout);
}
