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
    // Self-contained: nothing is fetched (the trackers of the writers' hazards are text).
    for external in ["src=\"http", "href=\"http", "<link", "@import", "url("] {
        assert!(!page.contains(external), "the page fetches `{external}`");
    }
    assert!(page.contains("https://github.com/delta-io/delta/pull/7101"));
}

/// The doctor's workload reasons on taxi-nyc: an OR whose data branch keeps every file while
/// its partition branch keeps one day's (`OR_FAN_OUT`, naming both), an OR of two branches
/// that both prune (no reason), and `current_date()` bound to `--now` (`BOUND_AT_QUERY_TIME`,
/// the value named) or to the time of the run.
#[test]
fn the_doctor_names_an_or_fan_out_and_the_time_it_bound() {
    let taxi = testkit::taxi();
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["doctor", taxi.as_str(), "--format", "json"];
        all.extend(args);
        let run = testkit::run_binary(BIN, &all);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert_valid_doctor(&doc);
        doc
    };
    let reasons = |entry: &serde_json::Value, code: &str| -> Vec<String> {
        entry["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["code"] == code)
            .map(|r| r["message"].as_str().unwrap().to_string())
            .collect()
    };
    let doc = json(&[
        "-w",
        "pickup_date = '2024-01-03' OR passenger_count >= 0",
        "-w",
        "pickup_date = '2024-01-03' OR pickup_date = '2024-01-04'",
        "-w",
        "pickup_date = current_date()",
        "--now",
        "2024-01-03T12:00:00Z",
    ]);
    let fan = reasons(&doc["workload"][0], "OR_FAN_OUT");
    assert_eq!(fan.len(), 1, "{}", doc["workload"][0]);
    assert!(
        fan[0].contains("`passenger_count >= 0` keeps 20 of 20")
            && fan[0].contains("`pickup_date = '2024-01-03'` keeps 4"),
        "{}",
        fan[0]
    );
    assert!(
        reasons(&doc["workload"][1], "OR_FAN_OUT").is_empty(),
        "both branches prune: {}",
        doc["workload"][1]
    );
    assert_eq!(doc["workload"][2]["final_files"], 4);
    let bound = reasons(&doc["workload"][2], "BOUND_AT_QUERY_TIME");
    assert_eq!(bound.len(), 1, "{}", doc["workload"][2]);
    assert!(
        bound[0].contains("DATE '2024-01-03'") && bound[0].contains("--now"),
        "{}",
        bound[0]
    );
    let unbound = json(&["-w", "pickup_date = current_date()"]);
    let bound = reasons(&unbound["workload"][0], "BOUND_AT_QUERY_TIME");
    assert!(bound[0].contains("the time of this run"), "{}", bound[0]);
}

