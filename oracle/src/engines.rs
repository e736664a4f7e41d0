//! Engine-backed evaluation: which rows match a predicate, decided by the engines themselves
//! running its text as written, not by a model of how they read it.
//!
//! | semantics | engine | how |
//! |---|---|---|
//! | `spark` | Spark SQL (pyspark, local mode, no Delta jars), `spark.sql.ansi.enabled=false` | worker process |
//! | `spark-ansi` | the same with ANSI mode on (Spark 4's default) | the same worker |
//! | `duckdb` | DuckDB | worker process |
//! | `datafusion` | DataFusion with its defaults, in process ([`LoadedTable::matching_rows_as_written`]) | in process |
//!
//! The rows are the oracle's own: its replay's live rows (deletion vectors applied, partition
//! values as columns, logical names) written once to a Parquet file the worker reads; no
//! engine reads the Delta log. Workers are long-lived processes of `engines/worker.py` in the
//! virtual environment `engines/setup.sh` makes, speaking JSON lines. An engine that cannot
//! start is [`Unavailable`], never an agreement.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use arrow::array::{ArrayRef, RecordBatch};
use arrow::compute::cast;
use arrow::datatypes::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;

use crate::error::{OracleError, one_line};
use crate::matching::{FILE_COLUMN, LoadedTable};

/// An engine's reading of SQL, as `--semantics` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum EngineSemantics {
    /// Spark SQL with ANSI mode off (Spark 3's default).
    Spark,
    /// Spark SQL with ANSI mode on (Spark 4's default).
    SparkAnsi,
    Duckdb,
    Datafusion,
}

impl EngineSemantics {
    pub const ALL: [EngineSemantics; 4] = [
        EngineSemantics::Spark,
        EngineSemantics::SparkAnsi,
        EngineSemantics::Duckdb,
        EngineSemantics::Datafusion,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EngineSemantics::Spark => "spark",
            EngineSemantics::SparkAnsi => "spark-ansi",
            EngineSemantics::Duckdb => "duckdb",
            EngineSemantics::Datafusion => "datafusion",
        }
    }

    /// The worker process that runs it, `None` in process.
    fn worker(self) -> Option<WorkerKind> {
        match self {
            EngineSemantics::Spark | EngineSemantics::SparkAnsi => Some(WorkerKind::Spark),
            EngineSemantics::Duckdb => Some(WorkerKind::Duckdb),
            EngineSemantics::Datafusion => None,
        }
    }
}

/// The engines a command line names: one, or `all`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SemanticsArg {
    Spark,
    SparkAnsi,
    Duckdb,
    Datafusion,
    All,
}

impl SemanticsArg {
    /// The engines `args` name, each once, in their order.
    pub fn resolve(args: &[SemanticsArg]) -> Vec<EngineSemantics> {
        let mut out: Vec<EngineSemantics> = Vec::new();
        for arg in args {
            let named = match arg {
                SemanticsArg::Spark => vec![EngineSemantics::Spark],
                SemanticsArg::SparkAnsi => vec![EngineSemantics::SparkAnsi],
                SemanticsArg::Duckdb => vec![EngineSemantics::Duckdb],
                SemanticsArg::Datafusion => vec![EngineSemantics::Datafusion],
                SemanticsArg::All => EngineSemantics::ALL.to_vec(),
            };
            for s in named {
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        out
    }
}

/// A worker process of `engines/worker.py`: an engine over the oracle's rows, or a Delta
/// reader over the table itself (readers.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum WorkerKind {
    Spark,
    Duckdb,
    DuckdbDelta,
    Polars,
    DeltaRs,
}

impl WorkerKind {
    pub(crate) fn arg(self) -> &'static str {
        match self {
            WorkerKind::Spark => "spark",
            WorkerKind::Duckdb => "duckdb",
            WorkerKind::DuckdbDelta => "duckdb-delta",
            WorkerKind::Polars => "polars",
            WorkerKind::DeltaRs => "delta-rs",
        }
    }

    /// Spark's JVM takes seconds to start on a small machine.
    fn start_timeout(self) -> Duration {
        match self {
            WorkerKind::Spark => Duration::from_secs(180),
            WorkerKind::Duckdb
            | WorkerKind::DuckdbDelta
            | WorkerKind::Polars
            | WorkerKind::DeltaRs => Duration::from_secs(60),
        }
    }
}

