//! One snapshot, one log replay, many scans.
//!
//! [`ReplayedTable::open`] resolves the snapshot and replays its log once with a
//! predicate-less kernel scan, keeping the reconciled add rows (path, size, stats,
//! partition values, deletion vector) in memory. Every phase scan then re-runs the kernel's
//! partition pruning and data skipping over those cached rows through
//! `Scan::scan_metadata_from` at the same version: no second replay, no second source of
//! truth that could disagree with the first.
//!
//! What makes that cheap, each resting on the kernel deciding a file from its own row (the
//! cached rows are reconciled adds with distinct paths, so deduplication drops none):
//! - no row transforms, in the replay or the phases: the explanation reads no data;
//! - the selected rows of a scan batch are kept as zero-copy slices, and listed on a thread
//!   of their own while the kernel replays the next batches;
//! - files of one partition share their values (`LiveFile::partition`);
//! - a predicate over partition columns alone is asked of one file per partition;
//! - a scan can be asked about a subset of the files (the full scan, about the partition
//!   survivors), and large scans are split across the cores;
//! - one phase scan can run alongside the replay itself ([`ReplayedTable::open_prefetching`]).
//!
//! `harness/tests/it/phase_scans.rs` holds every one of these to a fresh kernel scan.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use delta_kernel::arrow::array::{Array, AsArray, BooleanArray, MapArray, RecordBatch, StructArray};
use delta_kernel::arrow::compute::filter_record_batch;
use std::sync::mpsc::SyncSender;
use delta_kernel::arrow::datatypes::Int64Type;
use delta_kernel::engine::arrow_data::ArrowEngineData;
use delta_kernel::scan::StatsOptions;
use delta_kernel::schema::DataType;
use delta_kernel::{Engine, EngineData, PredicateRef, Snapshot, SnapshotRef};
use delta_kernel_default_engine::storage::store_from_url;
use delta_kernel_default_engine::DefaultEngineBuilder;
use url::Url;

use crate::error::ExplainError;
use crate::log_check::locate_broken_file;
use crate::partition_eval::RawPartitionValues;
use crate::schema::TableColumns;

/// One live file of the snapshot, as the log describes it.
#[derive(Clone, Debug)]
pub struct LiveFile {
    /// Path relative to the table root, as in the log.
    pub path: String,
    pub size_bytes: i64,
    /// Whether the add action carries statistics; the JSON itself stays in the cached rows
    /// ([`ReplayedTable::stats_json`]), not copied once more per file.
    pub has_stats: bool,
    /// Shared by every file of the same partition: a table has few distinct partitions and
    /// many files, so the values are built, typed and evaluated once per partition.
    pub partition_values: Arc<RawPartitionValues>,
    /// The file's partition: files with the same id share `partition_values`. Ids count
    /// from 0 in order of first appearance, one per distinct set of values.
    pub partition: usize,
    pub has_deletion_vector: bool,
}

/// A replayed snapshot: the live files and the cached scan rows behind them.
pub struct ReplayedTable {
    location: String,
    engine: Arc<dyn Engine>,
    snapshot: SnapshotRef,
    columns: TableColumns,
    files: Vec<LiveFile>,
    /// Path -> file index, built only if a phase scan ever answers out of position.
    index_of: std::sync::OnceLock<HashMap<String, usize>>,
    /// The base scan's rows with the selection vector applied: the replayed add metadata.
    cached_rows: Vec<RecordBatch>,
    /// The index of the first file of each cached batch (files are the cached rows in order).
    batch_starts: Vec<usize>,
    /// Physical paths of the data columns whose min/max the kernel reads for data skipping,
    /// as the table's current statistics configuration selects them.
    min_max_columns: BTreeSet<Vec<String>>,
    /// Read on first use, once per snapshot (clustering needs a metadata replay of its own).
    features: std::sync::OnceLock<crate::features::TableFeatures>,
    /// The distinct partition values, collected on first use.
    present_values: std::sync::OnceLock<crate::accepted::PresentValues>,
    /// The fewest rows a phase-scan shard gets (see [`ReplayedTable::with_rows_per_shard`]).
    rows_per_shard: usize,
    /// The distinct partitions, indexed by `LiveFile::partition`.
    partitions: Vec<Arc<RawPartitionValues>>,
    /// A phase scan run during the replay: its predicate and, per live file, its answer.
    prefetched: Option<(PredicateRef, Vec<bool>)>,
}

