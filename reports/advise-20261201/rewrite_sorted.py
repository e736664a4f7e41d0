#!/usr/bin/env python3
"""Rewrites a table sorted by one column into about as many files as it has, so the advisor's
prediction for "sort by COLUMN" can be checked against a real table of that layout.
Usage: rewrite_sorted.py SOURCE TARGET COLUMN (delta-rs, pyarrow)."""
import sys
from deltalake import DeltaTable, write_deltalake

source, target, column = sys.argv[1:4]
dt = DeltaTable(source)
files = len(dt.file_uris())
table = dt.to_pyarrow_table().sort_by(column)
per = -(-table.num_rows // files)
for start in range(0, table.num_rows, per):
    write_deltalake(target, table.slice(start, per), mode="append")
print("rewrote", table.num_rows, "rows sorted by", column, "in", files, "appends")
