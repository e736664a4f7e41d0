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
use task::{MatchTask, TableShare, TaskFile};

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
    let parts = split_files(snapshot, cluster.split_bytes);
    let tasks = parts
        .chunks(cluster.files_per_task.max(1))
        .map(|files| MatchTask {
            files: files.to_vec(),
        })
        .collect();
    let job = Arc::new(MatchJob { share, tasks });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(crate::DEEP_STACK)
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
    merge(snapshot, &parts, &batches)
}

/// The parts the files are matched in: each live file whole, or, when it is larger than
/// `split_bytes`, in byte ranges of that size (the last one open-ended, so a file larger than
/// its logged size is still read whole). The executors read no statistics: the parts do not
/// carry them.
pub fn split_files(snapshot: &Snapshot, split_bytes: Option<u64>) -> Vec<TaskFile> {
    let mut parts = Vec::new();
    for (i, f) in snapshot.files.iter().enumerate() {
        let file = LiveFile {
            stats: None,
            ..f.clone()
        };
        let size = u64::try_from(f.size).unwrap_or(0);
        match split_bytes.filter(|&split| split > 0 && size > split) {
            None => parts.push(TaskFile {
                position: i as u64,
                file,
                range: None,
            }),
            Some(split) => {
                let mut start = 0;
                while start < size {
                    let end = if start + split >= size {
                        u64::MAX
                    } else {
                        start + split
                    };
                    parts.push(TaskFile {
                        position: i as u64,
                        file: file.clone(),
                        range: Some((start, end)),
                    });
                    start = start.saturating_add(split);
                }
            }
        }
    }
    parts
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

/// The tasks' rows by file: each part of every live file answered exactly once, a file's parts
/// summed (a row group in one part only).
fn merge(
    snapshot: &Snapshot,
    parts: &[TaskFile],
    batches: &[RecordBatch],
) -> Result<Vec<FileCounts>, OracleError> {
    let files = snapshot.files.len();
    let refused = |why: String| OracleError::Cluster(format!("{why}; the answer is refused"));
    // Each part's answer, by (file, where the part starts).
    let mut answers: std::collections::BTreeMap<(u64, u64), Option<FileCounts>> = parts
        .iter()
        .map(|p| ((p.position, p.start()), None))
        .collect();
    for batch in batches {
        let column = |i: usize| batch.column(i);
        let u64s = |i: usize| column(i).as_primitive_opt::<UInt64Type>();
        let (Some(file), Some(start), Some(physical), Some(live), Some(matching)) =
            (u64s(0), u64s(1), u64s(2), u64s(3), u64s(4))
        else {
            return Err(refused("a task answered in another shape".into()));
        };
        let (Some(groups), Some(group_rows)) = (
            column(5).as_list_opt::<i32>(),
            column(6).as_list_opt::<i32>(),
        ) else {
            return Err(refused("a task answered in another shape".into()));
        };
        for row in 0..batch.num_rows() {
            let at = usize::try_from(file.value(row)).unwrap_or(usize::MAX);
            let Some(slot) = answers.get_mut(&(file.value(row), start.value(row))) else {
                return Err(refused(format!(
                    "the cluster answered for a part of file {at} the job does not have"
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
    let missing = answers.values().filter(|a| a.is_none()).count();
    if missing > 0 {
        return Err(refused(format!(
            "the cluster left {missing} of {} part(s) of {files} files unanswered",
            answers.len()
        )));
    }
    // A file's parts, summed; a row group counted by two parts is refused.
    let mut merged: Vec<FileCounts> = vec![
        FileCounts {
            physical_rows: 0,
            live_rows: 0,
            matching_rows: 0,
            row_groups: Vec::new(),
        };
        files
    ];
    for ((position, _), answer) in answers {
        let Some(answer) = answer else { continue };
        let Some(into) = usize::try_from(position)
            .ok()
            .and_then(|p| merged.get_mut(p))
        else {
            continue;
        };
        into.physical_rows += answer.physical_rows;
        into.live_rows += answer.live_rows;
        into.matching_rows += answer.matching_rows;
        into.row_groups.extend(answer.row_groups);
    }
    for (counts, file) in merged.iter_mut().zip(&snapshot.files) {
        counts.row_groups.sort_unstable();
        if counts.row_groups.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(refused(format!(
                "two parts of `{}` counted the same row group",
                file.path
            )));
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_files_are_cut_in_ranges_that_cover_them_whole() {
        let taxi = Snapshot::open(&testkit::taxi(), None).expect("taxi opens");
        let whole = split_files(&taxi, None);
        assert_eq!(whole.len(), taxi.files.len());
        assert!(
            whole
                .iter()
                .all(|p| p.range.is_none() && p.file.stats.is_none())
        );
        let smallest = taxi.files.iter().map(|f| f.size).min().unwrap() as u64;
        let split = smallest / 3;
        let parts = split_files(&taxi, Some(split));
        for (i, f) in taxi.files.iter().enumerate() {
            let mine: Vec<(u64, u64)> = parts
                .iter()
                .filter(|p| p.position == i as u64)
                .map(|p| p.range.expect("a large file is cut"))
                .collect();
            assert!(mine.len() >= 3, "{}: {mine:?}", f.path);
            assert_eq!(mine[0].0, 0);
            // Contiguous, the last one open-ended.
            assert!(mine.windows(2).all(|w| w[0].1 == w[1].0), "{mine:?}");
            assert_eq!(mine.last().unwrap().1, u64::MAX);
            assert!(mine.iter().all(|(s, e)| *e == u64::MAX || e - s == split));
        }
        assert!(
            split_files(&taxi, Some(0))
                .iter()
                .all(|p| p.range.is_none())
        );
    }
}
