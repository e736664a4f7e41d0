# polars #22289 (cf. PR #22292): polars' parquet row-group skipping mis-handles float
# statistics of a chunk containing NaN, so `x < 5` skips row groups holding 1.0/2.0/3.0.
# File written by a FIXED writer: polars 1.27.1 write_parquet (its float stats include NaN
# handling that triggers the reader fault), run in a subprocess.
import sys, os, tempfile, subprocess
import polars as pl
WRITER = os.environ.get("KB_POLARS_WRITER_PY", os.path.join(os.environ.get("KB_VENVS", os.path.expanduser("~/.cache/delta-explain/known-bugs")), "polars-1.27.1/bin/python"))
d = tempfile.mkdtemp(); path = os.path.join(d, "t.parquet")
subprocess.run([WRITER, "-c", f"""
import polars as pl
xs = [1.0, 2.0, float("nan"), 3.0] * 5 + [10.0, 11.0, 12.0, 13.0] * 5
pl.DataFrame({{"id": list(range(40)), "x": xs}}).write_parquet({path!r}, row_group_size=20)
"""], check=True)
PRED = "x < 5"
got = sorted(pl.scan_parquet(path).filter(pl.sql_expr(PRED)).collect()["id"].to_list())
mem = pl.read_parquet(path, use_statistics=False) if "use_statistics" in pl.read_parquet.__code__.co_varnames else pl.read_parquet(path)
exp = sorted(mem.filter(pl.sql_expr(PRED))["id"].to_list())   # eager in-memory oracle
print("polars", pl.__version__, "predicate:", PRED)
print("reader  :", len(got), got)
print("expected:", len(exp), exp)
sys.exit(0 if got == exp else 1)