impl ReplayedTable {
    /// Opens `location` (a directory path or a URL) at `version` (latest when `None`) and
    /// replays its log once.
    pub fn open(location: &str, version: Option<u64>) -> Result<Self, ExplainError> {
        Self::open_observed(location, version, &mut |_| {})
    }

    /// [`open`](Self::open), telling `observer` how many live files the replay has
    /// reconciled so far after each batch of scan rows: the command line draws its progress
    /// bar from this, the library itself never writes to the terminal.
    pub fn open_observed(
        location: &str,
        version: Option<u64>,
        observer: &mut dyn FnMut(usize),
    ) -> Result<Self, ExplainError> {
        Self::open_prefetching(location, version, observer, &|_| None)
    }

    /// [`open_observed`](Self::open_observed), running one phase scan while the log is being
    /// replayed: `prefetch` gets the table's columns once the snapshot is known and names the
    /// kernel predicate to scan (or none). The scan reads each batch of cached rows as the
    /// replay keeps it, on a thread of its own, and [`survivors`](Self::survivors) answers
    /// that predicate from its result. A prefetch that fails or does not line up with the rows
    /// is dropped without a word: the phase is then scanned as usual, and reports any error.
    pub fn open_prefetching(
        location: &str,
        version: Option<u64>,
        observer: &mut dyn FnMut(usize),
        prefetch: &dyn Fn(&TableColumns) -> Option<PredicateRef>,
    ) -> Result<Self, ExplainError> {
        let table_err = |reason: String| ExplainError::Table {
            table: location.to_string(),
            reason: one_line(&reason),
        };
        let (url, engine) = open_engine(location)?;
        let (snapshot, replayed) = replay_log(engine.as_ref(), &url, version, observer, prefetch).map_err(|e| match e {
            ReplayFailure::Kernel(e) => {
                let reason = kernel_message(&e);
                match locate_broken_file(engine.as_ref(), &url, version) {
                    Some(file) => table_err(format!("{file}; the kernel said: {reason}")),
                    None => table_err(reason),
                }
            }
            ReplayFailure::Rows(reason) => table_err(reason),
        })?;
        let Replayed { cached_rows, batch_starts, files, partitions, prefetched } = replayed;
        let partitions = partitions.values;
        let prefetched = prefetched.map(|(predicate, kept)| {
            let mut survives = vec![false; files.len()];
            for i in kept {
                survives[i] = true;
            }
            (predicate, survives)
        });
        let columns = TableColumns::of_snapshot(&snapshot);
        let index_of = std::sync::OnceLock::new();
        let min_max_columns = min_max_columns(&snapshot).map_err(|e| table_err(kernel_message(&e)))?;
        Ok(Self { location: location.to_string(), engine, snapshot, columns, files, index_of, cached_rows, batch_starts, min_max_columns, features: Default::default(), present_values: Default::default(), rows_per_shard: ROWS_PER_SHARD, partitions, prefetched })
    }

    /// Sets the fewest cached rows a phase-scan shard gets (default [`ROWS_PER_SHARD`]); a scan
    /// over fewer than twice as many rows runs on the calling thread. The tests set it low to
    /// shard small tables.
    pub fn with_rows_per_shard(mut self, rows: usize) -> Self {
        self.rows_per_shard = rows.max(1);
        self
    }

    /// Whether some phase scan's answer had to be matched to a file by path because it did
    /// not line up with the rows asked about. Never, as the kernel behaves today; the tests
    /// check that, so a change in the kernel's batching shows up there, not as a slowdown.
    pub fn looked_up_by_path(&self) -> bool {
        self.index_of.get().is_some()
    }

    /// The predicate of the phase scan run during the replay, if one was asked for and its
    /// result kept.
    pub fn prefetched(&self) -> Option<&PredicateRef> {
        self.prefetched.as_ref().map(|(predicate, _)| predicate)
    }

