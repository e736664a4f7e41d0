#!/usr/bin/env python3
"""Writes the advisor's larger benchmark table: taxi-like trips in random order, so the
current layout clusters nothing. Usage: make_table.py PATH ROWS FILES (delta-rs, pyarrow)."""
import sys
import pyarrow as pa
import pyarrow.compute as pc
from deltalake import write_deltalake

path, rows, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
per = rows // files
year_start = 1704067200 * 1_000_000  # 2024-01-01T00:00:00Z, microseconds
year = 366 * 86400 * 1_000_000
for f in range(files):
    u = lambda: pc.random(per)
    pickup = pc.cast(pc.floor(pc.add(pc.multiply(u(), year), year_start)), pa.int64())
    t = pa.table({
        "pickup": pc.cast(pickup, pa.timestamp("us", tz="UTC")),
        "pu_location": pc.cast(pc.floor(pc.add(pc.multiply(u(), 265), 1)), pa.int32()),
        "do_location": pc.cast(pc.floor(pc.add(pc.multiply(u(), 265), 1)), pa.int32()),
        "passengers": pc.cast(pc.floor(pc.add(pc.multiply(u(), 6), 1)), pa.int32()),
        "distance": pc.round(pc.multiply(pc.power(u(), 3), 40.0), 2),
        "fare": pc.round(pc.multiply(u(), 120.0), 2),
        "vendor": pc.binary_join_element_wise("v", pc.cast(pc.cast(pc.floor(pc.multiply(u(), 3)), pa.int32()), pa.string()), ""),
    })
    write_deltalake(path, t, mode="append")
print("wrote", rows, "rows in", files, "appends")
