"""An engine worker for the oracle's engine-backed evaluation (oracle/src/engines.rs).

Runs one SQL engine, DuckDB or Spark (pyspark in local mode, no Delta jars), or one Delta reader, as a long-lived
process speaking JSON lines on stdin/stdout. The oracle hands it the live rows of a table it
replayed itself (deletion vectors applied, partition values as columns, logical column names,
one column naming each row's file) as a Parquet file; the worker runs the predicate text as
written and answers the matching rows per file, or the engine's refusal.

Requests, one JSON object a line:
  {"op": "hello"}                               -> {"ok": true, "engine": ..., "version": ...}
  {"op": "load", "parquet": PATH, "columns": {NAME: {"char": N} | {"collation": C}}}
                                                -> {"ok": true, "rows": N}
  {"op": "match", "predicate": SQL, "ansi": B}  -> {"ok": true, "files": {"0": 3, ...}}
                                                   {"ok": false, "refused": MESSAGE}
  {"op": "read", "table": PATH, "predicate": SQL}
                                                -> {"ok": true, "files": {"part-0.parquet": 3, ...}}
                                                   ("*" for the whole table where the reader
                                                   does not say which file a row came from)
                                                   {"ok": false, "refused": MESSAGE,
                                                    "failure": "refused" | "error" | "arithmetic"}
  {"op": "quit"}
The Delta readers (`duckdb-delta`, `polars`, `delta-rs`) answer `read`: the reader itself reads
the Delta table (its log, pruning and data); the conformance campaign checks them
(harness/src/conformance.rs).
`ansi` selects Spark's spark.sql.ansi.enabled (ignored by DuckDB). `columns` names the Delta
columns Spark declares otherwise than the Parquet file does (CHAR(n), a collation): Spark reads
the rows as a table of those types, so it pads and collates as over the Delta table; DuckDB
reads the Parquet file as its delta extension would, with no such types. Anything the engine raises
while planning or running the query is its refusal; a worker fault ends the process.
"""

import json
import os
import sys
import tempfile

FILE_COLUMN = "__oracle_file"


def one_line(text):
    text = " ".join(str(text).split())
    return text[:400]


# What a reader's exception says happened (`failure`), by the exception's class and message:
# `refused`, it refused the predicate (parsing, binding, typing: it ran no query);
# `arithmetic`, an arithmetic error raised while running (overflow, out of range, division by
# zero), which an engine raises only on the rows its plan evaluates the expression on, so
# whether it does depends on the plan (pushdown, the order of filters); `error`, anything else
# (reading the table, decoding, an internal error or a panic).
REFUSAL_CLASSES = {
    # DuckDB
    "ParserException",
    "BinderException",
    "CatalogException",
    "NotImplementedException",
    # Polars
    "SQLSyntaxError",
    "SQLInterfaceError",
    "ColumnNotFoundError",
    "InvalidOperationError",
    "SchemaError",
    "SchemaFieldNotFoundError",
}
REFUSAL_WORDS = (
    "error during planning",
    "sql error",
    "parsererror",
    "schema error",
    "no field named",
    "cannot be cast",
    "cannot coerce",
    "invalid argument error: invalid comparison",
    "not supported",
    "unsupported",
)
ARITHMETIC_WORDS = ("overflow", "out of range", "division by zero", "divide by zero")


def failure_of(e):
    name = type(e).__name__
    text = str(e).lower()
    if any(w in text for w in ARITHMETIC_WORDS):
        return "arithmetic"
    if name in REFUSAL_CLASSES or any(w in text for w in REFUSAL_WORDS):
        return "refused"
    return "error"


class DuckDb:
    name = "duckdb"

    def __init__(self):
        import duckdb

        self.version = duckdb.__version__
        self.con = duckdb.connect(":memory:")
        self.con.execute("SET threads TO 1")

    def load(self, path, columns):
        self.con.execute("DROP VIEW IF EXISTS t")
        quoted = path.replace("'", "''")
        self.con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{quoted}')")
        return self.con.execute("SELECT count(*) FROM t").fetchone()[0]

    def match(self, predicate, ansi):
        rows = self.con.execute(
            f'SELECT "{FILE_COLUMN}", count(*) FROM t WHERE {predicate} GROUP BY 1'
        ).fetchall()
        return {str(f): n for f, n in rows}


