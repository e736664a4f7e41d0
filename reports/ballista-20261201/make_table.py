#!/usr/bin/env python3
"""Writes the benchmark table: ROWS rows in FILES appends (delta-rs), usage: make_table.py PATH ROWS FILES."""
import sys, pyarrow as pa, pyarrow.compute as pc
from deltalake import write_deltalake
path, rows, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
per = rows // files
for f in range(files):
    ids = pa.array(range(f * per, (f + 1) * per), pa.int64())
    t = pa.table({
        "id": ids,
        "value": pc.random(per),
        "bucket": pc.cast(pc.divide(ids, 1 << 20), pa.int32()),
        "tag": pc.binary_join_element_wise("t", pc.cast(pc.bit_wise_and(ids, 15), pa.string()), ""),
    })
    write_deltalake(path, t, mode="append")
print("wrote", rows, "rows in", files, "commits")
