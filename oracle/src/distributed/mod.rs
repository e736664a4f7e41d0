//! The oracle's matching on a Ballista cluster (`delta-oracle --engine ballista`).
//!
//! The driver replays the log itself, as the local oracle does, and cuts the live files into
//! tasks ([`task::MatchTask`]: each file with its position, partition values and deletion
//! vector). The job goes to the scheduler as a table whose scan reads an in-memory source of
//! one partition per task ([`plan`]), carried by the oracle's codecs ([`codec`]); the scheduler
//! hands each executor's task only its own task rows. Executors started by
//! `delta-oracle-cluster executor` ([`cluster`]) run each task with the oracle's own per-file
//! reader and answer a row per file. The driver merges the rows by position.
//!
//! The answer is trusted only whole: every live file must be answered, with row group counts
//! that add up to its matching rows. A file not answered, answered more than once, a position
//! the snapshot does not have, a failed job or no answer within the timeout is an error
//! (exit 3), never a partial report. Ballista retries a lost executor's tasks elsewhere;
//! whether it retried or not, the driver checks the same way.

pub mod cluster;
pub mod codec;
pub mod plan;
pub mod sample;
pub mod task;

use std::sync::Arc;

use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::{UInt32Type, UInt64Type};
use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

pub use crate::engine::ClusterRequest;
use crate::error::{OracleError, one_line};
use crate::log::replay::{LiveFile, Snapshot};
use crate::matching::physical_predicate;
use codec::{LogicalCodec, PhysicalCodec};
use plan::{MatchJob, MatchTable};
use task::{MatchTask, TableShare};

/// One file's answer: the rows of its Parquet file, those left after its deletion vector,
/// and the live rows matching the predicate, in all and per row group (`(index, rows)`, in
/// row-group order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCounts {
    pub physical_rows: u64,
    pub live_rows: u64,
    pub matching_rows: u64,
    pub row_groups: Vec<(u32, u64)>,
}

/// Per live file of `snapshot` (in its order), what `predicate` matches, counted on the
/// cluster. The executors open the table at `location` with `storage` themselves.
pub fn match_on_cluster(
    snapshot: &Snapshot,
    location: &str,
    storage: &storage::StorageOptions,
    predicate: &str,
    cluster: &ClusterRequest,
) -> Result<Vec<FileCounts>, OracleError> {
    // A predicate that does not plan is bad input here, before any job is sent.
    physical_predicate(snapshot, predicate)?;
    let share = TableShare {
        location: location.to_string(),
        storage: storage.into(),
        version: snapshot.version,
        protocol: snapshot.protocol.clone(),
        metadata: snapshot.metadata.clone(),
        predicate: predicate.to_string(),
    };
    let numbered: Vec<(u64, LiveFile)> = snapshot
        .files
        .iter()
        .enumerate()
        // The executors read no statistics: the plan need not carry them.
        .map(|(i, f)| {
            (
                i as u64,
                LiveFile {
                    stats: None,
                    ..f.clone()
                },
            )
        })
        .collect();
    let tasks = numbered
        .chunks(cluster.files_per_task.max(1))
        .map(|files| MatchTask {
            files: files.to_vec(),
        })
        .collect();
    let job = Arc::new(MatchJob { share, tasks });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| OracleError::Cluster(format!("cannot start a runtime: {e}")))?;
    let batches = runtime
        .block_on(async {
            tokio::time::timeout(cluster.timeout, collect(&cluster.scheduler, job)).await
        })
        .map_err(|_| {
            OracleError::Cluster(format!(
                "no complete answer from {} within {} s",
                cluster.scheduler,
                cluster.timeout.as_secs()
            ))
        })??;
    merge(snapshot, &batches)
}

/// Runs the job on the cluster and collects every task's rows.
async fn collect(scheduler: &str, job: Arc<MatchJob>) -> Result<Vec<RecordBatch>, OracleError> {
    let config = SessionConfig::new_with_ballista()
        .with_ballista_logical_extension_codec(Arc::new(LogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(PhysicalCodec::default()));
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let failed = |what: &str, e: datafusion::error::DataFusionError| {
        OracleError::Cluster(format!("{what}: {}", one_line(&e.to_string())))
    };
    let ctx = SessionContext::remote_with_state(scheduler, state)
        .await
        .map_err(|e| failed(&format!("cannot reach the scheduler at {scheduler}"), e))?;
    ctx.register_table("delta_oracle_match", Arc::new(MatchTable { job }))
        .map_err(|e| failed("cannot register the job", e))?;
    // One output partition: the client asks the scheduler for each output partition of the
    // plan, and a scan's partitions would each fetch the whole job's answer again. Ordered by
    // file, the answer is one sorted partition.
    ctx.sql("SELECT * FROM delta_oracle_match ORDER BY file")
        .await
        .map_err(|e| failed("cannot plan the job", e))?
        .collect()
        .await
        .map_err(|e| failed("the job failed", e))
}

/// The tasks' rows by file, each live file answered exactly once.
fn merge(snapshot: &Snapshot, batches: &[RecordBatch]) -> Result<Vec<FileCounts>, OracleError> {
    let files = snapshot.files.len();
    let refused = |why: String| OracleError::Cluster(format!("{why}; the answer is refused"));
    let mut answers: Vec<Option<FileCounts>> = vec![None; files];
    for batch in batches {
        let column = |i: usize| batch.column(i);
        let u64s = |i: usize| column(i).as_primitive_opt::<UInt64Type>();
        let (Some(file), Some(physical), Some(live), Some(matching)) =
            (u64s(0), u64s(1), u64s(2), u64s(3))
        else {
            return Err(refused("a task answered in another shape".into()));
        };
        let (Some(groups), Some(group_rows)) = (
            column(4).as_list_opt::<i32>(),
            column(5).as_list_opt::<i32>(),
        ) else {
            return Err(refused("a task answered in another shape".into()));
        };
        for row in 0..batch.num_rows() {
            let at = usize::try_from(file.value(row)).unwrap_or(usize::MAX);
            let Some(slot) = answers.get_mut(at) else {
                return Err(refused(format!(
                    "the cluster answered for file {at} of a snapshot of {files} files"
                )));
            };
            let indices = groups.value(row);
            let counts = group_rows.value(row);
            let (Some(indices), Some(counts)) = (
                indices.as_primitive_opt::<UInt32Type>(),
                counts.as_primitive_opt::<UInt64Type>(),
            ) else {
                return Err(refused("a task answered in another shape".into()));
            };
            let row_groups: Vec<(u32, u64)> = (0..indices.len().min(counts.len()))
                .map(|i| (indices.value(i), counts.value(i)))
                .collect();
            let counted: u64 = row_groups.iter().map(|(_, n)| n).sum();
            if indices.len() != counts.len() || counted != matching.value(row) {
                return Err(refused(format!(
                    "the row groups of `{}` do not add up to its matching rows",
                    snapshot.files[at].path
                )));
            }
            let answer = FileCounts {
                physical_rows: physical.value(row),
                live_rows: live.value(row),
                matching_rows: matching.value(row),
                row_groups,
            };
            // Each task runs once (the scheduler hands each executor's task only its own
            // task rows): a file answered twice was counted twice somewhere.
            if slot.is_some() {
                return Err(refused(format!(
                    "the cluster answered `{}` more than once",
                    snapshot.files[at].path
                )));
            }
            *slot = Some(answer);
        }
    }
    let answered = answers.iter().filter(|a| a.is_some()).count();
    if answered < files {
        return Err(refused(format!(
            "the cluster answered for {answered} of {files} files"
        )));
    }
    Ok(answers.into_iter().flatten().collect())
}
