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
    let batch = RecordBatch::try_new(schema, vec![Arc::new(ids), Arc::new(tags)]).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(row_group_rows))
        .build();
    let schema_string = r#"{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"tag","type":"string","nullable":true,"metadata":{}}]}"#;
    write_one_file(dir, &batch, Some(props), schema_string, &[], dv)
}

/// Writes `batch` as the one data file `part-0.parquet` of a Delta table at `dir` (Parquet
/// properties `props`, the arrow writer's defaults when `None`), and commit 0 adding it: the
/// table's schema `schema_string`, its partition columns and the file's values `partitions`,
/// the add action's deletion vector `dv` (a JSON object) if any, with the protocol it needs.
/// Returns the data file's size.
pub fn write_one_file(
    dir: &Path,
    batch: &RecordBatch,
    props: Option<WriterProperties>,
    schema_string: &str,
    partitions: &[(&str, &str)],
    dv: Option<serde_json::Value>,
) -> u64 {
    let data = dir.join("part-0.parquet");
    let mut writer =
        ArrowWriter::try_new(std::fs::File::create(&data).unwrap(), batch.schema(), props).unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
    let size = std::fs::metadata(&data).unwrap().len();
    std::fs::create_dir_all(dir.join("_delta_log")).unwrap();
    let partition_columns: Vec<&str> = partitions.iter().map(|(name, _)| *name).collect();
    let partition_values: serde_json::Map<String, serde_json::Value> = partitions
        .iter()
        .map(|(name, value)| (name.to_string(), serde_json::json!(value)))
        .collect();
    let mut add = serde_json::json!({"path": "part-0.parquet", "partitionValues": partition_values,
        "size": size, "modificationTime": 0, "dataChange": true,
        "stats": format!("{{\"numRecords\":{}}}", batch.num_rows())});
    let mut protocol = serde_json::json!({"minReaderVersion": 1, "minWriterVersion": 2});
    if let Some(dv) = dv {
        add["deletionVector"] = dv;
        protocol = serde_json::json!({"minReaderVersion": 3, "minWriterVersion": 7,
            "readerFeatures": ["deletionVectors"], "writerFeatures": ["deletionVectors"]});
    }
    let lines = [
        serde_json::json!({"protocol": protocol}),
        serde_json::json!({"metaData": {"id": "t", "format": {"provider": "parquet", "options": {}},
            "schemaString": schema_string, "partitionColumns": partition_columns,
            "configuration": {}}}),
        serde_json::json!({"add": add}),
    ];
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(dir.join("_delta_log/00000000000000000000.json"), text).unwrap();
    size
}

/// The rows of `table` that `predicate` matches, by DataFusion; a refusal fails the test.
pub fn rows(table: &oracle::matching::LoadedTable, predicate: &str) -> u64 {
    table
        .matching_rows(predicate)
        .unwrap_or_else(|e| panic!("`{predicate}`: {e}"))
        .iter()
        .sum()
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
    let batch = RecordBatch::try_new(schema, vec![Arc::new(values)]).unwrap();
    let schema_string = r#"{"type":"struct","fields":[{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},{"name":"pts","type":"timestamp","nullable":true,"metadata":{}}]}"#;
    write_one_file(
        dir,
        &batch,
        None,
        schema_string,
        &[("pts", "0001-01-01 00:00:00")],
        None,
    );
}