    pub fn location(&self) -> &str {
        &self.location
    }

    pub fn version(&self) -> u64 {
        self.snapshot.version()
    }

    pub fn columns(&self) -> &TableColumns {
        &self.columns
    }

    pub fn files(&self) -> &[LiveFile] {
        &self.files
    }

    /// The distinct partition values of the live files, indexed by `LiveFile::partition`.
    pub fn partitions(&self) -> &[Arc<RawPartitionValues>] {
        &self.partitions
    }

    /// The raw `stats` JSON of file `file`'s add action (synthesized from `stats_parsed` where
    /// a checkpoint carries only that), `None` when the writer recorded none.
    pub fn stats_json(&self, file: usize) -> Option<&str> {
        let batch = self.batch_starts.partition_point(|&start| start <= file).checked_sub(1)?;
        let row = file - self.batch_starts[batch];
        let stats = self.cached_rows[batch].column_by_name("stats")?.as_string_opt::<i32>()?;
        (row < stats.len() && stats.is_valid(row)).then(|| stats.value(row))
    }

    /// Whether data skipping reads min/max for the data column at `stats_path` (physical).
    /// A column outside the table's statistics columns (`delta.dataSkippingNumIndexedCols`,
    /// `delta.dataSkippingStatsColumns`) prunes nothing, whatever bounds its files record.
    pub fn has_min_max_column(&self, stats_path: &[String]) -> bool {
        self.min_max_columns.contains(stats_path)
    }

    fn index_of(&self) -> &HashMap<String, usize> {
        self.index_of.get_or_init(|| self.files.iter().enumerate().map(|(i, f)| (f.path.clone(), i)).collect())
    }

    /// The snapshot's table features, read once however many reports are built.
    pub fn features(&self) -> &crate::features::TableFeatures {
        self.features.get_or_init(|| crate::features::TableFeatures::read(self))
    }

    /// Per partition key, the distinct values present in the snapshot, collected once however
    /// many predicates are explained.
    pub fn present_values(&self) -> &crate::accepted::PresentValues {
        self.present_values.get_or_init(|| crate::accepted::present_values(&self.files, &self.columns))
    }

    pub fn engine(&self) -> &dyn Engine {
        self.engine.as_ref()
    }

