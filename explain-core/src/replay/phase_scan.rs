//! Phase scans: asking the kernel about the cached rows, as cheaply as the kernel's own
//! per-row decisions allow (see the module page of [`replay`](super)).

use std::sync::Arc;

use delta_kernel::arrow::array::{Array, AsArray, BooleanArray, RecordBatch, StringArray};
use delta_kernel::arrow::compute::filter_record_batch;
use delta_kernel::engine::arrow_data::ArrowEngineData;
use delta_kernel::scan::StatsOptions;
use delta_kernel::{Engine, EngineData, PredicateRef, SnapshotRef};

use super::{PerPartition, ReplayedTable, is_selected, kernel_message, one_line};
use explain_compiler::error::ExplainError;

impl ReplayedTable {
    /// Runs one kernel scan with `predicate` over the cached rows and returns, per live file,
    /// whether it survives. `None` keeps every file.
    pub fn survivors(&self, predicate: Option<PredicateRef>) -> Result<Vec<bool>, ExplainError> {
        self.survivors_among(predicate, None)
    }

    /// [`survivors`](Self::survivors), asking the kernel only about the files `among` marks
    /// (all when `None`); the others come back as not kept.
    ///
    /// Asking about a subset answers exactly as a scan of every row would for the rows it
    /// holds: the cached rows are reconciled adds with distinct paths, so deduplication drops
    /// none of them, and partition pruning and data skipping decide each row from that row's
    /// own partition values and statistics. The explanation intersects the full scan with the
    /// partition phase anyway, so it asks the full scan only about the partition survivors.
    ///
    /// Large scans are split across the cores, each shard a kernel scan of its own over its
    /// rows, a cached batch cut where a shard is full (same reasoning: no row's answer depends
    /// on another row). A streamed window is one when its visitor leaves cores idle.
    pub fn survivors_among(
        &self,
        predicate: Option<PredicateRef>,
        among: Option<&[bool]>,
    ) -> Result<Vec<bool>, ExplainError> {
        let Some(predicate) = predicate else {
            return Ok(among.map_or_else(|| vec![true; self.files.len()], <[bool]>::to_vec));
        };
        if self.on_partition_columns_only(&predicate) {
            return self.survivors_per_partition(predicate, among);
        }
        self.scan_survivors(predicate, among)
    }

    /// Whether every column `predicate` reads is a partition column.
    fn on_partition_columns_only(&self, predicate: &PredicateRef) -> bool {
        let references = predicate.references();
        !references.is_empty()
            && references.iter().all(|column| {
                let column =
                    explain_compiler::ast::ColumnRef::new(column.path().iter().map(String::as_str));
                self.columns
                    .resolve(&column)
                    .is_ok_and(|info| info.is_partition)
            })
    }

    /// The survivors of a predicate over partition columns alone, asking the kernel about one
    /// file per distinct partition.
    ///
    /// The kernel rewrites a partition column's comparisons and null tests to the file's own
    /// partition value (`partitionValues_parsed.<column>` serves as both its min and its max;
    /// no statistic is read for it), so with no other column referenced a file's answer is a
    /// function of its partition values. Files with the same values share a partition id in
    /// the replay (`LiveFile::partition`), and each gets its representative's answer: a table of a
    /// million files in a hundred partitions costs a hundred-row scan.
    fn survivors_per_partition(
        &self,
        predicate: PredicateRef,
        among: Option<&[bool]>,
    ) -> Result<Vec<bool>, ExplainError> {
        let asked = |i: usize| among.is_none_or(|a| a[i]);
        // Over the ids these files use, not the table's: see `PerPartition`.
        let mut representative_of = PerPartition::over(&self.files);
        let mut representatives = vec![false; self.files.len()];
        for (i, file) in self.files.iter().enumerate().filter(|(i, _)| asked(*i)) {
            representative_of.get_or_insert_with(file.partition, || {
                representatives[i] = true;
                i
            });
        }
        let answers = self.scan_survivors(predicate, Some(&representatives))?;
        Ok((0..self.files.len())
            .map(|i| {
                asked(i)
                    && representative_of
                        .get(self.files[i].partition)
                        .is_some_and(|r| answers[r])
            })
            .collect())
    }