class Spark:
    name = "spark"

    def __init__(self):
        # Quiet, local, one core, no UI: a worker, not a cluster.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        from pyspark.sql import SparkSession
        import pyspark

        self.version = pyspark.__version__
        self.spark = (
            SparkSession.builder.master("local[1]")
            .appName("delta-oracle-engine")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", "1")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.warehouse.dir", tempfile.mkdtemp(prefix="delta-oracle-spark-"))
            .getOrCreate()
        )
        self.spark.sparkContext.setLogLevel("OFF")

    def load(self, path, columns):
        from pyspark.sql.types import CharType, StringType, StructField, StructType

        # A worker holds one table at a time: the previous one (a view or a table) goes.
        self.spark.catalog.dropTempView("t")
        self.spark.sql("DROP TABLE IF EXISTS t")
        frame = self.spark.read.parquet(path)
        if not columns:
            frame.createOrReplaceTempView("t")
            return frame.count()
        fields = []
        for f in frame.schema.fields:
            spec = columns.get(f.name) or {}
            if "char" in spec:
                data_type = CharType(int(spec["char"]))
            elif "collation" in spec:
                data_type = StringType(spec["collation"])
            else:
                data_type = f.dataType
            fields.append(StructField(f.name, data_type, True))
        self.spark.catalog.createTable(
            "t", path=os.path.dirname(path), source="parquet", schema=StructType(fields)
        )
        return self.spark.table("t").count()

    def match(self, predicate, ansi):
        self.spark.conf.set("spark.sql.ansi.enabled", "true" if ansi else "false")
        rows = self.spark.sql(
            f"SELECT `{FILE_COLUMN}`, count(*) FROM t WHERE {predicate} GROUP BY 1"
        ).collect()
        return {str(r[0]): int(r[1]) for r in rows}


def readers_dir(name):
    """Where `setup.sh` installs a reader that pins another version of a package the engines
    share (DuckDB's delta extension pins its DuckDB): beside the environment, put first on
    the path of that reader's worker alone."""
    return os.path.join(os.path.dirname(os.path.dirname(sys.executable)), "readers", name)


class DuckDbDelta(DuckDb):
    """DuckDB reading the Delta table itself through its `delta` extension (PyPI
    `duckdb-extension-delta`, loaded from the package's file, offline). Its truth is the same
    DuckDB over the oracle's rows (`load`, `match`), so a difference is the reader's."""

    name = "duckdb-delta"

    def __init__(self):
        sys.path.insert(0, readers_dir("duckdb-delta"))
        import glob

        import duckdb
        import duckdb_extension_delta

        found = glob.glob(
            os.path.join(
                os.path.dirname(duckdb_extension_delta.__file__),
                "extensions",
                "*",
                "*.duckdb_extension",
            )
        )
        if not found:
            raise RuntimeError("duckdb-extension-delta holds no extension file")
        self.version = f"{duckdb.__version__} (delta extension {duckdb_extension_delta_version()})"
        self.con = duckdb.connect(":memory:", config={"allow_unsigned_extensions": "true"})
        self.con.execute("SET threads TO 1")
        self.con.execute(f"LOAD '{found[0]}'")

    def read(self, table, predicate):
        quoted = table.replace("'", "''")
        rows = self.con.execute(
            f"SELECT filename, count(*) FROM delta_scan('{quoted}', filename=true) "
            f"WHERE {predicate} GROUP BY 1"
        ).fetchall()
        root = os.path.abspath(table)
        return {os.path.relpath(str(f), root): n for f, n in rows}


def duckdb_extension_delta_version():
    from importlib.metadata import version

    try:
        return version("duckdb_extension_delta")
    except Exception:
        return "unknown"


class Polars:
    """Polars reading the Delta table with `scan_delta`, the predicate as a SQL expression.
    Its truth is the same Polars over the oracle's rows, held in memory (no pruning)."""

    name = "polars"

    def __init__(self):
        import polars

        self.pl = polars
        self.version = polars.__version__
        self.rows = None
        self.table = None

    def load(self, path, columns):
        # Read whole, into memory: the truth filters rows and never reads Parquet statistics.
        # A lazy scan of the file would prune its row groups with Polars' own reading of the
        # statistics (which wraps `id + 1` at the type's bound), the very code under test.
        self.rows = self.pl.read_parquet(path).lazy()
        return self.rows.select(self.pl.len()).collect().item()

    def match(self, predicate, ansi):
        pl = self.pl
        # The same question in the same shape as `read`: the count by `select(len())`. A
        # grouped count (`group_by().agg(len())`) lets Polars' optimizer drop a term that
        # `select(len())` type-checks and refuses; the harness must not ask the truth a
        # question the reader is not asked.
        filtered = self.rows.filter(pl.sql_expr(predicate))
        total = filtered.select(pl.len()).collect().item()
        files = filtered.select(pl.col(FILE_COLUMN)).collect().to_series().to_list()
        counts = {}
        for f in files:
            counts[str(f)] = counts.get(str(f), 0) + 1
        if sum(counts.values()) != total:
            raise RuntimeError(
                f"polars counts {total} row(s) by select(len()) and {sum(counts.values())} "
                "by file: no truth in one shape"
            )
        return counts

    def read(self, table, predicate):
        pl = self.pl
        # The table is opened once and asked every predicate (its log read once).
        if self.table is None or self.table[0] != table:
            self.table = (table, pl.scan_delta(table))
        n = self.table[1].filter(pl.sql_expr(predicate)).select(pl.len()).collect().item()
        # Polars does not say which file a row came from: the whole table's count.
        return {"*": int(n)}


