"""A metadata-only Delta table of 200,000 files in one JSON commit, 30 long columns with
statistics for each (about 1.5 KB of statistics JSON a file): what a wide table costs the
readers of per-file statistics (`--explain-why`, `--assert-stats`).

    python3 make_table.py /tmp/wide
"""
import json
import os
import sys

root = sys.argv[1]
files, columns = 200_000, 30
os.makedirs(os.path.join(root, "_delta_log"), exist_ok=True)
schema = {
    "type": "struct",
    "fields": [
        {"name": f"c{i}", "type": "long", "nullable": True, "metadata": {}}
        for i in range(columns)
    ],
}
with open(os.path.join(root, "_delta_log", "00000000000000000000.json"), "w") as f:
    f.write(json.dumps({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}) + "\n")
    f.write(json.dumps({"metaData": {
        "id": "wide", "format": {"provider": "parquet", "options": {}},
        "schemaString": json.dumps(schema), "partitionColumns": [],
        "configuration": {}, "createdTime": 0}}) + "\n")
    for k in range(files):
        stats = json.dumps({
            "numRecords": 100,
            "minValues": {f"c{i}": k * 10 + i for i in range(columns)},
            "maxValues": {f"c{i}": k * 10 + i + 9 for i in range(columns)},
            "nullCount": {f"c{i}": 0 for i in range(columns)},
        })
        f.write(json.dumps({"add": {
            "path": f"part-{k:07d}.parquet", "partitionValues": {}, "size": 1000,
            "modificationTime": 0, "dataChange": True, "stats": stats}}) + "\n")