    pub fn snapshot(&self) -> &SnapshotRef {
        &self.snapshot
    }

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
    /// Large scans are split by cached batch across the cores, each shard a kernel scan of its
    /// own over its rows (same reasoning: no row's answer depends on another row).
    pub fn survivors_among(&self, predicate: Option<PredicateRef>, among: Option<&[bool]>) -> Result<Vec<bool>, ExplainError> {
        let Some(predicate) = predicate else {
            return Ok(among.map_or_else(|| vec![true; self.files.len()], <[bool]>::to_vec));
        };
        if let Some((prefetched, kept)) = &self.prefetched
            && *prefetched == predicate
        {
            return Ok(kept.iter().enumerate().map(|(i, k)| *k && among.is_none_or(|a| a[i])).collect());
        }
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
                let column = crate::ast::ColumnRef::new(column.path().iter().map(String::as_str));
                self.columns.resolve(&column).is_ok_and(|info| info.is_partition)
            })
    }

    /// The survivors of a predicate over partition columns alone, asking the kernel about one
    /// file per distinct partition.
    ///
    /// The kernel rewrites a partition column's comparisons and null tests to the file's own
    /// partition value (`partitionValues_parsed.<column>` serves as both its min and its max;
    /// no statistic is read for it), so with no other column referenced a file's answer is a
    /// function of its partition values. Files with the same values share them in the replay
    /// (`LiveFile::partition_values`), and each gets its representative's answer: a table of a
    /// million files in a hundred partitions costs a hundred-row scan.
    fn survivors_per_partition(&self, predicate: PredicateRef, among: Option<&[bool]>) -> Result<Vec<bool>, ExplainError> {
        let asked = |i: usize| among.is_none_or(|a| a[i]);
        let mut representative_of: Vec<Option<usize>> = Vec::new();
        let mut representatives = vec![false; self.files.len()];
        for (i, file) in self.files.iter().enumerate().filter(|(i, _)| asked(*i)) {
            if representative_of.len() <= file.partition {
                representative_of.resize(file.partition + 1, None);
            }
            if representative_of[file.partition].is_none() {
                representative_of[file.partition] = Some(i);
                representatives[i] = true;
            }
        }
        let answers = self.scan_survivors(predicate, Some(&representatives))?;
        Ok((0..self.files.len())
            .map(|i| asked(i) && representative_of[self.files[i].partition].is_some_and(|r| answers[r]))
            .collect())
    }

    /// One kernel scan with `predicate` over the cached rows `among` marks, sharded.
    fn scan_survivors(&self, predicate: PredicateRef, among: Option<&[bool]>) -> Result<Vec<bool>, ExplainError> {
        let pieces = self.pieces(among)?;
        let rows: usize = pieces.iter().map(|p| p.rows.num_rows()).sum();
        let shards = split_evenly(pieces, self.shard_count(rows));
        let mut kept = vec![false; self.files.len()];
        let answers: Vec<Result<Vec<usize>, ExplainError>> = if shards.len() <= 1 {
            shards.into_iter().map(|shard| self.scan_pieces(&predicate, shard)).collect()
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = shards
                    .into_iter()
                    .map(|shard| {
                        let predicate = &predicate;
                        std::thread::Builder::new()
                            .stack_size(crate::DEEP_STACK)
                            .spawn_scoped(scope, move || self.scan_pieces(predicate, shard))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|handle| match handle {
                        Ok(handle) => handle.join().unwrap_or_else(|_| Err(self.scan_failure(&predicate, "a phase-scan shard panicked"))),
                        Err(e) => Err(self.scan_failure(&predicate, &format!("cannot start a phase-scan shard: {e}"))),
                    })
                    .collect()
            })
        };
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
            let Some(mask) = among.map(|a| &a[start..end]) else {
                pieces.push(Piece { rows: batch.clone(), files: FileIndices::From(start) });
                continue;
            };
            let marked = mask.iter().filter(|m| **m).count();
            if marked == batch.num_rows() {
                pieces.push(Piece { rows: batch.clone(), files: FileIndices::From(start) });
            } else if marked > 0 {
                let rows = filter_record_batch(batch, &BooleanArray::from(mask.to_vec())).map_err(|e| ExplainError::Table {
                    table: self.location.clone(),
                    reason: one_line(&format!("cannot select the rows of a phase scan: {e}")),
                })?;
                let files = (start..end).filter(|i| mask[i - start]).collect();
                pieces.push(Piece { rows, files: FileIndices::Listed(files) });
            }
        }
        Ok(pieces)
    }

    /// One kernel scan with `predicate` over `pieces`; the indices of the files it keeps.
    fn scan_pieces(&self, predicate: &PredicateRef, pieces: Vec<Piece>) -> Result<Vec<usize>, ExplainError> {
        if pieces.is_empty() {
            return Ok(Vec::new());
        }
        let answers = scan_stream(&self.snapshot, self.engine.as_ref(), predicate, pieces.into_iter())
            .map_err(|e| self.scan_failure(predicate, &kernel_message(&e)))?;
        answers
            .into_iter()
            .map(|answer| match answer {
                Answer::File(i) => Ok(i),
                Answer::Unmatched(path) => self.index_of().get(&path).copied().ok_or_else(|| ExplainError::Table {
                    table: self.location.clone(),
                    reason: format!("a phase scan returned `{path}`, which the replay did not list"),
                }),
            })
            .collect()
    }

    /// How many shards a scan over `rows` cached rows is split into: one per core at most, and
    /// none smaller than `rows_per_shard`.
    fn shard_count(&self, rows: usize) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
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
enum Answer {
    File(usize),
    Unmatched(String),
}