    /// One kernel scan with `predicate` over the cached rows `among` marks, sharded.
    fn scan_survivors(
        &self,
        predicate: PredicateRef,
        among: Option<&[bool]>,
    ) -> Result<Vec<bool>, ExplainError> {
        let pieces = self.pieces(among)?;
        let rows: usize = pieces.iter().map(|p| p.rows.num_rows()).sum();
        let shards = split_evenly(pieces, self.shard_count(rows));
        let mut kept = vec![false; self.files.len()];
        // One worker per shard: the shards are as many as the cores the scan may use.
        let workers = shards.len();
        let answers = workers::map(shards, workers, crate::DEEP_STACK, |shard| {
            self.scan_pieces(&predicate, shard)
        });
        for answer in answers {
            for index in answer? {
                kept[index] = true;
            }
        }
        Ok(kept)
    }

    /// The cached rows a scan asks about, as pieces that know which live file each row is:
    /// a whole cached batch where `among` takes all of it, its marked rows (copied) where it
    /// takes some, nothing where it takes none.
    fn pieces(&self, among: Option<&[bool]>) -> Result<Vec<Piece>, ExplainError> {
        let mut pieces = Vec::with_capacity(self.cached_rows.len());
        for (batch, &start) in self.cached_rows.iter().zip(&self.batch_starts) {
            let end = start + batch.num_rows();
            let mask = among.map(|a| &a[start..end]);
            let marked = mask.map_or(batch.num_rows(), |m| m.iter().filter(|m| **m).count());
            if marked == batch.num_rows() {
                pieces.push(Piece {
                    rows: batch.clone(),
                    files: FileIndices::From(start),
                });
            } else if let Some(mask) = mask.filter(|_| marked > 0) {
                let rows = filter_record_batch(batch, &BooleanArray::from(mask.to_vec())).map_err(
                    |e| ExplainError::Table {
                        table: self.location.clone(),
                        reason: one_line(&format!("cannot select the rows of a phase scan: {e}")),
                    },
                )?;
                let files = (start..end).filter(|i| mask[i - start]).collect();
                pieces.push(Piece {
                    rows,
                    files: FileIndices::Listed(files),
                });
            }
        }
        Ok(pieces)
    }

    /// One kernel scan with `predicate` over `pieces`; the indices of the files it keeps.
    fn scan_pieces(
        &self,
        predicate: &PredicateRef,
        pieces: Vec<Piece>,
    ) -> Result<Vec<usize>, ExplainError> {
        if pieces.is_empty() {
            return Ok(Vec::new());
        }
        let answers = scan_stream(
            &self.snapshot,
            self.engine.as_ref(),
            predicate,
            pieces.into_iter(),
        )
        .map_err(|e| self.scan_failure(predicate, &kernel_message(&e)))?;
        answers
            .into_iter()
            .map(|answer| match answer {
                Answer::File(i) => Ok(i),
                Answer::Unmatched(path) => {
                    self.index_of()
                        .get(&path)
                        .copied()
                        .ok_or_else(|| ExplainError::Table {
                            table: self.location.clone(),
                            reason: format!(
                                "a phase scan returned `{path}`, which the replay did not list"
                            ),
                        })
                }
            })
            .collect()
    }

    /// How many shards a scan over `rows` cached rows is split into: none smaller than
    /// `rows_per_shard`, and one per core, but two on a single core too, so the shards are the
    /// same code on every machine the tests run on.
    fn shard_count(&self, rows: usize) -> usize {
        let cores = crate::cores();
        (rows / self.rows_per_shard).clamp(1, cores.max(2))
    }

    fn scan_failure(&self, predicate: &PredicateRef, reason: &str) -> ExplainError {
        ExplainError::Table {
            table: self.location.clone(),
            reason: one_line(&format!("kernel scan with `{predicate}` failed: {reason}")),
        }
    }
}

/// One kept row of a phase scan: the live file it is, or, where the answer did not line up
/// with the rows asked about, its path.
pub(super) enum Answer {
    File(usize),
    Unmatched(String),
}

