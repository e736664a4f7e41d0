# duckdb-delta #304 / #303 (delta_kernel 0.20 regression, fixed by kernel 0.21 in PR #306):
# partition filters on a checkpointed, string-partitioned Delta table drop files.
import sys, os, tempfile, glob
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _writer import build_table
import duckdb

d = tempfile.mkdtemp(); path = os.path.join(d, "t")
build_table(path, """
import pyarrow as pa
from deltalake import write_deltalake, DeltaTable
cats = ["A", "B", "C", "X"]
for i in range(8):
    c = cats[i % 4]
    write_deltalake(path, pa.table({"id": [i*10 + j for j in range(3)], "category": [c]*3}),
                    partition_by=["category"], mode="append")
DeltaTable(path).create_checkpoint()
""")
ext = glob.glob(os.path.join(os.path.dirname(duckdb.__file__), "..", "duckdb_extension_delta", "extensions", "*", "delta.duckdb_extension"))[0]
con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
con.execute(f"LOAD '{ext}'")
ok = True
for PRED in ["category != 'X'", "category = 'A'"]:
    got = sorted(con.execute(f"SELECT id FROM delta_scan('{path}') WHERE {PRED}").fetchall())
    # oracle: same engine, no pushdown into the scan (materialize first)
    allrows = con.execute(f"SELECT id, category FROM delta_scan('{path}')").fetchall()
    exp = sorted((r[0],) for r in allrows if eval(PRED.replace("!=", "!=").replace(" = ", " == ").replace("category", "r[1]")))
    print("duckdb", duckdb.__version__, "predicate:", PRED)
    print("  reader  :", len(got), [g[0] for g in got])
    print("  expected:", len(exp), [e[0] for e in exp])
    ok &= got == exp
sys.exit(0 if ok else 1)
