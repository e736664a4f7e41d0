//! A table under test, loaded once: explain-core's replay (through delta_kernel) and the
//! oracle's decoded rows, shared by every trial on it; and the engine that counts its matching
//! rows (the oracle's local DataFusion, or a Ballista cluster).

use std::sync::atomic::{AtomicU64, Ordering};

use explain_core::replay::ReplayedTable;
use oracle::OracleError;
use oracle::distributed::{ClusterRequest, match_on_cluster};
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;

/// Where the oracle's DataFusion matching runs. The row-wise interpreter, the second
/// evaluator it is checked against, always runs here.
#[derive(Clone, Debug, Default)]
pub enum OracleEngine {
    /// In this process, over the rows loaded once.
    #[default]
    Local,
    /// On a Ballista cluster: each predicate is one job, its executors read the table's files
    /// at the subject's location themselves.
    Ballista(ClusterRequest),
}

impl OracleEngine {
    /// How a report names the engine.
    pub fn describe(&self) -> String {
        match self {
            OracleEngine::Local => "local".into(),
            OracleEngine::Ballista(c) => format!("ballista {}", c.scheduler),
        }
    }
}

/// Why the matching rows of a predicate are not known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchError {
    /// The oracle refuses the predicate (it does not plan): the case does not apply.
    Refused(String),
    /// The engine failed (the cluster is unreachable, lost an executor, timed out): nothing
    /// was checked, and the campaign stops.
    Engine(String),
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::Refused(e) | MatchError::Engine(e) => f.write_str(e),
        }
    }
}

pub struct Subject {
    /// A short name for trial names and reports (`taxi-nyc`, `gen/nan-floats`).
    pub name: String,
    pub location: String,
    /// The version both sides read (the latest where `None`).
    pub version: Option<u64>,
    pub kernel: ReplayedTable,
    pub oracle: LoadedTable,
    /// For each live file of `kernel`, its index in the oracle's snapshot.
    pub oracle_index: Vec<Option<usize>>,
    pub engine: OracleEngine,
    /// Predicates matched on a cluster so far.
    cluster_jobs: AtomicU64,
}

impl Subject {
    pub fn load(name: &str, location: &str) -> Result<Subject, String> {
        Self::load_at(name, location, None)
    }

    /// The subject at `version` (the latest where `None`), read by both sides at that version.
    pub fn load_at(name: &str, location: &str, version: Option<u64>) -> Result<Subject, String> {
        let kernel = ReplayedTable::open(location, version)
            .map_err(|e| format!("{name}: explain-core: {e}"))?;
        let snapshot =
            Snapshot::open(location, version).map_err(|e| format!("{name}: oracle: {e}"))?;
        let oracle =
            LoadedTable::load(snapshot, &plan(2)).map_err(|e| format!("{name}: oracle: {e}"))?;
        let oracle_index = kernel
            .paths()
            .map(|path| oracle.snapshot.files.iter().position(|o| o.path == path))
            .collect();
        Ok(Subject {
            name: name.to_string(),
            location: location.to_string(),
            version,
            kernel,
            oracle,
            oracle_index,
            engine: OracleEngine::Local,
            cluster_jobs: AtomicU64::new(0),
        })
    }

    /// The subject with its DataFusion matching run on `engine`.
    pub fn with_engine(mut self, engine: OracleEngine) -> Subject {
        self.engine = engine;
        self
    }

    /// Per live file of the oracle's snapshot (in its order), the rows `predicate` matches
    /// under DataFusion's evaluation, counted on the subject's engine.
    pub fn matching_rows(&self, predicate: &str) -> Result<Vec<u64>, MatchError> {
        let refused_or_failed = |e: OracleError| match e {
            OracleError::Cluster(_)
            | OracleError::Log(_)
            | OracleError::File { .. }
            | OracleError::Table { .. } => MatchError::Engine(e.to_string()),
            OracleError::Usage(_) | OracleError::Predicate(_) => MatchError::Refused(e.to_string()),
        };
        match &self.engine {
            OracleEngine::Local => self
                .oracle
                .matching_rows(predicate)
                .map_err(refused_or_failed),
            OracleEngine::Ballista(cluster) => {
                self.cluster_jobs.fetch_add(1, Ordering::Relaxed);
                let counts = match_on_cluster(
                    &self.oracle.snapshot,
                    &self.location,
                    &storage::StorageOptions::default(),
                    predicate,
                    cluster,
                )
                .map_err(refused_or_failed)?;
                Ok(counts.iter().map(|c| c.matching_rows).collect())
            }
        }
    }

    /// Per kernel file, the value `per_oracle_file` holds for it (0 for a file the oracle's
    /// replay does not hold).
    pub fn by_kernel_file(&self, per_oracle_file: &[u64]) -> Vec<u64> {
        self.oracle_index
            .iter()
            .map(|i| i.and_then(|i| per_oracle_file.get(i).copied()).unwrap_or(0))
            .collect()
    }

    /// Predicates matched on a cluster so far.
    pub fn cluster_jobs(&self) -> u64 {
        self.cluster_jobs.load(Ordering::Relaxed)
    }
}
