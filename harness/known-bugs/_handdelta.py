"""Hand-written Delta table (JSON log + pyarrow parquet), independent of any Delta writer.
make_ts_table(path): one file, column ts timestamp(us, UTC) with sub-millisecond values,
stats written Spark-style: min/max truncated to milliseconds (as PROTOCOL.md allows)."""
import os, json, datetime, pyarrow as pa, pyarrow.parquet as pq

def make_ts_table(path):
    os.makedirs(os.path.join(path, "_delta_log"), exist_ok=True)
    vals = [datetime.datetime(2024, 1, 1, 0, 0, 0, 500, tzinfo=datetime.timezone.utc),
            datetime.datetime(2024, 1, 1, 0, 0, 0, 900, tzinfo=datetime.timezone.utc)]
    t = pa.table({"id": pa.array([1, 2], pa.int64()), "ts": pa.array(vals, pa.timestamp("us", tz="UTC"))})
    fn = "part-00000.parquet"
    pq.write_table(t, os.path.join(path, fn))
    schema = {"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": True, "metadata": {}},
        {"name": "ts", "type": "timestamp", "nullable": True, "metadata": {}}]}
    stats = {"numRecords": 2, "minValues": {"id": 1, "ts": "2024-01-01T00:00:00.000Z"},
             "maxValues": {"id": 2, "ts": "2024-01-01T00:00:00.000Z"}, "nullCount": {"id": 0, "ts": 0}}
    actions = [
        {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
        {"metaData": {"id": "00000000-0000-0000-0000-000000000001", "format": {"provider": "parquet", "options": {}},
                      "schemaString": json.dumps(schema), "partitionColumns": [], "configuration": {},
                      "createdTime": 1704067200000}},
        {"add": {"path": fn, "partitionValues": {}, "size": os.path.getsize(os.path.join(path, fn)),
                 "modificationTime": 1704067200000, "dataChange": True, "stats": json.dumps(stats)}},
    ]
    with open(os.path.join(path, "_delta_log", "00000000000000000000.json"), "w") as f:
        for a in actions: f.write(json.dumps(a) + "\n")
    return t
