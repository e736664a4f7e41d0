# delta-rs #3133 / #2571 (fixed by PR #3288): Delta JSON stats truncate timestamps to
# milliseconds; delta-rs used maxValues as an exact upper bound, so files holding
# sub-millisecond values above the truncated max are pruned.
# Path under test: DeltaTable.to_pyarrow_dataset() (file-skipping via fragment guarantees).
# Table is hand-written (JSON log + pyarrow parquet), Spark-style ms-truncated stats.
import sys, os, tempfile, datetime
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _handdelta import make_ts_table
import deltalake, pyarrow as pa, pyarrow.compute as pc, pyarrow.dataset as ds

d = tempfile.mkdtemp(); path = os.path.join(d, "t"); mem = make_ts_table(path)
PRED = "ts > TIMESTAMP '2024-01-01 00:00:00.000100'"
lit = pa.scalar(datetime.datetime(2024, 1, 1, 0, 0, 0, 100, tzinfo=datetime.timezone.utc), pa.timestamp("us", tz="UTC"))
dt = deltalake.DeltaTable(path)
got = sorted(dt.to_pyarrow_dataset().to_table(filter=ds.field("ts") > lit)["id"].to_pylist())
exp = sorted(mem.filter(pc.greater(mem["ts"], lit))["id"].to_pylist())   # in-memory oracle
print("deltalake", deltalake.__version__, "predicate:", PRED, "(UTC)")
print("reader  :", len(got), got)
print("expected:", len(exp), exp)
sys.stdout.flush(); os._exit(0 if got == exp else 1)