class DeltaRs:
    """delta-rs (PyPI `deltalake`) reading the Delta table with its SQL query builder (its
    own DataFusion). Its truth is the same query builder over the oracle's rows, written as a
    Delta table of one file without statistics (`delta.dataSkippingNumIndexedCols` 0), so
    nothing is pruned: delta-rs's reading of the SQL, not of the table's log and statistics."""

    name = "delta-rs"

    def __init__(self):
        import deltalake

        self.deltalake = deltalake
        self.version = deltalake.__version__
        self.rows = None
        # (path, query builder with the table registered): each table opened once.
        self.builders = {}
        self.rows_dir = tempfile.mkdtemp(prefix="delta-oracle-delta-rs-")
        import atexit
        import shutil

        atexit.register(shutil.rmtree, self.rows_dir, True)

    def load(self, path, columns):
        import pyarrow.parquet as pq

        import shutil

        rows = pq.read_table(path)
        # A table of its own per load: the previous one (another schema) goes.
        if self.rows:
            shutil.rmtree(self.rows, ignore_errors=True)
        self.rows = tempfile.mkdtemp(dir=self.rows_dir)
        self.deltalake.write_deltalake(
            self.rows,
            rows,
            configuration={"delta.dataSkippingNumIndexedCols": "0"},
        )
        return rows.num_rows

    def query(self, table, sql):
        dl = self.deltalake
        builder = self.builders.get(table)
        if builder is None:
            # Two tables at most: the one read and its rows for the truth.
            if len(self.builders) >= 2:
                self.builders = {k: v for k, v in self.builders.items() if k == self.rows}
            builder = dl.QueryBuilder().register("t", dl.DeltaTable(table))
            self.builders[table] = builder
        result = builder.execute(sql)
        import pyarrow as pa

        # deltalake 1.x answers a reader of the Arrow stream interface; 0.2x a result whose
        # `fetchall()` gives record batches.
        if hasattr(result, "fetchall"):
            return pa.Table.from_batches(result.fetchall())
        return pa.table(result)

    def match(self, predicate, ansi):
        result = self.query(
            self.rows, f'SELECT "{FILE_COLUMN}" AS f, count(*) AS n FROM t WHERE {predicate} GROUP BY 1'
        )
        files = [v.as_py() for v in result.column("f")]
        counts = [v.as_py() for v in result.column("n")]
        return {str(f): int(n) for f, n in zip(files, counts)}

    def read(self, table, predicate):
        result = self.query(table, f"SELECT count(*) AS n FROM t WHERE {predicate}")
        column = result.column("n")
        return {"*": int(column[0].as_py()) if len(column) else 0}


ENGINES = {
    "duckdb": DuckDb,
    "spark": Spark,
    "duckdb-delta": DuckDbDelta,
    "polars": Polars,
    "delta-rs": DeltaRs,
}


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ENGINES:
        sys.stderr.write(f"usage: worker.py {'|'.join(ENGINES)}\n")
        return 2
    # The engine's own chatter (Java's, Spark's) goes to stderr, never into the protocol.
    protocol = sys.stdout
    sys.stdout = sys.stderr
    global reply

    def reply(obj):  # noqa: F811 - bound to the protocol stream
        protocol.write(json.dumps(obj) + "\n")
        protocol.flush()

    try:
        engine = ENGINES[sys.argv[1]]()
    except Exception as e:  # the engine cannot start: unavailable
        reply({"ok": False, "unavailable": one_line(e)})
        return 3
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.get("op")
        if op == "hello":
            reply({"ok": True, "engine": engine.name, "version": engine.version})
        elif op == "load":
            try:
                rows = engine.load(request["parquet"], request.get("columns") or {})
            except Exception as e:  # the engine cannot hold these rows: no truth for them
                reply({"ok": False, "refused": one_line(e)})
            else:
                reply({"ok": True, "rows": rows})
        elif op == "match":
            try:
                files = engine.match(request["predicate"], bool(request.get("ansi")))
            except Exception as e:
                reply({"ok": False, "refused": one_line(e)})
            else:
                reply({"ok": True, "files": files})
        elif op == "read":
            try:
                files = engine.read(request["table"], request["predicate"])
            except Exception as e:
                reply({"ok": False, "refused": one_line(e), "failure": failure_of(e)})
            else:
                reply({"ok": True, "files": files})
        elif op == "quit":
            break
        else:
            reply({"ok": False, "refused": f"unknown op {op!r}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
