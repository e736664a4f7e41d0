# polars #24167: scan_parquet + is_in on a String column drops rows (1.32.x) when
# the (non-dictionary-encoded) column chunk has > 128 values.
# Table written with pyarrow (reader-independent), use_dictionary=False.
# NOTE: pl.sql_expr("id IN (...)") builds is_in([Series]) and is NOT affected;
# the bug needs the expression-API form col.is_in([list literal]).
import sys, tempfile, os
import pyarrow as pa, pyarrow.parquet as pq
import polars as pl

VALUES = ['value3', 'value32', 'value64', 'value33', 'value100']
PRED = "id IN ('value3', 'value32', 'value64', 'value33', 'value100')"
d = tempfile.mkdtemp()
path = os.path.join(d, "t.parquet")
n = 200
tbl = pa.table({"id": [f"value{i}" for i in range(n)], "misc": ["xyz"] * n})
pq.write_table(tbl, path, use_dictionary=False)

got = pl.scan_parquet(path).filter(pl.col("id").is_in(VALUES)).collect()
got_sql = pl.scan_parquet(path).filter(pl.sql_expr(PRED)).collect()
got_ids = sorted(got["id"].to_list())
exp_ids = sorted(r for r in tbl.column("id").to_pylist() if r in VALUES)
print("polars", pl.__version__, "predicate:", PRED)
print("reader (col.is_in) :", len(got_ids), got_ids)
print("reader (sql_expr)  :", got_sql.height)
print("expected           :", len(exp_ids), exp_ids)
sys.exit(0 if got_ids == exp_ids else 1)