/// Why an engine gives no answer: not installed, or it would not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{engine} is unavailable: {reason}")]
pub struct Unavailable {
    pub engine: &'static str,
    pub reason: String,
}

/// One engine's answer to one predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Per live file, the rows the engine matched.
    Rows(Vec<u64>),
    /// The engine refused the predicate (a parse, type or cast error): it runs no query.
    Refused(String),
}

impl Answer {
    /// The files with at least one matching row; a refusal matches none.
    pub fn matching_files(&self) -> Vec<bool> {
        match self {
            Answer::Rows(rows) => rows.iter().map(|n| *n > 0).collect(),
            Answer::Refused(_) => Vec::new(),
        }
    }
}

/// The Python of the engines' virtual environment: `DX_ENGINES_PYTHON`, else the one
/// `engines/setup.sh` makes by default.
pub fn engines_python() -> PathBuf {
    if let Some(p) = std::env::var_os("DX_ENGINES_PYTHON") {
        return PathBuf::from(p);
    }
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("."), PathBuf::from);
    home.join(".cache/delta-explain/engines/bin/python")
}

/// The worker script, beside this crate's sources.
fn worker_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("engines/worker.py")
}

/// A long-lived engine process.
pub(crate) struct Worker {
    kind: WorkerKind,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    pub(crate) version: String,
}

pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(300);

impl Worker {
    pub(crate) fn start(kind: WorkerKind) -> Result<Worker, Unavailable> {
        Self::start_in(kind, &engines_python())
    }

    /// [`Worker::start`] with the Python of another environment (a reader pinned at a
    /// version: `oracle/engines/reader-env.sh`).
    pub(crate) fn start_in(kind: WorkerKind, python: &Path) -> Result<Worker, Unavailable> {
        let unavailable = |reason: String| Unavailable {
            engine: kind.arg(),
            reason,
        };
        if !python.exists() {
            return Err(unavailable(format!(
                "no engines environment at {} (run oracle/engines/setup.sh)",
                python.display()
            )));
        }
        let mut child = Command::new(python)
            .arg(worker_script())
            .arg(kind.arg())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| unavailable(format!("cannot start {}: {e}", python.display())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(unavailable("no pipes to the worker".into()));
        };
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut worker = Worker {
            kind,
            child,
            stdin,
            lines,
            version: String::new(),
        };
        let hello = worker
            .request(&serde_json::json!({"op": "hello"}), kind.start_timeout())
            .map_err(|e| unavailable(e.to_string()))?;
        if let Some(reason) = hello.get("unavailable").and_then(|v| v.as_str()) {
            return Err(unavailable(reason.to_string()));
        }
        worker.version = hello
            .get("version")
            .and_then(|v| v.as_str())
            .unwrap_or("unknown")
            .to_string();
        Ok(worker)
    }