/// Column hazards and the writers' known hazards on the shared fixtures: a delta-rs table's
/// float columns (taxi-nyc: the NaN hazard, naming delta-rs and its tracker), timestamp maxima
/// at millisecond precision (timestamp-truncation-stats), widened columns (type-widening); and
/// none where a table holds no such column.
#[test]
fn the_doctor_names_column_hazards_and_the_writers_known_ones() {
    let doc = |table: &str| -> serde_json::Value {
        let run = testkit::run_binary(BIN, &["doctor", table, "--format", "json"]);
        assert_eq!(run.code, 0, "{table}: {}", run.stderr);
        serde_json::from_str(&run.stdout).unwrap()
    };
    let codes = |d: &serde_json::Value, code: &str| -> Vec<String> {
        d["hazards"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["code"] == code)
            .map(|h| h["column"].as_str().unwrap().to_string())
            .collect()
    };
    let taxi = doc(&testkit::taxi());
    let known = taxi["writer_hazards"].as_array().unwrap();
    assert_eq!(known.len(), 1, "{known:?}");
    assert_eq!(known[0]["id"], "nan-left-out-of-float-bounds");
    assert_eq!(known[0]["writer"], "delta-rs:py-1.5.0");
    assert_eq!(known[0]["versions"], serde_json::json!([[0, 3]]));
    assert_eq!(
        codes(&taxi, "TIMESTAMP_MILLIS_BOUNDS"),
        ["tpep_pickup_datetime", "tpep_dropoff_datetime"]
    );
    let real = testkit::fixtures().join("real");
    let truncation = doc(&real.join("timestamp-truncation-stats").to_string_lossy());
    assert_eq!(codes(&truncation, "TIMESTAMP_MILLIS_BOUNDS"), ["ts_col"]);
    let widening = doc(&real.join("type-widening").to_string_lossy());
    let widened = codes(&widening, "TYPE_WIDENING_STATS");
    for column in [
        "byte_long",
        "int_long",
        "float_double",
        "date_timestamp_ntz",
    ] {
        assert!(widened.contains(&column.to_string()), "{widened:?}");
    }
    let message = widening["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["code"] == "TYPE_WIDENING_STATS" && h["column"] == "int_long")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("integer -> long"), "{message}");
    // Spark-written, no float or timestamp column: no hazard of either, no known writer hazard.
    let decimal = doc(&real.join("basic-decimal-table").to_string_lossy());
    assert!(
        decimal["hazards"].as_array().unwrap().is_empty(),
        "{decimal}"
    );
    assert!(decimal["writer_hazards"].as_array().unwrap().is_empty());
}

/// Tiny files per partition and null counts left out, on a copy of taxi-nyc given one more
/// commit: a 200 MiB file in the 2024-01-01 partition whose statistics record min/max for two
/// columns and the null count of one (the doctor reads the log alone: the file need not exist).
#[test]
fn the_doctor_counts_tiny_files_per_partition_and_null_counts_left_out() {
    let (_dir, table) = testkit::copy_table(std::path::Path::new(&testkit::taxi()));
    let stats = serde_json::json!({
        "numRecords": 10,
        "minValues": {"PULocationID": 1, "fare_amount": 1.0},
        "maxValues": {"PULocationID": 2, "fare_amount": 9.0},
        "nullCount": {"fare_amount": 0}
    });
    let add = serde_json::json!({"add": {
        "path": "pickup_date=2024-01-01/big.parquet",
        "partitionValues": {"pickup_date": "2024-01-01"},
        "size": 200u64 << 20,
        "modificationTime": 1_700_000_000_000u64,
        "dataChange": true,
        "stats": stats.to_string()
    }});
    let info =
        serde_json::json!({"commitInfo": {"operation": "WRITE", "engineInfo": "a-test-writer"}});
    std::fs::write(
        table.join("_delta_log/00000000000000000004.json"),
        format!("{info}\n{add}\n"),
    )
    .unwrap();
    let run = testkit::run_binary(
        BIN,
        &["doctor", &table.to_string_lossy(), "--format", "json"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_valid_doctor(&doc);
    let layout = &doc["layout"];
    assert_eq!(layout["files"], 21);
    assert_eq!(layout["tiny_files"], 20);
    assert!((layout["tiny_share"].as_f64().unwrap() - 20.0 / 21.0).abs() < 1e-9);
    let partitions = layout["per_partition"].as_array().unwrap();
    assert_eq!(partitions.len(), 5);
    let first_day = partitions
        .iter()
        .find(|p| p["partition"] == "pickup_date=2024-01-01")
        .unwrap();
    assert_eq!(first_day["files"], 5);
    assert_eq!(first_day["tiny_files"], 4);
    assert!((first_day["tiny_share"].as_f64().unwrap() - 0.8).abs() < 1e-9);
    // The most tiny files first, then the most files: the 2024-01-01 partition leads.
    assert_eq!(partitions[0]["partition"], "pickup_date=2024-01-01");
    for p in &partitions[1..] {
        assert_eq!(p["tiny_share"], 1.0, "{p}");
    }
    let absent: Vec<&str> = doc["hazards"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["code"] == "NULL_COUNT_ABSENT")
        .map(|h| h["column"].as_str().unwrap())
        .collect();
    assert_eq!(absent, ["PULocationID"], "{}", doc["hazards"]);
    // The last commit's writer is listed; it has no known hazard.
    assert_eq!(doc["writers"].as_array().unwrap().len(), 2);
    assert_eq!(doc["writer_hazards"].as_array().unwrap().len(), 1);
}
