//! `table_features`: each feature that changes how a report reads is declared with its note.
//! Tables with clustering, in-commit timestamps and an unknown writer feature are made by
//! appending one protocol/metadata commit to a copy of a real fixture.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{copy_table, fixtures, run_json};

/// Appends commit `version` to the copied table's log: commitInfo first (in-commit timestamps
/// require it), then `actions`.
fn append_commit(table: &Path, version: u64, actions: &[Value]) {
    let mut lines = vec![
        json!({"commitInfo": {"timestamp": 1_700_000_000_000_i64, "inCommitTimestamp": 1_700_000_000_000_i64, "operation": "SET TBLPROPERTIES"}}),
    ];
    lines.extend(actions.iter().cloned());
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(
        table.join("_delta_log").join(format!("{version:020}.json")),
        text,
    )
    .unwrap();
}

/// The table's current metaData action with `configuration` replaced.
fn metadata_with(table: &Path, configuration: Value) -> Value {
    let log = std::fs::read_to_string(table.join("_delta_log/00000000000000000000.json")).unwrap();
    let mut meta = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| v.get("metaData").cloned())
        .expect("commit 0 has metaData");
    meta["configuration"] = configuration;
    json!({ "metaData": meta })
}

fn codes(notes: &Value) -> Vec<String> {
    notes
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn clustering_in_commit_timestamps_and_unknown_features_are_declared() {
    let (_dir, table) = copy_table(&fixtures().join("real/data-skipping-basic-stats-all-types"));
    let metadata = metadata_with(
        &table,
        json!({
            "delta.enableInCommitTimestamps": "true",
            "delta.inCommitTimestampEnablementVersion": "1",
            "delta.inCommitTimestampEnablementTimestamp": "1700000000000",
        }),
    );
    append_commit(
        &table,
        1,
        &[
            json!({"protocol": {"minReaderVersion": 1, "minWriterVersion": 7,
                "writerFeatures": ["domainMetadata", "clustering", "inCommitTimestamp", "futureWriterFeature"]}}),
            metadata,
            json!({"domainMetadata": {"domain": "delta.clustering",
                "configuration": "{\"clusteringColumns\":[[\"as_int\"],[\"as_string\"]]}", "removed": false}}),
        ],
    );
    let table = table.to_string_lossy().into_owned();
    let report = run_json(&[&table, "-w", "as_int > 0"]);
    let features = &report["table_features"];
    assert_eq!(
        features["clustering_columns"],
        json!(["as_int", "as_string"])
    );
    assert_eq!(features["in_commit_timestamps"], json!(true));
    assert_eq!(features["protocol"]["min_writer_version"], json!(7));
    assert_eq!(
        features["protocol"]["unknown_writer_features"],
        json!(["futureWriterFeature"])
    );
    assert_eq!(features["protocol"]["unknown_reader_features"], json!([]));
    assert_eq!(
        codes(&features["notes"]),
        ["CLUSTERING", "IN_COMMIT_TIMESTAMPS", "UNKNOWN_FEATURES"]
    );
    assert!(
        features["notes"][2]["message"]
            .as_str()
            .unwrap()
            .contains("futureWriterFeature")
    );
    // The survivor sets are those of the table without the extra commit: features inform, they
    // never change what is read.
    let plain = run_json(&[
        &fixtures()
            .join("real/data-skipping-basic-stats-all-types")
            .to_string_lossy(),
        "-w",
        "as_int > 0",
    ]);
    assert_eq!(report["final_files"], plain["final_files"]);
}

#[test]
fn a_plain_table_declares_no_feature() {
    let report = run_json(&[&fixtures().join("real/basic_partitioned").to_string_lossy()]);
    let features = &report["table_features"];
    assert_eq!(features["clustering_columns"], Value::Null);
    assert_eq!(features["in_commit_timestamps"], json!(false));
    assert_eq!(features["protocol"]["min_reader_version"], json!(1));
    assert_eq!(features["notes"], json!([]));
}

/// The protocol's gates (testkit::gates, the tables `delta-oracle` is held to as well): a type
/// change the protocol does not allow, at any depth, and a reader version past 3 are refused
/// with exit 3 naming the column or the version, in the one-predicate, many-predicate and
/// predicate-less runs; the version before the change reads; the allowed widenings read.
#[test]
fn the_protocols_gates_refuse_what_no_reader_may_read() {
    let gates = testkit::gates::gate_tables();
    let before = testkit::gates::VERSION_BEFORE.to_string();
    let predicates = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        predicates.path(),
        "trip_distance > 5\npassenger_count > 2\n",
    )
    .unwrap();
    for case in &gates.cases {
        let table = case.table.to_str().unwrap();
        let runs = [
            crate::support::run(&[table, "-w", "passenger_count > 2"]),
            crate::support::run(&[table, "--predicates", predicates.path().to_str().unwrap()]),
            crate::support::run(&[table]),
        ];
        for run in runs {
            match case.refused {
                Some(fragment) => {
                    testkit::assert_error(&run, case.name, 3, fragment);
                    if case.name.contains("-to-") || case.name.contains("digits") {
                        assert!(
                            run.stderr.contains("type change"),
                            "{}: {}",
                            case.name,
                            run.stderr
                        );
                    }
                }
                None => assert_eq!(run.code, 0, "{}: {}", case.name, run.stderr),
            }
        }
        let at_before = run_json(&[table, "--at-version", &before, "-w", "passenger_count > 2"]);
        assert_eq!(
            at_before["version"],
            testkit::gates::VERSION_BEFORE,
            "{}",
            case.name
        );
        assert_eq!(at_before["total_files"], 20, "{}", case.name);
        if case.refused.is_none() {
            // The statistics read as at version 3 (a column mapping applied where the protocol
            // says to ignore it would find none and keep every file).
            let predicate = "passenger_count > 5";
            let latest = run_json(&[table, "-w", predicate]);
            let earlier = run_json(&[table, "--at-version", &before, "-w", predicate]);
            assert_eq!(earlier["final_files"], 8, "{}", case.name);
            assert_eq!(
                latest["final_files"], earlier["final_files"],
                "{}",
                case.name
            );
        }
    }
}