    pub(crate) fn request(
        &mut self,
        request: &serde_json::Value,
        timeout: Duration,
    ) -> Result<serde_json::Value, OracleError> {
        let fail = |what: String| OracleError::Usage(format!("{} worker: {what}", self.kind.arg()));
        writeln!(self.stdin, "{request}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| fail(format!("cannot send a request: {e}")))?;
        match self.lines.recv_timeout(timeout) {
            Ok(Ok(line)) => serde_json::from_str(&line)
                .map_err(|e| fail(format!("unreadable answer ({e}): {}", one_line(&line)))),
            Ok(Err(e)) => Err(fail(format!("cannot read its answer: {e}"))),
            Err(RecvTimeoutError::Timeout) => {
                Err(fail(format!("no answer within {} s", timeout.as_secs())))
            }
            Err(RecvTimeoutError::Disconnected) => Err(fail("the process ended".into())),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{}", serde_json::json!({"op": "quit"}));
        let _ = self.stdin.flush();
        // Spark's JVM may linger past its Python: give it a moment, then end it.
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Started engine workers, not yet holding a table: what [`Engines::into_workers`] hands back
/// so that a caller asking about many tables (a campaign) starts each engine once.
#[derive(Default)]
pub struct EngineWorkers {
    workers: Vec<(WorkerKind, Result<Worker, Unavailable>)>,
}

/// The engines a caller asked for, over one loaded table: each worker started once and handed
/// the table's rows once, then asked any number of predicates.
pub struct Engines<'t> {
    table: &'t LoadedTable,
    workers: Vec<(WorkerKind, Result<Worker, Unavailable>)>,
    /// The Parquet file of the table's rows, while a worker may read it.
    _rows: Option<tempfile::TempDir>,
}

impl<'t> Engines<'t> {
    /// Starts the workers `semantics` need and loads `table` into each.
    pub fn start(
        table: &'t LoadedTable,
        semantics: &[EngineSemantics],
    ) -> Result<Engines<'t>, OracleError> {
        Engines::start_with(table, semantics, EngineWorkers::default())
    }

    /// As [`Engines::start`], reusing the workers of `started` that `semantics` need (their
    /// engines load `table` in place of the one they held) and starting the others. A worker
    /// that was unavailable is tried again.
    pub fn start_with(
        table: &'t LoadedTable,
        semantics: &[EngineSemantics],
        mut started: EngineWorkers,
    ) -> Result<Engines<'t>, OracleError> {
        let mut kinds: Vec<WorkerKind> = semantics.iter().filter_map(|s| s.worker()).collect();
        kinds.sort_by_key(|k| k.arg());
        kinds.dedup();
        let mut engines = Engines {
            table,
            workers: Vec::new(),
            _rows: None,
        };
        if kinds.is_empty() {
            return Ok(engines);
        }
        let dir = tempfile::tempdir().map_err(|e| {
            OracleError::Usage(format!("cannot make a directory for the rows: {e}"))
        })?;
        let path = dir.path().join("rows.parquet");
        write_rows(table, &path)?;
        for kind in kinds {
            let reused = started
                .workers
                .iter()
                .position(|(k, w)| *k == kind && w.is_ok())
                .map(|i| started.workers.swap_remove(i).1);
            let worker = match reused {
                Some(Ok(w)) => Ok(w),
                Some(Err(_)) | None => Worker::start(kind),
            }
            .and_then(|mut w| {
                let answer = w
                    .request(
                        &serde_json::json!({"op": "load", "parquet": path.to_string_lossy(),
                            "columns": spark_columns(table)}),
                        REQUEST_TIMEOUT,
                    )
                    .map_err(|e| Unavailable {
                        engine: kind.arg(),
                        reason: e.to_string(),
                    })?;
                match answer.get("ok").and_then(|v| v.as_bool()) {
                    Some(true) => Ok(w),
                    _ => Err(Unavailable {
                        engine: kind.arg(),
                        reason: format!("cannot load the rows: {answer}"),
                    }),
                }
            });
            engines.workers.push((kind, worker));
        }
        engines._rows = Some(dir);
        Ok(engines)
    }

    /// The workers, for [`Engines::start_with`] on the next table.
    pub fn into_workers(self) -> EngineWorkers {
        EngineWorkers {
            workers: self.workers,
        }
    }

    /// The engine's version, or why it is unavailable.
    pub fn version(&self, semantics: EngineSemantics) -> Result<String, Unavailable> {
        match semantics.worker() {
            None => Ok(datafusion::DATAFUSION_VERSION.to_string()),
            Some(kind) => match self.workers.iter().find(|(k, _)| *k == kind) {
                Some((_, Ok(w))) => Ok(w.version.clone()),
                Some((_, Err(u))) => Err(u.clone()),
                None => Err(Unavailable {
                    engine: kind.arg(),
                    reason: "not started".into(),
                }),
            },
        }
    }

    /// The rows of each live file `predicate` matches under `semantics`, run by the engine.
    pub fn answer(
        &mut self,
        semantics: EngineSemantics,
        predicate: &str,
    ) -> Result<Result<Answer, Unavailable>, OracleError> {
        let files = self.table.snapshot.files.len();
        let Some(kind) = semantics.worker() else {
            return Ok(Ok(
                match self.table.matching_rows_as_written(predicate)? {
                    Ok(rows) => Answer::Rows(rows),
                    Err(refusal) => Answer::Refused(refusal),
                },
            ));
        };
        let Some((_, worker)) = self.workers.iter_mut().find(|(k, _)| *k == kind) else {
            return Ok(Err(Unavailable {
                engine: kind.arg(),
                reason: "not started".into(),
            }));
        };
        let worker = match worker {
            Ok(w) => w,
            Err(u) => return Ok(Err(u.clone())),
        };
        let reply = worker.request(
            &serde_json::json!({
                "op": "match",
                "predicate": predicate,
                "ansi": semantics == EngineSemantics::SparkAnsi,
            }),
            REQUEST_TIMEOUT,
        )?;
        if let Some(refused) = reply.get("refused").and_then(|v| v.as_str()) {
            return Ok(Ok(Answer::Refused(refused.to_string())));
        }
        let mut rows = vec![0u64; files];
        let matched = reply
            .get("files")
            .and_then(|v| v.as_object())
            .ok_or_else(|| {
                OracleError::Usage(format!("{} worker: no files in {reply}", kind.arg()))
            })?;
        for (file, n) in matched {
            let i: usize = file
                .parse()
                .map_err(|_| OracleError::Usage(format!("{} worker: file {file:?}", kind.arg())))?;
            if let Some(slot) = rows.get_mut(i) {
                *slot = n.as_u64().unwrap_or(0);
            }
        }
        Ok(Ok(Answer::Rows(rows)))
    }
}

/// The top-level columns Spark declares otherwise than their Parquet type: `CHAR(n)` and
/// collated strings, as the worker's `load` names them.
fn spark_columns(table: &LoadedTable) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for field in &table.snapshot.fields {
        let char_length = field.spark_type.as_deref().and_then(|t| {
            let t = t.trim().to_ascii_lowercase();
            t.strip_prefix("char(")?
                .strip_suffix(')')?
                .trim()
                .parse::<u32>()
                .ok()
        });
        if let Some(n) = char_length {
            out.insert(field.name.clone(), serde_json::json!({"char": n}));
        } else if let Some(c) = &field.collation {
            // `spark.UTF8_LCASE.75`: provider, name, version.
            let name = c.split('.').nth(1).unwrap_or(c);
            out.insert(field.name.clone(), serde_json::json!({"collation": name}));
        }
    }
    serde_json::Value::Object(out)
}

