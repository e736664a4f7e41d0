//! Where the oracle's per-file matching runs, as the commands that match rows take it:
//! `--engine local|ballista --scheduler df://HOST:PORT --files-per-task N --cluster-timeout S`
//! (`delta-oracle` and the harness's campaign share these flags), and the cluster request they
//! make.

use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::error::OracleError;

/// Where the data is read and matched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Engine {
    /// On this machine, every core (the default).
    Local,
    /// On a Ballista cluster (`--scheduler`); see docs/distributed.md.
    Ballista,
}

/// Where the cluster is and how the job is cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterRequest {
    /// The scheduler, `df://HOST:PORT`.
    pub scheduler: String,
    /// Files per task: a task is the unit the scheduler hands an executor.
    pub files_per_task: usize,
    /// How long the driver waits for the whole answer.
    pub timeout: Duration,
    /// Files larger than this are matched in byte ranges of this size (their row groups
    /// spread over tasks); `None` keeps every file whole.
    pub split_bytes: Option<u64>,
}

/// The engine flags of a command.
#[derive(Clone, Debug, Args)]
pub struct EngineArgs {
    /// Where the files are matched: here, or on a Ballista cluster.
    #[arg(long, value_enum, default_value_t = Engine::Local)]
    pub engine: Engine,
    /// The Ballista scheduler, df://HOST:PORT (with `--engine ballista`).
    #[arg(long, value_name = "URL")]
    pub scheduler: Option<String>,
    /// Files per task on the cluster.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub files_per_task: usize,
    /// Seconds to wait for the cluster's whole answer to one predicate.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub cluster_timeout: u64,
    /// On the cluster, files larger than BYTES are matched in byte ranges of BYTES, their row
    /// groups spread over tasks (0: every file whole).
    #[arg(long, value_name = "BYTES", default_value_t = 256 << 20)]
    pub split_bytes: u64,
}

impl EngineArgs {
    /// The cluster to match on, `None` for the local engine; a usage error where the flags
    /// contradict each other or the binary cannot reach a cluster.
    pub fn cluster(&self) -> Result<Option<ClusterRequest>, OracleError> {
        match self.engine {
            Engine::Local if self.scheduler.is_some() => Err(OracleError::Usage(
                "--scheduler is for --engine ballista".into(),
            )),
            Engine::Local => Ok(None),
            Engine::Ballista if !cfg!(feature = "ballista") => Err(OracleError::Usage(
                "this binary was built without the `ballista` feature".into(),
            )),
            Engine::Ballista => {
                let scheduler = self.scheduler.clone().ok_or_else(|| {
                    OracleError::Usage("--engine ballista needs --scheduler df://HOST:PORT".into())
                })?;
                if self.files_per_task == 0 {
                    return Err(OracleError::Usage(
                        "--files-per-task must be at least 1".into(),
                    ));
                }
                Ok(Some(ClusterRequest {
                    scheduler,
                    files_per_task: self.files_per_task,
                    timeout: Duration::from_secs(self.cluster_timeout),
                    split_bytes: (self.split_bytes > 0).then_some(self.split_bytes),
                }))
            }
        }
    }
}