/// One kernel scan with `predicate` over cached rows, taken from `pieces` as the kernel asks
/// for them (the replay's prefetch hands them over while the log is still being read).
fn scan_stream(
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
    let outputs = scan.scan_metadata_from(engine, snapshot.version(), rows, Some(predicate.clone()))?;
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
            .ok_or_else(|| delta_kernel::KernelError::Generic("kernel scan rows have no path column".into()))?;
        // Rows past a short selection vector are selected (FilteredEngineData).
        let is_kept = |row: usize| selection.get(row).copied().unwrap_or(true) && !paths.is_null(row);
        let Some(first) = (0..batch.num_rows()).find(|&row| is_kept(row)) else { continue };
        let asked = asked.lock().unwrap_or_else(|p| p.into_inner());
        let same_path = |p: &Piece, row: usize| p.path(row).is_some_and(|path| path == paths.value(row));
        let piece = asked[next_piece.min(asked.len())..]
            .iter()
            .position(|p| p.rows.num_rows() == batch.num_rows() && same_path(p, first))
            .map(|offset| next_piece + offset);
        if let Some(p) = piece {
            next_piece = p + 1;
        }
        let piece = piece.map(|p| &asked[p]);
        for row in (first..batch.num_rows()).filter(|&row| is_kept(row)) {
            answers.push(match piece.filter(|p| same_path(p, row)) {
                Some(p) => Answer::File(p.file(row)),
                None => Answer::Unmatched(paths.value(row).to_string()),
            });
        }
    }
    Ok(answers)
}

/// Cached rows handed to one phase scan.
struct Piece {
    rows: RecordBatch,
    files: FileIndices,
}

/// Which live file each row of a [`Piece`] is.
enum FileIndices {
    /// A whole cached batch: row `j` is file `start + j`.
    From(usize),
    /// Selected rows of a batch: row `j` is the `j`-th listed file.
    Listed(Vec<usize>),
}

