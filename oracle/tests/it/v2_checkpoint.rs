//! A V2 checkpoint with a sidecar: the adds live in `_delta_log/_sidecars/`, the checkpoint
//! file holds protocol, metadata and the sidecar reference. Built from taxi-nyc's own commits;
//! with the commits removed, the replay can only come from the checkpoint.

use std::sync::Arc;

use arrow::json::reader::{ReaderBuilder, infer_json_schema_from_seekable};
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;
use parquet::arrow::ArrowWriter;
use serde_json::{Value, json};
use testkit::{copy_table, fixtures};

/// The actions of every commit of the table, in order.
fn commit_actions(log: &std::path::Path) -> Vec<Value> {
    let mut names: Vec<_> = std::fs::read_dir(log)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
        .iter()
        .flat_map(|n| {
            std::fs::read_to_string(log.join(n))
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect::<Vec<Value>>()
        })
        .collect()
}

/// Writes JSON objects as a Parquet file, with the schema arrow infers from them.
fn write_parquet(path: &std::path::Path, rows: &[Value]) {
    let text: String = rows.iter().map(|r| r.to_string() + "\n").collect();
    let mut cursor = std::io::Cursor::new(text.into_bytes());
    let (schema, _) = infer_json_schema_from_seekable(&mut cursor, None).unwrap();
    let schema = Arc::new(schema);
    let reader = ReaderBuilder::new(schema.clone()).build(cursor).unwrap();
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(path).unwrap(), schema, None).unwrap();
    for batch in reader {
        writer.write(&batch.unwrap()).unwrap();
    }
    writer.close().unwrap();
}

#[test]
fn a_v2_checkpoint_with_a_sidecar_replays_like_the_commits() {
    let source = fixtures().join("taxi-nyc");
    let (_dir, table) = copy_table(&source);
    let log = table.join("_delta_log");
    let actions = commit_actions(&log);
    let adds: Vec<Value> = actions
        .iter()
        .filter(|a| a.get("add").is_some())
        .cloned()
        .collect();
    assert!(
        actions.iter().all(|a| a.get("remove").is_none()),
        "taxi-nyc only appends"
    );
    let metadata = actions
        .iter()
        .rev()
        .find(|a| a.get("metaData").is_some())
        .unwrap()
        .clone();
    std::fs::create_dir(log.join("_sidecars")).unwrap();
    write_parquet(&log.join("_sidecars/adds.parquet"), &adds);
    let checkpoint = [
        json!({"checkpointMetadata": {"version": 3}}),
        json!({"protocol": {"minReaderVersion": 3, "minWriterVersion": 7,
            "readerFeatures": ["timestampNtz", "v2Checkpoint"], "writerFeatures": ["timestampNtz", "v2Checkpoint"]}}),
        metadata,
        json!({"sidecar": {"path": "adds.parquet", "sizeInBytes": 1, "modificationTime": 0}}),
    ];
    let text: String = checkpoint.iter().map(|a| a.to_string() + "\n").collect();
    std::fs::write(
        log.join("00000000000000000003.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json"),
        text,
    )
    .unwrap();
    for v in 0..=3 {
        std::fs::remove_file(log.join(format!("{v:020}.json"))).unwrap();
    }

    let original = Snapshot::open(&source.to_string_lossy(), None).unwrap();
    let from_checkpoint = Snapshot::open(&table.to_string_lossy(), None).unwrap();
    assert_eq!(from_checkpoint.version, 3);
    let paths = |s: &Snapshot| {
        s.files
            .iter()
            .map(|f| f.path.clone())
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(paths(&from_checkpoint), paths(&original));
    let predicate = "pickup_date = '2024-01-03' AND trip_distance > 5";
    let total = |s: Snapshot| -> u64 {
        LoadedTable::load(s, &plan(2))
            .unwrap()
            .matching_rows(predicate)
            .unwrap()
            .iter()
            .sum()
    };
    assert_eq!(total(from_checkpoint), total(original));
}
