//! The live rows the layouts are built from: every live file read by the oracle's reader
//! (deletion vectors applied, partition values as columns), only the columns the workload
//! uses kept, and where a sample is asked for, a seeded Bernoulli sample of the rows at the
//! rate that gives about that many rows (each kept row then stands for `1 / rate` rows).

use std::sync::atomic::{AtomicUsize, Ordering};

use arrow::array::{RecordBatch, UInt32Array};
use arrow::compute::{concat_batches, filter_record_batch};
use arrow::datatypes::SchemaRef;
use oracle::log::Snapshot;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use explain_compiler::error::ExplainError;

/// A file's partition values: `(column, value)` in the table's partition column order, `None`
/// for NULL.
pub type FilePartition = Vec<(String, Option<String>)>;

/// One live file of the table as it is.
#[derive(Clone, Debug)]
pub struct TableFile {
    pub path: String,
    pub size: u64,
    pub live_rows: u64,
    pub has_deletion_vector: bool,
    /// Its partition values, by logical column name.
    pub partition_values: FilePartition,
}

/// The rows read, and what they stand for.
pub struct SampledRows {
    /// The kept rows, the workload's columns only, in file order.
    pub batch: RecordBatch,
    /// For each kept row, the index of its file in `files`.
    pub file_of_row: Vec<u32>,
    pub files: Vec<TableFile>,
    /// The share of the live rows kept (1 without a sample).
    pub rate: f64,
    /// Bytes of the table's files per live row: a simulated file's size is its rows times this.
    pub bytes_per_row: f64,
}

impl SampledRows {
    pub fn live_rows(&self) -> u64 {
        self.files.iter().map(|f| f.live_rows).sum()
    }
}

/// Reads the live rows of `snapshot`, keeping the columns `columns` (logical names, as the
/// table spells them) and, with `sample`, about that many rows. `files_read` hears the
/// number of files read so far.
pub fn read_rows(
    location: &str,
    snapshot: &Snapshot,
    columns: &[String],
    sample: Option<u64>,
    seed: u64,
    workers: usize,
    files_read: &(dyn Fn(usize) + Sync),
) -> Result<SampledRows, ExplainError> {
    let table_error = |e| crate::table_error(location, e);
    // The rate is set before reading, from the recorded row counts (deleted rows included: a
    // rate a little low gives a sample a little small).
    let recorded: Option<u64> = snapshot.files.iter().map(|f| f.num_records()).sum();
    let rate = match (sample, recorded) {
        (Some(n), Some(total)) if total > n => n as f64 / total as f64,
        _ => 1.0,
    };
    let logical = oracle::delta_schema::arrow_schema(&snapshot.fields);
    let indices: Vec<usize> = columns
        .iter()
        .filter_map(|c| logical.index_of(c).ok())
        .collect();
    let projected: SchemaRef = std::sync::Arc::new(
        logical
            .project(&indices)
            .map_err(|e| ExplainError::Usage(e.to_string()))?,
    );
    let done = AtomicUsize::new(0);
    type Read = Result<(Vec<RecordBatch>, u64), ExplainError>;
    let results: Vec<Read> = workers::map(
        snapshot.files.iter().enumerate().collect(),
        workers.max(1),
        explain_core::DEEP_STACK,
        |(i, file)| {
            let read = oracle::read::read_file(snapshot, file, None)
                .map_err(table_error)
                .and_then(|rows| {
                    // Each file draws from its own seeded stream, so the sample does not depend
                    // on which worker read which file.
                    let mut rng = ChaCha8Rng::seed_from_u64(
                        seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                    );
                    let mut kept = Vec::new();
                    for batch in &rows.batches {
                        let batch = batch
                            .project(&indices)
                            .map_err(|e| ExplainError::Usage(e.to_string()))?;
                        let batch = if rate < 1.0 {
                            let mask: arrow::array::BooleanArray = (0..batch.num_rows())
                                .map(|_| Some(rng.random::<f64>() < rate))
                                .collect();
                            filter_record_batch(&batch, &mask)
                                .map_err(|e| ExplainError::Usage(e.to_string()))?
                        } else {
                            batch
                        };
                        kept.push(batch);
                    }
                    Ok((kept, rows.live_rows))
                });
            files_read(done.fetch_add(1, Ordering::Relaxed) + 1);
            read
        },
    );
    let mut batches = Vec::new();
    let mut file_of_row = Vec::new();
    let mut files = Vec::with_capacity(snapshot.files.len());
    for (i, (read, file)) in results.into_iter().zip(&snapshot.files).enumerate() {
        let (kept, live_rows) = read?;
        for b in &kept {
            file_of_row.extend(std::iter::repeat_n(i as u32, b.num_rows()));
        }
        batches.extend(kept);
        files.push(TableFile {
            path: file.path.clone(),
            size: u64::try_from(file.size).unwrap_or(0),
            live_rows,
            has_deletion_vector: file.deletion_vector.is_some(),
            partition_values: logical_partition_values(snapshot, file),
        });
    }
    let batch = concat_batches(&projected, &batches).map_err(|e| ExplainError::Table {
        table: location.to_string(),
        reason: e.to_string(),
    })?;
    let live: u64 = files.iter().map(|f| f.live_rows).sum();
    let bytes: u64 = files.iter().map(|f| f.size).sum();
    Ok(SampledRows {
        batch,
        file_of_row,
        files,
        rate,
        bytes_per_row: if live == 0 {
            0.0
        } else {
            bytes as f64 / live as f64
        },
    })
}

/// The rows of `rows` at `indices`, as one batch.
pub fn take_rows(batch: &RecordBatch, indices: &[u32]) -> Result<RecordBatch, ExplainError> {
    let indices = UInt32Array::from(indices.to_vec());
    arrow::compute::take_record_batch(batch, &indices)
        .map_err(|e| ExplainError::Usage(e.to_string()))
}

/// A live file's partition values under the columns' logical names (the log keys them by
/// physical name under column mapping).
fn logical_partition_values(
    snapshot: &Snapshot,
    file: &oracle::log::replay::LiveFile,
) -> FilePartition {
    snapshot
        .partition_columns()
        .iter()
        .map(|c| {
            let physical = snapshot
                .fields
                .iter()
                .find(|f| &f.name == c)
                .and_then(|f| f.physical_name.clone())
                .unwrap_or_else(|| c.clone());
            let value = file
                .partition_values
                .get(&physical)
                .or_else(|| file.partition_values.get(c))
                .cloned()
                .flatten();
            (c.clone(), value)
        })
        .collect()
}