impl Piece {
    /// The path of row `row`, as the replay cached it.
    fn path(&self, row: usize) -> Option<&str> {
        let paths = self.rows.column_by_name("path")?.as_string_opt::<i32>()?;
        (row < paths.len() && paths.is_valid(row)).then(|| paths.value(row))
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

/// Splits `pieces` in order into at most `shards` runs of about equal row count.
fn split_evenly(pieces: Vec<Piece>, shards: usize) -> Vec<Vec<Piece>> {
    let total: usize = pieces.iter().map(|p| p.rows.num_rows()).sum();
    let per_shard = total.div_ceil(shards.max(1)).max(1);
    let mut out: Vec<Vec<Piece>> = vec![Vec::new()];
    let mut in_current = 0usize;
    for piece in pieces {
        if in_current >= per_shard && out.len() < shards {
            out.push(Vec::new());
            in_current = 0;
        }
        in_current += piece.rows.num_rows();
        out.last_mut().expect("one shard at least").push(piece);
    }
    out.retain(|shard| !shard.is_empty());
    out
}

/// The table's URL and a default engine over its object store: what every replay starts from,
/// the benchmarks' plain kernel scans included.
pub fn open_engine(location: &str) -> Result<(Url, Arc<dyn Engine>), ExplainError> {
    let table_err = |reason: String| ExplainError::Table { table: location.to_string(), reason: one_line(&reason) };
    let url = table_url(location).map_err(table_err)?;
    let store = store_from_url(&url).map_err(|e| table_err(kernel_message(&e)))?;
    Ok((url, Arc::new(DefaultEngineBuilder::new(store).build())))
}

/// A directory path becomes a `file://` URL; anything with a scheme is taken as a URL.
fn table_url(location: &str) -> Result<Url, String> {
    if let Ok(url) = Url::parse(location)
        && url.scheme().len() > 1
    {
        let mut url = url;
        if !url.path().ends_with('/') {
            url.set_path(&format!("{}/", url.path()));
        }
        return Ok(url);
    }
    let path = std::path::Path::new(location);
    let canonical = path
        .canonicalize()
        .map_err(|e| format!("{e}"))?;
    if !canonical.is_dir() {
        return Err("not a directory".into());
    }
    if !canonical.join("_delta_log").is_dir() {
        return Err("not a Delta table (no _delta_log directory)".into());
    }
    Url::from_directory_path(&canonical).map_err(|_| "cannot form a file URL".into())
}

/// What the base scan leaves: its selected rows and the live files they are.
#[derive(Default)]
struct Replayed {
    cached_rows: Vec<RecordBatch>,
    /// The index of the first file of each cached batch.
    batch_starts: Vec<usize>,
    files: Vec<LiveFile>,
    partitions: Partitions,
    /// The prefetched phase scan: its predicate and the files it keeps.
    prefetched: Option<(PredicateRef, Vec<usize>)>,
}

impl Replayed {
    /// Keeps the rows of one scan batch that its selection vector selects, and lists their
    /// files.
    fn take(&mut self, batch: &RecordBatch, selection: &[bool], prefetch: Option<&SyncSender<Piece>>) -> Result<(), ReplayFailure> {
        for selected in selected_rows(batch, selection).map_err(ReplayFailure::Kernel)? {
            let start = self.files.len();
            self.batch_starts.push(start);
            self.files.extend(live_files(&selected, &mut self.partitions).map_err(ReplayFailure::Rows)?);
            if let Some(prefetch) = prefetch {
                // A prefetch that stopped early is simply not used.
                let _ = prefetch.send(Piece { rows: selected.clone(), files: FileIndices::From(start) });
            }
            self.cached_rows.push(selected);
        }
        Ok(())
    }
}

enum ReplayFailure {
    /// The kernel could not replay the log.
    Kernel(delta_kernel::KernelError),
    /// The kernel's scan rows are not what this reader expects.
    Rows(String),
}

/// Scan batches queued between the kernel's replay and the thread keeping their rows.
const BATCHES_IN_FLIGHT: usize = 16;

/// Builds the snapshot and runs the one predicate-less base scan, keeping its selected rows:
/// the replayed add metadata every phase re-evaluates.
///
/// Keeping the rows and listing their files happens on a thread of its own while the kernel
/// replays the next batches: on a log of JSON commits the kernel's replay is two threads
/// already (the engine decodes JSON in the background, the caller deduplicates), and the
/// listing would otherwise lengthen the caller's share.
fn replay_log(
    engine: &dyn Engine,
    url: &Url,
    version: Option<u64>,
    observer: &mut dyn FnMut(usize),
    prefetch: &dyn Fn(&TableColumns) -> Option<PredicateRef>,
) -> Result<(SnapshotRef, Replayed), ReplayFailure> {
    let mut builder = Snapshot::builder_for(url.as_str());
    if let Some(v) = version {
        builder = builder.at_version(v);
    }
    let snapshot = builder.build(engine).map_err(ReplayFailure::Kernel)?;
    let prefetch = prefetch(&TableColumns::of_snapshot(&snapshot));
    // No row transforms: they are how a reader injects partition values into the data it
    // reads, built per listed file; the explanation reads no data, and listing every file is
    // exactly where that cost would be paid a million times.
    let base = snapshot
        .clone()
        .scan_builder()
        .with_stats(StatsOptions::json_only())
        .without_row_transforms()
        .build()
        .map_err(ReplayFailure::Kernel)?;
    let (send, receive) = std::sync::mpsc::sync_channel::<(RecordBatch, Vec<bool>)>(BATCHES_IN_FLIGHT);
    let replayed = std::thread::scope(|scope| {
        let (to_prefetch, prefetching) = match &prefetch {
            Some(predicate) => {
                let (to_prefetch, pieces) = std::sync::mpsc::sync_channel::<Piece>(BATCHES_IN_FLIGHT);
                let snapshot = &snapshot;
                let scan = std::thread::Builder::new()
                    .stack_size(crate::DEEP_STACK)
                    .spawn_scoped(scope, move || scan_stream(snapshot, engine, predicate, pieces.into_iter()));
                (Some(to_prefetch), scan.ok())
            }
            None => (None, None),
        };
        let keeper = scope.spawn(move || {
            let mut replayed = Replayed::default();
            for (batch, selection) in receive {
                replayed.take(&batch, &selection, to_prefetch.as_ref())?;
            }
            Ok(replayed)
        });
        let mut live = 0usize;
        let mut replay = || -> Result<(), ReplayFailure> {
            for meta in base.scan_metadata(engine).map_err(ReplayFailure::Kernel)? {
                let (data, selection) = meta.map_err(ReplayFailure::Kernel)?.scan_files.into_parts();
                let batch = ArrowEngineData::try_from_engine_data(data).map_err(ReplayFailure::Kernel)?.record_batch().clone();
                // Rows past the end of a short selection vector are selected.
                live += selection.iter().filter(|s| **s).count() + batch.num_rows().saturating_sub(selection.len());
                if send.send((batch, selection)).is_err() {
                    // The keeper stopped on an error of its own; joining it below reports that.
                    break;
                }
                observer(live);
            }
            Ok(())
        };
        let replayed = replay();
        drop(send);
        let kept = keeper.join().unwrap_or_else(|_| Err(ReplayFailure::Rows("the thread keeping the scan rows panicked".into())));
        // The keeper has dropped its sender, so the prefetch sees the end of the rows.
        let prefetched = prefetching.and_then(|scan| scan.join().ok()).and_then(Result::ok).and_then(|answers| {
            answers.into_iter().map(|a| match a { Answer::File(i) => Some(i), Answer::Unmatched(_) => None }).collect::<Option<Vec<usize>>>()
        });
        let mut replayed = replayed.and(kept)?;
        replayed.prefetched = prefetch.clone().zip(prefetched);
        Ok(replayed)
    })?;
    Ok((snapshot, replayed))
}

/// Above this many runs of selected rows a batch is copied instead of sliced, so a batch
/// that interleaves adds with other actions does not become thousands of tiny slices.
const MAX_SLICES_PER_BATCH: usize = 8;

/// The rows of `batch` its selection vector keeps (rows past a short vector are kept, as in
/// `FilteredEngineData`). The selected rows of a scan batch mostly form a few runs (a
/// commit's adds after its commit info, a checkpoint part's adds after protocol and
/// metadata), and a run is a zero-copy slice; anything more fragmented is copied once.
fn selected_rows(batch: &RecordBatch, selection: &[bool]) -> Result<Vec<RecordBatch>, delta_kernel::KernelError> {
    let is_selected = |row: usize| selection.get(row).copied().unwrap_or(true);
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for row in (0..batch.num_rows()).filter(|&r| is_selected(r)) {
        match runs.last_mut() {
            Some((start, len)) if *start + *len == row => *len += 1,
            _ => runs.push((row, 1)),
        }
    }
    if runs.len() <= MAX_SLICES_PER_BATCH {
        return Ok(runs.into_iter().map(|(start, len)| batch.slice(start, len)).collect());
    }
    let mask = BooleanArray::from((0..batch.num_rows()).map(is_selected).collect::<Vec<bool>>());
    let selected = filter_record_batch(batch, &mask).map_err(|e| delta_kernel::KernelError::Generic(e.to_string()))?;
    Ok(vec![selected])
}

/// The data columns with min/max statistics under the table's current configuration, read off
/// the kernel's own statistics schema (so this cannot disagree with what its skipping uses).
fn min_max_columns(snapshot: &SnapshotRef) -> Result<BTreeSet<Vec<String>>, delta_kernel::KernelError> {
    let builder = snapshot.clone().scan_builder().with_stats(StatsOptions::all_struct());
    let mut out = BTreeSet::new();
    if let Some(schemas) = builder.stats_output_schemas()?
        && let Some(field) = schemas.physical.field("minValues") {
            collect_leaf_paths(field.data_type(), &mut Vec::new(), &mut out);
        }
    Ok(out)
}

fn collect_leaf_paths(data_type: &DataType, prefix: &mut Vec<String>, out: &mut BTreeSet<Vec<String>>) {
    match data_type {
        DataType::Struct(fields) => {
            for field in fields.fields() {
                prefix.push(field.name().clone());
                collect_leaf_paths(field.data_type(), prefix, out);
                prefix.pop();
            }
        }
        _ => {
            out.insert(prefix.clone());
        }
    }
}

/// A kernel error's message without the backtrace the kernel attaches when
/// `RUST_BACKTRACE` is set: users get one line, never a stack trace.
pub(crate) fn kernel_message(e: &delta_kernel::KernelError) -> String {
    one_line(&e.without_backtrace().to_string())
}

pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The distinct partitions of a replay, in order of first appearance. A null map and an
/// empty one are told apart: they share nothing.
#[derive(Default)]
struct Partitions {
    ids: HashMap<Option<Vec<(String, Option<String>)>>, usize>,
    values: Vec<Arc<RawPartitionValues>>,
}

impl Partitions {
    fn id_of(&mut self, entries: Option<&[(&str, Option<&str>)]>) -> usize {
        let owned = entries.map(|e| e.iter().map(|(k, v)| (k.to_string(), v.map(str::to_string))).collect::<Vec<_>>());
        if let Some(&id) = self.ids.get(&owned) {
            return id;
        }
        let id = self.values.len();
        self.values.push(Arc::new(owned.iter().flatten().cloned().collect()));
        self.ids.insert(owned, id);
        id
    }
}

/// Reads the live files out of a batch of kernel scan rows (`scan_row_schema`).
fn live_files(batch: &RecordBatch, partitions: &mut Partitions) -> Result<Vec<LiveFile>, String> {
    let missing = |name: &str| format!("scan rows lack the `{name}` column");
    let paths = batch.column_by_name("path").and_then(|c| c.as_string_opt::<i32>()).ok_or_else(|| missing("path"))?;
    let sizes = batch
        .column_by_name("size")
        .and_then(|c| c.as_primitive_opt::<Int64Type>())
        .ok_or_else(|| missing("size"))?;
    let stats = batch.column_by_name("stats").and_then(|c| c.as_string_opt::<i32>()).ok_or_else(|| missing("stats"))?;
    let dvs = batch.column_by_name("deletionVector").and_then(|c| c.as_struct_opt()).ok_or_else(|| missing("deletionVector"))?;
    let dv_storage = dvs.column_by_name("storageType");
    let constants: &StructArray = batch
        .column_by_name("fileConstantValues")
        .and_then(|c| c.as_struct_opt())
        .ok_or_else(|| missing("fileConstantValues"))?;
    let partition_maps: &MapArray = constants
        .column_by_name("partitionValues")
        .and_then(|c| c.as_map_opt())
        .ok_or_else(|| missing("fileConstantValues.partitionValues"))?;

    // Entries are read through the map's offsets: `MapArray::value` would slice the entry
    // arrays once per file.
    let offsets = partition_maps.value_offsets();
    let keys = partition_maps.keys().as_string_opt::<i32>().ok_or_else(|| missing("partitionValues keys"))?;
    let values = partition_maps.values().as_string_opt::<i32>().ok_or_else(|| missing("partitionValues values"))?;
    // Within the batch, a file's entries find their partition without allocating; the first
    // file of a partition in the batch asks the table-wide list.
    let mut in_batch: HashMap<Option<Vec<(&str, Option<&str>)>>, usize> = HashMap::new();
    let mut out = Vec::with_capacity(batch.num_rows());
    for row in 0..batch.num_rows() {
        if paths.is_null(row) {
            return Err(format!("scan row {row} has no path"));
        }
        // A null map and an empty one are told apart: they share nothing.
        let entries: Option<Vec<(&str, Option<&str>)>> = partition_maps.is_valid(row).then(|| {
            (offsets[row] as usize..offsets[row + 1] as usize)
                .map(|i| (keys.value(i), values.is_valid(i).then(|| values.value(i))))
                .collect()
        });
        let partition = *in_batch.entry(entries).or_insert_with_key(|entries| partitions.id_of(entries.as_deref()));
        let has_deletion_vector =
            dvs.is_valid(row) && dv_storage.is_some_and(|s| s.is_valid(row));
        out.push(LiveFile {
            path: paths.value(row).to_string(),
            size_bytes: if sizes.is_valid(row) { sizes.value(row) } else { 0 },
            has_stats: stats.is_valid(row),
            partition_values: partitions.values[partition].clone(),
            partition,
            has_deletion_vector,
        });
    }
    Ok(out)
}
