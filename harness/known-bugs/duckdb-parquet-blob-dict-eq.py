# duckdb #24994: pushed-down '=' on a BLOB column whose Parquet chunk is PLAIN_DICTIONARY
# encoded returns 0 rows. File written by a FIXED writer: duckdb 1.5.5 COPY (parquet v1 ->
# PLAIN_DICTIONARY), run in a subprocess so the table does not depend on the reader version.
import sys, os, tempfile, subprocess
import duckdb
WRITER = os.environ.get("KB_DUCKDB_WRITER_PY", os.path.join(os.environ.get("KB_VENVS", os.path.expanduser("~/.cache/delta-explain/known-bugs")), "duckdb-1.5.5/bin/python"))
d = tempfile.mkdtemp(); path = os.path.join(d, "t.parquet")
subprocess.run([WRITER, "-c", f"""
import duckdb
duckdb.connect().execute(\"\"\"COPY (SELECT i AS n, CASE WHEN i % 2 = 0 THEN unhex(repeat('ab', 32)) ELSE unhex(repeat('cd', 32)) END AS k
  FROM range(5000) t(i)) TO '{path}' (FORMAT PARQUET)\"\"\")
"""], check=True)
PRED = "k = unhex('" + "ab" * 32 + "')"
con = duckdb.connect()
got = con.execute(f"SELECT count(*) FROM read_parquet('{path}') WHERE {PRED}").fetchone()[0]
# oracle: same engine, filter on hex(k) which is not pushed into the parquet scan
exp = con.execute(f"SELECT count(*) FROM read_parquet('{path}') WHERE hex(k) = upper('" + "ab" * 32 + "')").fetchone()[0]
enc = con.execute(f"SELECT encodings FROM parquet_metadata('{path}') WHERE path_in_schema = 'k'").fetchall()
print("duckdb", duckdb.__version__, "predicate:", PRED, "encodings:", enc)
print("reader  :", got)
print("expected:", exp, "(rows i%2=0 of 5000 = 2500)")
sys.exit(0 if got == exp == 2500 else 1)
