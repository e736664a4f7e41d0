//! Column mapping in `id` mode: data files are matched to logical columns by Parquet field id,
//! not by name. The file here names its columns differently from both the logical and the
//! physical names, so only the ids can connect them.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;
use parquet::arrow::ArrowWriter;
use serde_json::json;

fn with_id(field: Field, id: i64) -> Field {
    field.with_metadata(HashMap::from([(
        "PARQUET:field_id".to_string(),
        id.to_string(),
    )]))
}

#[test]
fn id_mode_reads_columns_by_field_id() {
    let dir = tempfile::tempdir().unwrap();
    let schema = Arc::new(Schema::new(vec![
        with_id(Field::new("renamed_b", DataType::Utf8, true), 2),
        with_id(Field::new("renamed_a", DataType::Int64, true), 1),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from(vec!["x", "y", "z"])),
            Arc::new(Int64Array::from(vec![10, 20, 30])),
        ],
    )
    .unwrap();
    let mut writer = ArrowWriter::try_new(
        std::fs::File::create(dir.path().join("f.parquet")).unwrap(),
        schema,
        None,
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let size = std::fs::metadata(dir.path().join("f.parquet"))
        .unwrap()
        .len();
    let field = |name: &str, t: &str, id: i64| {
        json!({"name": name, "type": t, "nullable": true,
            "metadata": {"delta.columnMapping.id": id, "delta.columnMapping.physicalName": format!("col-{id}")}})
    };
    let schema_string = json!({"type": "struct", "fields": [field("a", "long", 1), field("b", "string", 2), field("c", "long", 3)]});
    let lines = [
        json!({"protocol": {"minReaderVersion": 2, "minWriterVersion": 5}}),
        json!({"metaData": {"id": "t", "format": {"provider": "parquet", "options": {}}, "schemaString": schema_string.to_string(),
            "partitionColumns": [], "configuration": {"delta.columnMapping.mode": "id", "delta.columnMapping.maxColumnId": "3"}}}),
        json!({"add": {"path": "f.parquet", "partitionValues": {}, "size": size, "modificationTime": 0, "dataChange": true,
            "stats": "{\"numRecords\":3,\"minValues\":{\"col-1\":10},\"maxValues\":{\"col-1\":30},\"nullCount\":{\"col-1\":0}}"}}),
    ];
    std::fs::create_dir(dir.path().join("_delta_log")).unwrap();
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(
        dir.path().join("_delta_log/00000000000000000000.json"),
        text,
    )
    .unwrap();

    let loaded = LoadedTable::load(
        Snapshot::open(&dir.path().to_string_lossy(), None).unwrap(),
        &plan(1),
    )
    .unwrap();
    let cases: &[(&str, u64)] = &[
        ("a >= 20", 2),
        ("b = 'x'", 1),
        ("a = 20 AND b = 'y'", 1),
        ("c IS NULL", 3),
        ("a > 30", 0),
    ];
    for (predicate, rows) in cases {
        assert_eq!(
            loaded.matching_rows(predicate).unwrap(),
            vec![*rows],
            "{predicate}"
        );
    }
    // Statistics are keyed by physical name: `a > 30` is pruned by them, `a >= 20` is kept.
    let kept = |p: &str| oracle::pruning::kept_by_statistics(&loaded.snapshot, p).unwrap()[0];
    assert!(!kept("a > 30"));
    assert!(kept("a >= 20"));
}
