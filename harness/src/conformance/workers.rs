//! The readers run as workers of `oracle/engines/worker.py` (`duckdb-delta`, `polars`,
//! `delta-rs`; see `oracle::readers`): one long-lived process per reader, started once for the
//! whole campaign; each table's rows are handed to it once for its truth.

use oracle::engines::Answer;
use oracle::readers::{DeltaReader, ReaderAnswer, ReaderWorker};

use super::{Adapter, Reading, TableUnderTest};

pub struct WorkerAdapter {
    worker: ReaderWorker,
}

impl WorkerAdapter {
    pub fn start(reader: DeltaReader) -> Self {
        Self {
            worker: ReaderWorker::start(reader),
        }
    }

    /// The reader at `version` from PyPI, in an environment of its own made once by
    /// `oracle/engines/reader-env.sh` (the installer's words on stderr); unavailable, with
    /// why, where that environment cannot be made.
    pub fn pinned(reader: DeltaReader, version: &str) -> Box<dyn Adapter> {
        match reader_env(reader, version) {
            Ok(python) => Box::new(Self {
                worker: ReaderWorker::start_in(reader, python),
            }),
            Err(why) => Box::new(Unavailable {
                name: reader.name(),
                why,
            }),
        }
    }
}

/// The Python of the environment holding `reader` at `version`.
fn reader_env(reader: DeltaReader, version: &str) -> Result<std::path::PathBuf, String> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../oracle/engines/reader-env.sh"
    );
    let out = std::process::Command::new("bash")
        .arg(script)
        .arg(reader.name())
        .arg(version)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {script}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{} {version} could not be installed from PyPI (oracle/engines/reader-env.sh)",
            reader.name()
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .last()
        .map(|l| std::path::PathBuf::from(l.trim()))
        .ok_or_else(|| "reader-env.sh printed no python".to_string())
}

/// A reader that cannot run: every call says why (never a pass).
pub struct Unavailable {
    pub name: &'static str,
    pub why: String,
}

impl Adapter for Unavailable {
    fn name(&self) -> &'static str {
        self.name
    }
    fn version(&self) -> Result<String, String> {
        Err(self.why.clone())
    }
    fn open(&mut self, _table: &TableUnderTest) -> Result<Result<(), String>, String> {
        Err(self.why.clone())
    }
    fn read(&mut self, _table: &TableUnderTest, _predicate: &str) -> Result<Reading, String> {
        Err(self.why.clone())
    }
    fn truth(&mut self, _table: &TableUnderTest, _predicate: &str) -> Result<Answer, String> {
        Err(self.why.clone())
    }
}

impl Adapter for WorkerAdapter {
    fn name(&self) -> &'static str {
        self.worker.reader.name()
    }

    fn version(&self) -> Result<String, String> {
        self.worker.version().map_err(|u| u.reason)
    }

    fn open(&mut self, table: &TableUnderTest) -> Result<Result<(), String>, String> {
        // Rows the engine cannot hold leave it no truth for this table: skipped, with why.
        self.worker.load(&table.loaded).map_err(|e| e.to_string())
    }

    fn read(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Reading, String> {
        match self.worker.read(&table.location, predicate) {
            Ok(Ok(ReaderAnswer::Refused(why))) => Ok(Reading::Refused(why)),
            Ok(Ok(ReaderAnswer::Arithmetic(why))) => Ok(Reading::PlanDependent(why)),
            // A reader that says it does not support the table's feature refuses it, whatever
            // the exception; any other failure on a valid table is an error.
            Ok(Ok(ReaderAnswer::Failed(why))) if super::documented_unsupported(&why) => {
                Ok(Reading::Refused(why))
            }
            Ok(Ok(ReaderAnswer::Failed(why))) => Err(why),
            Ok(Ok(ReaderAnswer::Rows { total, per_file })) => {
                let per_file = match per_file {
                    None => None,
                    Some(named) => {
                        let mut rows = vec![0u64; table.files()];
                        let mut all_known = true;
                        for (path, n) in named {
                            match table.file_index(&path) {
                                Some(i) => rows[i] = n,
                                None => all_known = false,
                            }
                        }
                        // A file the log does not name as live: the count alone is compared
                        // (and will differ if those rows are extra).
                        all_known.then_some(rows)
                    }
                };
                Ok(Reading::Rows { total, per_file })
            }
            Ok(Err(u)) => Err(u.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
        match self.worker.truth(&table.loaded, predicate) {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(u)) => Err(u.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }
}
