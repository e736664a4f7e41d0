//! Delta readers users run, each reading a table itself (its log, its pruning, its data) in a
//! worker process of `engines/worker.py`, the same script and virtual environment as the
//! engine-backed evaluation (engines.rs): what the conformance campaign checks
//! (`harness/src/conformance.rs`).
//!
//! | reader | how it reads | its truth |
//! |---|---|---|
//! | `duckdb-delta` | DuckDB's `delta` extension (PyPI `duckdb-extension-delta`, loaded from the package's file, offline): `delta_scan(table, filename=true)`, rows per file | the same DuckDB over the oracle's rows |
//! | `polars` | `scan_delta(table).filter(sql_expr(P))`: the table's count | the same Polars over the oracle's rows |
//! | `delta-rs` | `deltalake.QueryBuilder` (its own DataFusion): the table's count | the same query builder over the oracle's rows, written as a one-file Delta table without statistics (nothing to prune) |
//!
//! A reader's truth is the same engine's reading of the predicate over rows it did not read
//! through Delta (the oracle's replay: deletion vectors applied, partition values as columns),
//! so that a difference is the reader's, not a difference of SQL dialects.

use std::collections::BTreeMap;

use crate::engines::{Answer, REQUEST_TIMEOUT, Unavailable, Worker, WorkerKind, write_rows};
use crate::error::OracleError;
use crate::matching::LoadedTable;

/// A Delta reader run as a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum DeltaReader {
    DuckdbDelta,
    Polars,
    DeltaRs,
}

impl DeltaReader {
    pub const ALL: [DeltaReader; 3] = [
        DeltaReader::DuckdbDelta,
        DeltaReader::Polars,
        DeltaReader::DeltaRs,
    ];

    pub fn name(self) -> &'static str {
        self.kind().arg()
    }

    fn kind(self) -> WorkerKind {
        match self {
            DeltaReader::DuckdbDelta => WorkerKind::DuckdbDelta,
            DeltaReader::Polars => WorkerKind::Polars,
            DeltaReader::DeltaRs => WorkerKind::DeltaRs,
        }
    }
}

/// What a reader returned for one predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReaderAnswer {
    /// The matching rows: per file (its path as the log writes it, decoded) where the reader
    /// says which file a row came from, else the table's count alone.
    Rows {
        total: u64,
        per_file: Option<BTreeMap<String, u64>>,
    },
    /// The reader refused the predicate: it ran no query (its message).
    Refused(String),
    /// The reader failed running it: reading the table, decoding, an internal error.
    Failed(String),
    /// The reader raised an arithmetic error running it (overflow, out of range, division by
    /// zero), on rows its plan evaluated the expression on.
    Arithmetic(String),
}

/// One reader's worker, started once and asked about any number of tables.
pub struct ReaderWorker {
    pub reader: DeltaReader,
    /// The Python of the worker's environment.
    python: std::path::PathBuf,
    worker: Result<Worker, Unavailable>,
    /// The oracle's rows of the table loaded for the truth, while the worker may read them.
    rows: Option<tempfile::TempDir>,
}

impl ReaderWorker {
    pub fn start(reader: DeltaReader) -> ReaderWorker {
        Self::start_in(reader, crate::engines::engines_python())
    }

    /// The reader in the environment whose Python is `python` (a version of its own:
    /// `oracle/engines/reader-env.sh`).
    pub fn start_in(reader: DeltaReader, python: std::path::PathBuf) -> ReaderWorker {
        ReaderWorker {
            reader,
            worker: Worker::start_in(reader.kind(), &python),
            python,
            rows: None,
        }
    }

    /// The reader's version, or why it is unavailable.
    pub fn version(&self) -> Result<String, Unavailable> {
        match &self.worker {
            Ok(w) => Ok(w.version.clone()),
            Err(u) => Err(u.clone()),
        }
    }