/// One kernel scan with `predicate` over cached rows, taken from `pieces` as the kernel asks
/// for them.
pub(super) fn scan_stream(
    snapshot: &SnapshotRef,
    engine: &dyn Engine,
    predicate: &PredicateRef,
    pieces: impl Iterator<Item = Piece> + Send + 'static,
) -> Result<Vec<Answer>, delta_kernel::KernelError> {
    // No row transforms: the explanation reads no data, so building each kept file's
    // partition-value transform would be work thrown away.
    let scan = snapshot
        .clone()
        .scan_builder()
        .with_predicate(predicate.clone())
        .with_stats(StatsOptions::json_only())
        .without_row_transforms()
        .build()?;
    // The pieces handed to the kernel so far, for matching its answers to them.
    let asked: Arc<std::sync::Mutex<Vec<Piece>>> = Arc::default();
    let handed = asked.clone();
    let rows = pieces.map(move |piece| {
        let rows = Box::new(ArrowEngineData::new(piece.rows.clone())) as Box<dyn EngineData>;
        handed.lock().unwrap_or_else(|p| p.into_inner()).push(piece);
        rows
    });
    let outputs =
        scan.scan_metadata_from(engine, snapshot.version(), rows, Some(predicate.clone()))?;
    // The kernel re-plays the given batches in order and answers each with a selection
    // vector over the same rows, leaving out batches where it keeps nothing. So an answer
    // is the next piece of its length whose rows are the same files, and row j of it is
    // row j of that piece. That is checked, not assumed: every kept row's path must be the
    // path at its position in the piece; anything else is reported by path.
    let mut answers = Vec::new();
    let mut next_piece = 0usize;
    for meta in outputs {
        let (data, selection) = meta?.scan_files.into_parts();
        let batch = ArrowEngineData::try_from_engine_data(data)?;
        let batch = batch.record_batch();
        let paths = batch
            .column_by_name("path")
            .and_then(|c| c.as_string_opt::<i32>())
            .ok_or_else(|| {
                delta_kernel::KernelError::Generic("kernel scan rows have no path column".into())
            })?;
        let is_kept = |row: usize| is_selected(&selection, row) && !paths.is_null(row);
        let Some(first) = (0..batch.num_rows()).find(|&row| is_kept(row)) else {
            continue;
        };
        let asked = asked.lock().unwrap_or_else(|p| p.into_inner());
        // The path column of the piece that answers, read once per batch, not once per row.
        let same_path = |piece_paths: &StringArray, row: usize| {
            row < piece_paths.len()
                && piece_paths.is_valid(row)
                && piece_paths.value(row) == paths.value(row)
        };
        let piece = asked[next_piece.min(asked.len())..]
            .iter()
            .position(|p| {
                p.rows.num_rows() == batch.num_rows()
                    && p.paths().is_some_and(|pp| same_path(pp, first))
            })
            .map(|offset| next_piece + offset);
        if let Some(p) = piece {
            next_piece = p + 1;
        }
        let piece = piece.map(|p| &asked[p]).and_then(|p| Some((p, p.paths()?)));
        for row in (first..batch.num_rows()).filter(|&row| is_kept(row)) {
            answers.push(
                match piece.filter(|(_, piece_paths)| same_path(piece_paths, row)) {
                    Some((p, _)) => Answer::File(p.file(row)),
                    None => Answer::Unmatched(paths.value(row).to_string()),
                },
            );
        }
    }
    Ok(answers)
}

/// Cached rows handed to one phase scan.
pub(super) struct Piece {
    pub(super) rows: RecordBatch,
    pub(super) files: FileIndices,
}

/// Which live file each row of a [`Piece`] is.
pub(super) enum FileIndices {
    /// A whole cached batch: row `j` is file `start + j`.
    From(usize),
    /// Selected rows of a batch: row `j` is the `j`-th listed file.
    Listed(Vec<usize>),
}

impl Piece {
    /// The first `rows` rows and the rest, as slices of the same rows.
    fn split_at(self, rows: usize) -> (Piece, Piece) {
        let rest = self.rows.num_rows() - rows;
        let (head_files, tail_files) = match self.files {
            FileIndices::From(start) => (FileIndices::From(start), FileIndices::From(start + rows)),
            FileIndices::Listed(mut files) => {
                let tail = files.split_off(rows);
                (FileIndices::Listed(files), FileIndices::Listed(tail))
            }
        };
        (
            Piece {
                rows: self.rows.slice(0, rows),
                files: head_files,
            },
            Piece {
                rows: self.rows.slice(rows, rest),
                files: tail_files,
            },
        )
    }

    /// The paths of the rows, as the replay cached them.
    fn paths(&self) -> Option<&StringArray> {
        self.rows.column_by_name("path")?.as_string_opt::<i32>()
    }

    fn file(&self, row: usize) -> usize {
        match &self.files {
            FileIndices::From(start) => start + row,
            FileIndices::Listed(files) => files[row],
        }
    }
}

