//! Running `delta-oracle`, and writing small Delta tables with chosen Parquet layouts.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

pub use testkit::Run;

/// Runs `delta-oracle` with `args`.
pub fn run(args: &[&str]) -> Run {
    testkit::run_binary(env!("CARGO_BIN_EXE_delta-oracle"), args)
}

/// The first predicates of the table's corpus (`corpora/NAME.txt`), and `true`.
pub fn corpus_predicates(name: &str) -> Vec<String> {
    let path = testkit::workspace_root().join(format!("corpora/{name}.txt"));
    let corpus = std::fs::read_to_string(path).expect("the table's corpus");
    let mut out: Vec<String> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(4)
        .map(str::to_string)
        .collect();
    out.push("true".into());
    out
}

pub fn run_json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let r = run(&all);
    assert_eq!(r.code, 0, "delta-oracle {args:?}: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("JSON ({e}): {}", r.stdout))
}

/// Writes a one-file Delta table at `dir`: columns `id` (0..rows) and `tag`, row groups of
/// `row_group_rows` rows, and the add action's deletion vector `dv` (a JSON object) if any.
/// Returns the data file's size.
pub fn write_table(
    dir: &Path,
    rows: i64,
    row_group_rows: usize,
    dv: Option<serde_json::Value>,
) -> u64 {
    write_ids(dir, &(0..rows).collect::<Vec<i64>>(), row_group_rows, dv)
}

/// [`write_table`] with the given `id` values, in order.
pub fn write_ids(
    dir: &Path,
    ids: &[i64],
    row_group_rows: usize,
    dv: Option<serde_json::Value>,
) -> u64 {
    let rows = ids.len();
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("tag", DataType::Utf8, true),
    ]));
    let ids = Int64Array::from_iter_values(ids.iter().copied());
    let tags = StringArray::from_iter_values((0..rows).map(|i| format!("t{}", i % 7)));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(ids), Arc::new(tags)]).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(row_group_rows))
        .build();
    let data = dir.join("part-0.parquet");
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(&data).unwrap(), schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let size = std::fs::metadata(&data).unwrap().len();
    std::fs::create_dir_all(dir.join("_delta_log")).unwrap();
    let schema_string = r#"{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"tag","type":"string","nullable":true,"metadata":{}}]}"#;
    let mut add = serde_json::json!({"path": "part-0.parquet", "partitionValues": {}, "size": size, "modificationTime": 0,
        "dataChange": true, "stats": format!("{{\"numRecords\":{rows}}}")});
    let mut protocol = serde_json::json!({"minReaderVersion": 1, "minWriterVersion": 2});
    if let Some(dv) = dv {
        add["deletionVector"] = dv;
        protocol = serde_json::json!({"minReaderVersion": 3, "minWriterVersion": 7,
            "readerFeatures": ["deletionVectors"], "writerFeatures": ["deletionVectors"]});
    }
    let lines = [
        serde_json::json!({"protocol": protocol}),
        serde_json::json!({"metaData": {"id": "t", "format": {"provider": "parquet", "options": {}},
            "schemaString": schema_string, "partitionColumns": [], "configuration": {}}}),
        serde_json::json!({"add": add}),
    ];
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(dir.join("_delta_log/00000000000000000000.json"), text).unwrap();
    size
}

/// Writes a one-file Delta table at `dir` whose timestamp column `ts` holds, in order,
/// 0001-01-01 00:00:00, 2024-01-03 10:00:00, 9999-12-31 23:59:59.999999 (UTC) and NULL, and
/// whose timestamp partition column `pts` is 0001-01-01 00:00:00 for the file.
pub fn write_far_timestamps(dir: &Path) {
    use arrow::array::TimestampMicrosecondArray;
    use arrow::datatypes::TimeUnit;
    let micros = |t: &str| {
        chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S%.f")
            .unwrap()
            .and_utc()
            .timestamp_micros()
    };
    let values = TimestampMicrosecondArray::from(vec![
        Some(micros("0001-01-01 00:00:00")),
        Some(micros("2024-01-03 10:00:00")),
        Some(micros("9999-12-31 23:59:59.999999")),
        None,
    ])
    .with_timezone("UTC");
    let schema = Arc::new(Schema::new(vec![Field::new(
        "ts",
        DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        true,
    )]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values)]).unwrap();
    let data = dir.join("part-0.parquet");
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(&data).unwrap(), schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let size = std::fs::metadata(&data).unwrap().len();
    std::fs::create_dir_all(dir.join("_delta_log")).unwrap();
    let schema_string = r#"{"type":"struct","fields":[{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},{"name":"pts","type":"timestamp","nullable":true,"metadata":{}}]}"#;
    let lines = [
        serde_json::json!({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}),
        serde_json::json!({"metaData": {"id": "t", "format": {"provider": "parquet", "options": {}},
            "schemaString": schema_string, "partitionColumns": ["pts"], "configuration": {}}}),
        serde_json::json!({"add": {"path": "part-0.parquet",
            "partitionValues": {"pts": "0001-01-01 00:00:00"}, "size": size, "modificationTime": 0,
            "dataChange": true, "stats": "{\"numRecords\":4}"}}),
    ];
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(dir.join("_delta_log/00000000000000000000.json"), text).unwrap();
}
