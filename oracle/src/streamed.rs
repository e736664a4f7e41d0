//! Matching one predicate file by file, without loading the table: each worker reads a file
//! (deletion vector applied, [`crate::read::read_file`]), evaluates the predicate on its rows
//! with DataFusion's physical expression (planned once, with type coercion and no
//! simplification, as [`crate::matching`] evaluates it), judges the footer the read used
//! ([`crate::row_groups`]) and keeps only the counts and verdicts. Memory is a
//! file per worker, whatever the size of the table: what `--verify` needs for one predicate.
//! [`crate::matching::LoadedTable`] stays the path for many predicates over one read.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use arrow::array::{Array, AsArray};
use datafusion::physical_plan::PhysicalExpr;

use crate::error::{OracleError, one_line};
use crate::log::replay::Snapshot;
use crate::matching::physical_predicate;
use crate::planning::ScanPlan;
use crate::read::read_file;
use crate::row_groups::{FooterPruning, RowGroup};

/// What one read of a file says about one predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileVerdict {
    /// The row groups holding live rows for which the predicate is TRUE, `(index, rows)`, in
    /// row-group order.
    pub matches: Vec<(u32, u64)>,
    /// Every row group of the file, with the verdict of its footer statistics
    /// ([`crate::row_groups`]), from the footer the read itself used.
    pub row_groups: Vec<RowGroup>,
    /// Rows in the Parquet file, and those left after its deletion vector.
    pub physical_rows: u64,
    pub live_rows: u64,
}

/// One file's verdict, or why it could not be read.
type FileMatches = Result<FileVerdict, OracleError>;

/// Per live file of `snapshot`, what `predicate` matches in it and what its footer leaves to
/// be read, from one read of the file. `files_read` hears the number of files read so far,
/// from the workers, as each file is done.
pub fn matching_row_groups(
    snapshot: &Snapshot,
    predicate: &str,
    plan: &ScanPlan,
    files_read: &(dyn Fn(usize) + Sync),
) -> Result<Vec<FileVerdict>, OracleError> {
    let physical = physical_predicate(snapshot, predicate)?;
    let footers = FooterPruning::new(snapshot, Some(predicate))?;
    let done = AtomicUsize::new(0);
    workers::map(
        snapshot.files.iter().collect(),
        plan.partitions.max(1),
        crate::DEEP_STACK,
        |file| {
            let counted = count_file(snapshot, file, None, &physical, &footers);
            files_read(done.fetch_add(1, Ordering::Relaxed) + 1);
            counted
        },
    )
    .into_iter()
    .collect()
}

/// The matching rows of one file per row group, and its footer's verdicts.
pub(crate) fn count_file(
    snapshot: &Snapshot,
    file: &crate::log::replay::LiveFile,
    range: Option<std::ops::Range<u64>>,
    predicate: &Arc<dyn PhysicalExpr>,
    footers: &FooterPruning<'_>,
) -> FileMatches {
    let rows = read_file(snapshot, file, range)?;
    let row_groups = footers.judge(file, &rows.metadata, &rows.file_schema, &file.path)?;
    let mut counts: Vec<(u32, u64)> = Vec::new();
    for (batch, groups) in rows.batches.iter().zip(&rows.row_groups) {
        let value = predicate
            .evaluate(batch)
            .and_then(|v| v.into_array(batch.num_rows()))
            .map_err(|e| OracleError::file(&file.path, one_line(&e.to_string())))?;
        let matched = value
            .as_boolean_opt()
            .ok_or_else(|| OracleError::Predicate("the predicate is not boolean".into()))?;
        for row in 0..matched.len() {
            if matched.is_valid(row) && matched.value(row) {
                let group = groups.value(row);
                match counts.last_mut() {
                    Some((g, n)) if *g == group => *n += 1,
                    _ => counts.push((group, 1)),
                }
            }
        }
    }
    // Batches come in row-group order; merged, in case a group's rows were not contiguous.
    counts.sort_unstable_by_key(|(g, _)| *g);
    counts.dedup_by(|later, first| {
        if later.0 == first.0 {
            first.1 += later.1;
            true
        } else {
            false
        }
    });
    Ok(FileVerdict {
        matches: counts,
        row_groups,
        physical_rows: rows.physical_rows,
        live_rows: rows.live_rows,
    })
}
