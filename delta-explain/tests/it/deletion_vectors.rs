//! Records after deletion vectors: `numRecords` less each vector's cardinality, beside the raw
//! counts, in the report, its phases, the text page and the `--verify` funnel; held to the
//! rows the oracle reads with the vectors applied.

use crate::support::run_json;

const BIN: &str = env!("CARGO_BIN_EXE_delta-explain");

/// The live rows of every file, read by the oracle with its deletion vector applied.
fn oracle_live_rows(table: &str) -> u64 {
    let snapshot = oracle::log::Snapshot::open(table, None).expect("the oracle replays it");
    snapshot
        .files
        .iter()
        .map(|f| {
            oracle::read::read_file(&snapshot, f, None)
                .expect("the oracle reads the file")
                .live_rows
        })
        .sum()
}

#[test]
fn records_after_deletion_vectors_are_the_rows_a_reader_reads() {
    let mut with_vectors = 0;
    for table in testkit::all_tables() {
        let location = table.to_string_lossy().into_owned();
        let report = run_json(&[&location]);
        let files_with_vectors =
            report["table_features"]["deletion_vectors"]["files_with_deletion_vectors"]
                .as_u64()
                .unwrap();
        if files_with_vectors == 0 {
            assert!(
                report.get("total_live_records").is_none(),
                "{location}: no deletion vector, no second count"
            );
            continue;
        }
        with_vectors += 1;
        // Every file of the fixtures records a count, so the counts are whole.
        assert_eq!(report["files_without_record_count"], 0, "{location}");
        let live = report["total_live_records"].as_u64().unwrap();
        assert_eq!(live, oracle_live_rows(&location), "{location}");
        assert!(
            live < report["total_records"].as_u64().unwrap(),
            "{location}"
        );
    }
    assert!(with_vectors >= 1, "a fixture has deletion vectors");
}

#[test]
fn the_phases_page_and_funnel_count_records_after_deletion_vectors() {
    let table = testkit::fixtures()
        .join("real/dv-partitioned-with-checkpoint")
        .to_string_lossy()
        .into_owned();
    let report = run_json(&[&table, "-w", "part = 1"]);
    let phase = &report["phases"][0];
    let (output, live) = (
        phase["output_records"].as_u64().unwrap(),
        phase["output_live_records"].as_u64().unwrap(),
    );
    assert!(live <= output, "{phase}");
    assert_eq!(report["final_live_records"].as_u64(), Some(live));
    let text = testkit::run_binary(BIN, &[&table, "-w", "part = 1"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("after deletion vectors"),
        "{}",
        text.stdout
    );
    let verified = run_json(&[&table, "-w", "part = 1", "--verify"]);
    let stages = verified["verify"]["stages"].as_array().unwrap();
    assert_eq!(stages[0]["name"], "snapshot");
    assert_eq!(
        stages[0]["live_rows"].as_u64(),
        verified["total_live_records"].as_u64()
    );
    assert!(
        stages.iter().any(|s| s["live_rows"].as_u64() == Some(live)),
        "{stages:?}"
    );
}