    /// `predicate` read by the reader from the Delta table at `location` (a local directory).
    pub fn read(
        &mut self,
        location: &str,
        predicate: &str,
    ) -> Result<Result<ReaderAnswer, Unavailable>, OracleError> {
        if let Err(u) = &self.worker {
            return Ok(Err(u.clone()));
        }
        let reply = self
            .asked(&serde_json::json!({"op": "read", "table": location, "predicate": predicate}))?;
        if let Some(refused) = reply.get("refused").and_then(|v| v.as_str()) {
            let why = refused.to_string();
            // The worker says what happened (`failure`, by the exception's class and words);
            // an older worker that does not is read as a refusal.
            return Ok(Ok(match reply.get("failure").and_then(|v| v.as_str()) {
                Some("error") => ReaderAnswer::Failed(why),
                Some("arithmetic") => ReaderAnswer::Arithmetic(why),
                Some(_) | None => ReaderAnswer::Refused(why),
            }));
        }
        let files = reply
            .get("files")
            .and_then(|v| v.as_object())
            .ok_or_else(|| {
                OracleError::Usage(format!(
                    "{} worker: no files in {reply}",
                    self.reader.name()
                ))
            })?;
        let total = files.values().filter_map(|n| n.as_u64()).sum();
        let per_file = (!files.contains_key("*")).then(|| {
            files
                .iter()
                .map(|(path, n)| (decoded(path), n.as_u64().unwrap_or(0)))
                .collect()
        });
        Ok(Ok(ReaderAnswer::Rows { total, per_file }))
    }

    /// `request`'s answer; a worker that faults (its process ended, no answer in time) is
    /// started again for the next request, and the fault is this request's error.
    fn asked(&mut self, request: &serde_json::Value) -> Result<serde_json::Value, OracleError> {
        let answer = match &mut self.worker {
            Ok(w) => w.request(request, REQUEST_TIMEOUT),
            Err(u) => return Err(OracleError::Usage(u.to_string())),
        };
        if answer.is_err() {
            self.worker = Worker::start_in(self.reader.kind(), &self.python);
            self.rows = None;
        }
        answer
    }

    /// Hands the worker the oracle's rows of `table`, for [`ReaderWorker::truth`]. The inner
    /// error: the engine cannot hold these rows (its message), so there is no truth for them.
    pub fn load(&mut self, table: &LoadedTable) -> Result<Result<(), String>, OracleError> {
        if let Err(u) = &self.worker {
            return Ok(Err(u.to_string()));
        }
        let dir = tempfile::tempdir()
            .map_err(|e| OracleError::Usage(format!("cannot make a directory for rows: {e}")))?;
        let path = dir.path().join("rows.parquet");
        write_rows(table, &path)?;
        let reply = self.asked(
            &serde_json::json!({"op": "load", "parquet": path.to_string_lossy(), "columns": {}}),
        )?;
        if reply.get("ok").and_then(|v| v.as_bool()) != Some(true) {
            let why = reply
                .get("refused")
                .and_then(|v| v.as_str())
                .map_or_else(|| reply.to_string(), str::to_string);
            return Ok(Err(format!(
                "{} cannot hold the rows: {why}",
                self.reader.name()
            )));
        }
        self.rows = Some(dir);
        Ok(Ok(()))
    }

    /// The truth of `predicate` for this reader: the same engine over the loaded rows, per
    /// live file of `table` (see the module's table).
    pub fn truth(
        &mut self,
        table: &LoadedTable,
        predicate: &str,
    ) -> Result<Result<Answer, Unavailable>, OracleError> {
        let files = table.snapshot.files.len();
        let name = self.reader.name();
        if let Err(u) = &self.worker {
            return Ok(Err(u.clone()));
        }
        let reply =
            self.asked(&serde_json::json!({"op": "match", "predicate": predicate, "ansi": false}))?;
        if let Some(refused) = reply.get("refused").and_then(|v| v.as_str()) {
            return Ok(Ok(Answer::Refused(refused.to_string())));
        }
        let matched = reply
            .get("files")
            .and_then(|v| v.as_object())
            .ok_or_else(|| OracleError::Usage(format!("{name} worker: no files in {reply}")))?;
        let mut rows = vec![0u64; files];
        for (file, n) in matched {
            let i: usize = file
                .parse()
                .map_err(|_| OracleError::Usage(format!("{name} worker: file {file:?}")))?;
            if let Some(slot) = rows.get_mut(i) {
                *slot = n.as_u64().unwrap_or(0);
            }
        }
        Ok(Ok(Answer::Rows(rows)))
    }
}

/// A path with its percent-escapes decoded, as a reader names a file it read and as the log's
/// (URL-encoded) path decodes.
pub fn decoded(path: &str) -> String {
    percent_encoding::percent_decode_str(path)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::decoded;

    #[test]
    fn decodes_percent_escapes_only() {
        assert_eq!(decoded("p=a%20b/part-0.parquet"), "p=a b/part-0.parquet");
        assert_eq!(decoded("p=%3A/x"), "p=:/x");
        assert_eq!(decoded("100%"), "100%");
        assert_eq!(decoded("plain/part.parquet"), "plain/part.parquet");
    }
}