/// The fewest rows a phase-scan shard gets by default: below that, a shard's own scan set-up
/// and thread would cost more than the rows it saves.
pub const ROWS_PER_SHARD: usize = 50_000;

/// Splits `pieces` in order into at most `shards` runs of about equal row count, cutting a
/// piece where a run is full: a window is often one scan batch, and its rows are shared out
/// all the same. A cut piece is two slices of its rows (no copy), each knowing its files.
pub(super) fn split_evenly(pieces: Vec<Piece>, shards: usize) -> Vec<Vec<Piece>> {
    let shards = shards.max(1);
    let total: usize = pieces.iter().map(|p| p.rows.num_rows()).sum();
    let per_shard = total.div_ceil(shards).max(1);
    let mut out: Vec<Vec<Piece>> = vec![Vec::new()];
    let mut room = per_shard;
    for mut piece in pieces {
        while out.len() < shards && piece.rows.num_rows() > room {
            if room > 0 {
                let (head, tail) = piece.split_at(room);
                out.last_mut().expect("one shard at least").push(head);
                piece = tail;
            }
            out.push(Vec::new());
            room = per_shard;
        }
        room = room.saturating_sub(piece.rows.num_rows());
        out.last_mut().expect("one shard at least").push(piece);
    }
    out.retain(|shard| !shard.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use delta_kernel::arrow::array::{ArrayRef, Int64Array};

    /// A piece of `rows` rows (values `first..first + rows`), as files `first..` or listed.
    fn piece(first: usize, rows: usize, listed: bool) -> Piece {
        let values: ArrayRef = Arc::new(Int64Array::from_iter_values(
            (first..first + rows).map(|v| v as i64),
        ));
        Piece {
            rows: RecordBatch::try_from_iter([("v", values)]).unwrap(),
            files: if listed {
                FileIndices::Listed((first..first + rows).collect())
            } else {
                FileIndices::From(first)
            },
        }
    }

    /// Per shard, per piece: each row's value and the file it is said to be.
    fn layout(shards: &[Vec<Piece>]) -> Vec<Vec<Vec<(i64, usize)>>> {
        shards
            .iter()
            .map(|shard| {
                shard
                    .iter()
                    .map(|p| {
                        let values = p
                            .rows
                            .column(0)
                            .as_primitive::<delta_kernel::arrow::datatypes::Int64Type>();
                        (0..p.rows.num_rows())
                            .map(|row| (values.value(row), p.file(row)))
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn pieces_are_shared_out_evenly_and_cut_where_a_shard_is_full() {
        for listed in [false, true] {
            // One batch of ten rows in two shards: cut in the middle, each row still its file.
            let split = split_evenly(vec![piece(0, 10, listed)], 2);
            let rows = layout(&split);
            assert_eq!(rows.len(), 2, "listed {listed}");
            assert_eq!(
                rows[0],
                vec![(0..5).map(|v| (v as i64, v)).collect::<Vec<_>>()]
            );
            assert_eq!(
                rows[1],
                vec![(5..10).map(|v| (v as i64, v)).collect::<Vec<_>>()]
            );

            // Pieces of 3, 3 and 4 rows in three shards of at most four rows.
            let split = split_evenly(
                vec![
                    piece(0, 3, listed),
                    piece(3, 3, listed),
                    piece(6, 4, listed),
                ],
                3,
            );
            let sizes: Vec<Vec<usize>> = split
                .iter()
                .map(|s| s.iter().map(|p| p.rows.num_rows()).collect())
                .collect();
            assert_eq!(sizes, vec![vec![3, 1], vec![2, 2], vec![2]]);
            let order: Vec<(i64, usize)> = layout(&split).into_iter().flatten().flatten().collect();
            assert_eq!(order, (0..10).map(|v| (v as i64, v)).collect::<Vec<_>>());
        }
        // More shards than rows: a row a shard, none empty.
        let split = split_evenly(vec![piece(7, 3, false)], 8);
        assert_eq!(layout(&split).len(), 3);
        assert_eq!(layout(&split)[2], vec![vec![(9, 9)]]);
        // One shard: the pieces as they came.
        let split = split_evenly(vec![piece(0, 2, false), piece(2, 2, true)], 1);
        assert_eq!(split.len(), 1);
        assert_eq!(split[0].len(), 2);
        assert!(split_evenly(Vec::new(), 2).is_empty());
    }
}
