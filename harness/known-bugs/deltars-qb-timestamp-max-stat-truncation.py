# Same trigger as deltars-timestamp-max-stat-truncation.py, but through the DataFusion
# table provider (QueryBuilder SQL), i.e. the harness's modern deltalake call shape.
import sys, os, tempfile, datetime
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _handdelta import make_ts_table
import deltalake, pyarrow as pa, pyarrow.compute as pc
from deltalake import QueryBuilder

d = tempfile.mkdtemp(); path = os.path.join(d, "t"); mem = make_ts_table(path)
PRED = "ts > TIMESTAMP '2024-01-01 00:00:00.000100'"
lit = pa.scalar(datetime.datetime(2024, 1, 1, 0, 0, 0, 100, tzinfo=datetime.timezone.utc), pa.timestamp("us", tz="UTC"))
res = QueryBuilder().register("t", deltalake.DeltaTable(path)).execute(f"SELECT id FROM t WHERE {PRED}")
batches = res.fetchall() if hasattr(res, "fetchall") else pa.table(res).to_batches()
got = sorted(v for b in batches for v in pa.record_batch(b).column(0).to_pylist())
exp = sorted(mem.filter(pc.greater(mem["ts"], lit))["id"].to_pylist())
print("deltalake", deltalake.__version__, "QueryBuilder predicate:", PRED, "(session tz UTC)")
print("reader  :", len(got), got)
print("expected:", len(exp), exp)
sys.stdout.flush(); os._exit(0 if got == exp else 1)
