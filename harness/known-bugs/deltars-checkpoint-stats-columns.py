# delta-rs #3201: after a checkpoint, filtering on a column that is NOT in
# delta.dataSkippingStatsColumns drops every file that came from the checkpoint.
# Trigger needs a checkpoint whose add.stats_parsed has NULL min/max/nullCount for the
# non-indexed column; deltalake 0.24's checkpoint writer produces that (1.x writers omit
# stats_parsed), so the FIXED writer for this repro is deltalake 0.24.0.
import sys, os, tempfile, datetime
os.environ.setdefault("KB_WRITER_PY", os.path.join(os.environ.get("KB_VENVS", os.path.expanduser("~/.cache/delta-explain/known-bugs")), "deltalake-0.24.0/bin/python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _writer import build_table
import deltalake, pyarrow as pa, pyarrow.compute as pc, pyarrow.dataset as ds

d = tempfile.mkdtemp(); path = os.path.join(d, "t")
build_table(path, """
import pyarrow as pa, datetime
from deltalake import write_deltalake, DeltaTable
cfg = {"delta.dataSkippingStatsColumns": "ref_date"}
def batch(off):
    days = [datetime.datetime(2020,1,1+off), datetime.datetime(2020,1,2+off)]
    return pa.table({"date": pa.array(days, pa.timestamp("us")), "ref_date": pa.array(days, pa.timestamp("us")), "value": [1+off, 2+off]})
write_deltalake(path, batch(0), configuration=cfg)
DeltaTable(path).create_checkpoint()
write_deltalake(path, batch(1), mode="append")
""")
PRED = "date >= TIMESTAMP '2020-01-01 00:00:00'"
lit = pa.scalar(datetime.datetime(2020, 1, 1), pa.timestamp("us"))
dt = deltalake.DeltaTable(path)
got = dt.to_pyarrow_dataset().to_table(filter=ds.field("date") >= lit)
full = dt.to_pyarrow_table()   # no filter -> no pruning
exp = full.filter(pc.greater_equal(full["date"], lit))
g = sorted(got.column("value").to_pylist()); e = sorted(exp.column("value").to_pylist())
print("deltalake", deltalake.__version__, "predicate:", PRED)
print("reader  :", len(g), g)
print("expected:", len(e), e)
sys.stdout.flush(); os._exit(0 if g == e else 1)  # os._exit: deltalake 0.24 aborts in tokio shutdown
