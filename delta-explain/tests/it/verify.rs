//! `--verify`, `--ranges` and `--format html` through the binary: the funnel's stages and
//! their agreement with the explainer's phases, the ranges on the text page and in JSON, and
//! the errors of the flags' misuse.

use serde_json::Value;

use crate::support::{run, run_json, taxi};

const PREDICATE: &str = "pickup_date >= '2024-01-03' AND fare_amount > 30";

fn stage<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["verify"]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("stage {name} in {:#}", doc["verify"]))
}

#[test]
fn the_funnel_continues_the_phases_down_to_the_matching_rows() {
    let doc = run_json(&[&taxi(), "-w", PREDICATE, "--verify"]);
    let names: Vec<&str> = doc["verify"]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "snapshot",
            "partition_pruning",
            "data_skipping",
            "row_groups",
            "matching"
        ]
    );
    // The log stages are the report's own counts.
    assert_eq!(stage(&doc, "snapshot")["files"], doc["total_files"]);
    assert_eq!(stage(&doc, "data_skipping")["files"], doc["final_files"]);
    assert_eq!(stage(&doc, "data_skipping")["bytes"], doc["final_bytes"]);
    let phases = doc["phases"].as_array().unwrap();
    assert_eq!(
        stage(&doc, "partition_pruning")["files"],
        phases[0]["output_files"]
    );
    // Taxi: 2 of the 3 kept dates' files hold fares above 30, and every kept file does.
    let matched = stage(&doc, "matching");
    assert!(matched["files"].as_u64().unwrap() > 0);
    assert!(matched["rows"].as_u64().unwrap() > 0);
    assert!(
        matched["rows"].as_u64() < stage(&doc, "row_groups")["rows"].as_u64(),
        "not every row read matches"
    );
    assert_eq!(
        doc["verify"]["dropped_matching_files"],
        Value::Array(vec![])
    );
    assert_eq!(
        doc["verify"]["false_positive_files"]["count"]
            .as_u64()
            .unwrap()
            + matched["files"].as_u64().unwrap(),
        doc["final_files"].as_u64().unwrap()
    );
    assert!(
        doc["verify"]["row_group_rules"]
            .as_str()
            .unwrap()
            .contains("DataFusion")
    );
    // What would remove the false positives: the diagnoses, which --verify computes.
    assert!(doc["diagnoses"].is_array());
}

#[test]
fn a_kept_file_without_a_match_is_a_named_false_positive() {
    // A narrow fare range: eleven taxi files' bounds span it, five of them hold no fare in it.
    let doc = run_json(&[&taxi(), "-w", "fare_amount BETWEEN 84 AND 85", "--verify"]);
    let waste = &doc["verify"]["false_positive_files"];
    let kept = doc["final_files"].as_u64().unwrap();
    let matched = stage(&doc, "matching")["files"].as_u64().unwrap();
    assert_eq!((kept, matched), (11, 6));
    assert_eq!(waste["count"].as_u64().unwrap(), kept - matched);
    assert_eq!(
        waste["examples"].as_array().unwrap().len() as u64,
        kept - matched
    );
    assert!(waste["bytes_pct"].as_f64().unwrap() > 0.0);
    // One row group per taxi file: the footers agree with the log's bounds, so the same
    // row groups are read in vain.
    assert_eq!(doc["verify"]["false_positive_row_groups"]["count"], 5);
    // The remedy names clustering on the column.
    let remedies = doc["verify"]["remedies"].as_array().unwrap();
    assert!(
        remedies.iter().any(|r| r
            .as_str()
            .unwrap()
            .contains("cluster the data on fare_amount")),
        "{remedies:?}"
    );
}

#[test]
fn the_text_page_shows_the_funnel_and_its_verdict() {
    let r = run(&[&taxi(), "-w", PREDICATE, "--verify"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for line in [
        "Verified against the data (--verify):",
        "row_groups",
        "matching",
        "sound: no dropped file holds a match",
    ] {
        assert!(r.stdout.contains(line), "`{line}` in\n{}", r.stdout);
    }
}

#[test]
fn ranges_draw_every_file_against_the_predicates_interval() {
    let doc = run_json(&[&taxi(), "-w", PREDICATE, "--ranges", "fare_amount"]);
    let ranges = &doc["ranges"][0];
    assert_eq!(ranges["column"], "fare_amount");
    assert_eq!(ranges["axis"], "numeric");
    let files = ranges["files"].as_array().unwrap();
    assert_eq!(
        files.len() as u64 + ranges["files_without_bounds"].as_u64().unwrap(),
        doc["total_files"].as_u64().unwrap()
    );
    // Sorted by low bound, so overlap reads as stairs.
    let lows: Vec<f64> = files.iter().map(|f| f["low"].as_f64().unwrap()).collect();
    assert!(lows.windows(2).all(|w| w[0] <= w[1]), "{lows:?}");
    assert_eq!(ranges["interval"]["low"][0], "30");
    assert_eq!(ranges["interval"]["high"], Value::Null);
    // Each file's kept flag is the report's: the kept ones are the final survivors.
    let kept = files.iter().filter(|f| f["kept"] == true).count() as u64;
    assert_eq!(kept, doc["final_files"].as_u64().unwrap());
    let depth = ranges["clustering"]["average_depth"].as_f64().unwrap();
    assert!((1.0..=files.len() as f64).contains(&depth), "{depth}");

    let text = run(&[&taxi(), "-w", PREDICATE, "--ranges", "fare_amount"]);
    assert_eq!(text.code, 0);
    assert!(text.stdout.contains("Ranges of fare_amount"));
    assert!(text.stdout.contains("  predicate |"));
    let bars = text
        .stdout
        .lines()
        .filter(|l| l.starts_with("  kept ") || l.starts_with("  pruned "))
        .count();
    assert_eq!(bars, files.len());
}

#[test]
fn misuse_of_the_new_flags_is_bad_input() {
    let taxi = taxi();
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("p.sql");
    std::fs::write(&list, "fare_amount > 1\n").unwrap();
    let list = list.to_string_lossy().into_owned();
    for (args, fragment) in [
        (vec![taxi.as_str(), "--verify"], "--where"),
        (
            vec![taxi.as_str(), "--predicates", &list, "--format", "html"],
            "--format html",
        ),
        (
            vec![
                taxi.as_str(),
                "-w",
                "fare_amount > 1",
                "--ranges",
                "no_such",
            ],
            "unknown column",
        ),
    ] {
        let r = run(&args);
        testkit::assert_error(&r, &format!("{args:?}"), 2, fragment);
    }
}
