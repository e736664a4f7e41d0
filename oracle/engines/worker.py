"""An engine worker for the oracle's engine-backed evaluation (oracle/src/engines.rs).

Runs one SQL engine, DuckDB or Spark (pyspark in local mode, no Delta jars), as a long-lived
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
  {"op": "quit"}
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


ENGINES = {"duckdb": DuckDb, "spark": Spark}


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
            reply(
                {
                    "ok": True,
                    "rows": engine.load(request["parquet"], request.get("columns") or {}),
                }
            )
        elif op == "match":
            try:
                files = engine.match(request["predicate"], bool(request.get("ansi")))
            except Exception as e:
                reply({"ok": False, "refused": one_line(e)})
            else:
                reply({"ok": True, "files": files})
        elif op == "quit":
            break
        else:
            reply({"ok": False, "refused": f"unknown op {op!r}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