/// The loaded rows as one Parquet file: the file column as a 64-bit integer (Spark reads no
/// unsigned Parquet integers), every other column as loaded.
pub fn write_rows(table: &LoadedTable, path: &Path) -> Result<(), OracleError> {
    let fail =
        |e: String| OracleError::Usage(format!("cannot write the rows for the engines: {e}"));
    let widen = |batch: &RecordBatch| -> Result<RecordBatch, OracleError> {
        let schema = batch.schema();
        let mut fields: Vec<Field> = Vec::new();
        let mut columns: Vec<ArrayRef> = Vec::new();
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            if field.name() == FILE_COLUMN {
                fields.push(Field::new(FILE_COLUMN, DataType::Int64, false));
                columns.push(cast(column, &DataType::Int64).map_err(|e| fail(e.to_string()))?);
            } else {
                fields.push(field.as_ref().clone());
                columns.push(column.clone());
            }
        }
        RecordBatch::try_new(std::sync::Arc::new(Schema::new(fields)), columns)
            .map_err(|e| fail(e.to_string()))
    };
    let batches = table
        .rows()
        .iter()
        .map(widen)
        .collect::<Result<Vec<_>, _>>()?;
    let schema = match batches.first() {
        Some(b) => b.schema(),
        None => {
            // No rows: an empty file of the table's columns still gives the engines its types.
            let empty = RecordBatch::new_empty(table.tagged_schema());
            widen(&empty)?.schema()
        }
    };
    let file = std::fs::File::create(path).map_err(|e| fail(e.to_string()))?;
    let mut writer = ArrowWriter::try_new(file, schema, None).map_err(|e| fail(e.to_string()))?;
    for b in &batches {
        writer.write(b).map_err(|e| fail(e.to_string()))?;
    }
    writer.close().map_err(|e| fail(e.to_string()))?;
    Ok(())
}
