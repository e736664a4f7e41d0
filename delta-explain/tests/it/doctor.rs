//! `delta-explain doctor`: on taxi-nyc and every shared fixture, the JSON validated by its
//! schema and the text page read; the facts of taxi-nyc checked.

use crate::support::assert_valid_doctor;

const BIN: &str = env!("CARGO_BIN_EXE_delta-explain");

#[test]
fn the_doctors_json_follows_its_schema_on_every_fixture() {
    for table in testkit::all_tables() {
        let location = table.to_string_lossy().into_owned();
        let run = testkit::run_binary(BIN, &["doctor", &location, "--format", "json"]);
        assert_eq!(run.code, 0, "{location}: {}", run.stderr);
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_valid_doctor(&doc);
        let files = doc["layout"]["files"].as_u64().unwrap();
        for c in doc["columns"].as_array().unwrap() {
            assert!(
                c["files_with_min_max"].as_u64().unwrap() <= files,
                "{location}: {c}"
            );
        }
    }
}

#[test]
fn the_doctor_reads_taxi_and_its_workload() {
    let taxi = testkit::taxi();
    let run = testkit::run_binary(
        BIN,
        &[
            "doctor",
            &taxi,
            "-w",
            "trip_distance > 5",
            "-w",
            "nope >",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_valid_doctor(&doc);
    assert_eq!(doc["layout"]["files"], 20);
    assert_eq!(doc["layout"]["partitions"], 5);
    assert_eq!(doc["statistics"]["num_indexed_cols"], 32);
    assert_eq!(
        doc["statistics"]["not_indexed"].as_array().unwrap().len(),
        0
    );
    assert_eq!(doc["workload"][0]["final_files"], 9);
    let codes: Vec<&str> = doc["workload"][0]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"NO_PARTITION_FILTER"), "{codes:?}");
    // A predicate the explainer refuses is listed with why, not a failure of the doctor.
    assert!(doc["workload"][1]["error"].is_string(), "{doc}");
    assert!(doc["fix"].is_null());
    // taxi-nyc is written by delta-rs, whose float bounds leave NaN out.
    assert!(
        doc["writers"][0]["writer"]
            .as_str()
            .unwrap()
            .starts_with("delta-rs"),
        "{}",
        doc["writers"]
    );
    let nan = doc["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["column"] == "trip_distance")
        .expect("the float column's hazard");
    assert_eq!(nan["code"], "NAN_UNGUARDED_BOUNDS");
    assert!(
        nan["message"].as_str().unwrap().contains("delta-rs"),
        "{nan}"
    );
    let text = testkit::run_binary(BIN, &["doctor", &taxi, "-w", "trip_distance > 5"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    for section in [
        "Statistics settings:",
        "Columns",
        "Layout:",
        "Writers",
        "Hazards:",
        "Workload:",
    ] {
        assert!(text.stdout.contains(section), "{section}: {}", text.stdout);
    }
    let missing = testkit::run_binary(BIN, &["doctor", "/nonexistent/table"]);
    assert_eq!(missing.code, 3, "{}", missing.stderr);
}

#[test]
fn the_doctors_page_draws_a_bar_per_column_and_holds_the_text() {
    let taxi = testkit::taxi();
    let run = testkit::run_binary(
        BIN,
        &[
            "doctor",
            &taxi,
            "-w",
            "trip_distance > 5",
            "--format",
            "html",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = run.stdout;
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert_eq!(
        page.matches("class=\"column-bar\"").count(),
        10,
        "a bar per data column"
    );
    assert!(
        page.contains("Statistics settings:"),
        "the text page inside"
    );
    assert!(page.contains("<code>trip_distance &gt; 5</code>"), "{page}");
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "no network"
    );
}
