# datafusion #22994: Parquet bloom-filter pruning checks decimal literals with a fixed
# 16-byte representation, but DECIMAL(19,2) is stored as FIXED_LEN_BYTE_ARRAY(9) -> false
# negatives, matching row groups are skipped. Fixed by apache/datafusion#22995.
# The file is written by a FIXED writer (datafusion 55.0.0 COPY, parquet-rs) in a subprocess.
import sys, os, tempfile, subprocess
import datafusion
from datafusion import SessionContext

WRITER = os.environ.get("KB_DF_WRITER_PY", os.path.join(os.environ.get("KB_VENVS", os.path.expanduser("~/.cache/delta-explain/known-bugs")), "datafusion-55.0.0/bin/python"))
d = tempfile.mkdtemp(); path = os.path.join(d, "t.parquet")
subprocess.run([WRITER, "-c", f"""
from datafusion import SessionContext
ctx = SessionContext()
ctx.sql('''COPY (SELECT CAST(column1 AS DECIMAL(19,2)) AS d, column1 AS i
  FROM (VALUES (1),(2),(3),(4),(5),(6))) TO '{path}' STORED AS PARQUET
  OPTIONS ('format.max_row_group_size' '2', 'format.bloom_filter_on_write' 'true',
           'format.statistics_enabled' 'none')''').collect()
"""], check=True)
PRED = os.environ.get("KB_PRED", "d = CAST(5 AS DECIMAL(19,2))")
ctx = SessionContext()
ctx.register_parquet("t", path)
got = sorted(r for b in ctx.sql(f"SELECT i FROM t WHERE {PRED}").collect() for r in b.column(0).to_pylist())
ctx2 = SessionContext()
ctx2.register_record_batches("m", [ctx.sql("SELECT * FROM t").collect()])  # in-memory, no pruning
exp = sorted(r for b in ctx2.sql(f"SELECT i FROM m WHERE {PRED}").collect() for r in b.column(0).to_pylist())
print("datafusion", datafusion.__version__, "predicate:", PRED)
print("reader  :", len(got), got)
print("expected:", len(exp), exp)
sys.exit(0 if got == exp else 1)
