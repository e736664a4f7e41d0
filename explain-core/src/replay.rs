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
//! - the selected rows of a scan batch are kept as zero-copy slices, and (past a table of
//!   one window) listed on a thread of their own while the kernel replays the next batches;
//! - files of one partition share their values (`LiveFile::partition`);
//! - a predicate over partition columns alone is asked of one file per partition;
//! - a scan can be asked about a subset of the files (the full scan, about the partition
//!   survivors), and large scans are split across the cores;
//! - one predicate's scans can run window by window while the log is still being replayed
//!   ([`ReplayedTable::stream`]), no window kept once scanned.
//!
//! `harness/tests/it/phase_scans.rs` holds every one of these to a fresh kernel scan.

mod listing;
mod narrow_stats;
mod per_partition;
mod phase_scan;
mod stale_hint;
mod type_changes;

pub use listing::WINDOW_ROWS;
pub(crate) use per_partition::PerPartition;
pub use phase_scan::ROWS_PER_SHARD;

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use delta_kernel::arrow::array::{Array, AsArray, RecordBatch};
use delta_kernel::scan::StatsOptions;
use delta_kernel::schema::DataType;
use delta_kernel::{Engine, SnapshotRef};
use delta_kernel_default_engine::DefaultEngineBuilder;
use storage::StorageOptions;
use url::Url;

use crate::log_check::locate_broken_file;
use crate::partition_table::{Partition, PartitionTable};
use explain_compiler::classify::Note;
use explain_compiler::error::ExplainError;
use explain_compiler::schema::TableColumns;
use listing::{ReplayFailure, Replayed, Window, WindowSink, replay_log};

/// One live file of the snapshot, as the log describes it. Its path stays in the cached rows
/// ([`ReplayedTable::path`]): a copy per file would be a million small allocations, made while
/// the log is replayed and freed when the table is dropped. Its partition values are the
/// table's, by id ([`ReplayedTable::partition_of`]): no reference count per file to raise
/// while listing and lower while dropping.
#[derive(Clone, Debug)]
pub struct LiveFile {
    pub size_bytes: i64,
    /// The record count its statistics give (`numRecords`), read once while the replay lists
    /// the file; `None` without statistics or without a count in them.
    pub num_records: Option<u64>,
    /// Whether the add action carries statistics; the JSON itself stays in the cached rows
    /// ([`ReplayedTable::stats_json`]), not copied once more per file.
    pub has_stats: bool,
    /// The file's partition, an index into [`ReplayedTable::partitions`]: a table has few
    /// distinct partitions and many files, so the values are built, typed and evaluated once
    /// per partition. Ids count from 0 in order of first appearance (in the replay, or in
    /// the window of a streamed replay that holds the file), one per distinct set of
    /// values.
    pub partition: usize,
    pub has_deletion_vector: bool,
    /// The rows its deletion vector deletes (the vector's `cardinality`); 0 without one.
    pub deleted_records: u64,
}

impl LiveFile {
    /// Its size in bytes and its record count where the statistics give one.
    pub fn volume(&self) -> (u64, Option<u64>) {
        (
            u64::try_from(self.size_bytes).unwrap_or(0),
            self.num_records,
        )
    }
}

/// A replayed snapshot: the live files and the cached scan rows behind them.
pub struct ReplayedTable {
    head: TableHead,
    files: Vec<LiveFile>,
    /// Path -> file index, built only if a phase scan ever answers out of position.
    index_of: std::sync::OnceLock<HashMap<String, usize>>,
    /// The base scan's rows with the selection vector applied: the replayed add metadata.
    cached_rows: Vec<RecordBatch>,
    /// The index of the first file of each cached batch (files are the cached rows in order).
    batch_starts: Vec<usize>,
    /// The fewest rows a phase-scan shard gets (see [`ReplayedTable::with_rows_per_shard`]).
    rows_per_shard: usize,
    /// The distinct partitions, indexed by `LiveFile::partition`: the table's, or a window's
    /// own (the partitions its files use, named as the window is gathered).
    partitions: PartitionList,
}

/// The distinct partitions of a replay or of a window, indexed by `LiveFile::partition`;
/// shared with the accepted values ([`ReplayedTable::shared_partitions`]) rather than copied.
pub(crate) type PartitionList = Arc<PartitionTable>;

impl ReplayedTable {
    /// Opens `location` (a directory path or a URL) at `version` (latest when `None`) and
    /// replays its log once.
    pub fn open(location: &str, version: Option<u64>) -> Result<Self, ExplainError> {
        Self::open_observed(location, version, &mut |_| {})
    }

    /// [`open`](Self::open) of a table whose store needs options beyond the environment's.
    pub fn open_with(
        location: &str,
        storage: &StorageOptions,
        version: Option<u64>,
    ) -> Result<Self, ExplainError> {
        Self::open_observed_with(location, storage, version, &mut |_| {})
    }

    /// [`open`](Self::open), telling `observer` how many live files the replay has
    /// reconciled so far after each batch of scan rows: the command line draws its progress
    /// bar from this, the library itself never writes to the terminal.
    pub fn open_observed(
        location: &str,
        version: Option<u64>,
        observer: &mut dyn FnMut(usize),
    ) -> Result<Self, ExplainError> {
        Self::open_observed_with(location, &StorageOptions::default(), version, observer)
    }

    /// [`open_observed`](Self::open_observed) of a table whose store needs options.
    pub fn open_observed_with(
        location: &str,
        storage: &StorageOptions,
        version: Option<u64>,
        observer: &mut dyn FnMut(usize),
    ) -> Result<Self, ExplainError> {
        let (url, mut engine) = open_engine_with(location, storage)?;
        let mut log_notes = Vec::new();
        let (snapshot, columns, replayed) = replay_past_stale_hint(
            &Opened {
                location,
                storage,
                url: &url,
                version,
            },
            &mut engine,
            &mut log_notes,
            |engine| replay_log(engine.as_ref(), &url, version, observer, None),
        )?;
        let Replayed {
            cached_rows,
            batch_starts,
            files,
            partitions,
        } = replayed;
        Ok(Self {
            head: TableHead::read(location, engine, snapshot, columns)?.with_log_notes(log_notes),
            files,
            index_of: Default::default(),
            cached_rows,
            batch_starts,
            rows_per_shard: ROWS_PER_SHARD,
            partitions: partitions.table,
        })
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

    pub fn files(&self) -> &[LiveFile] {
        &self.files
    }

    /// The distinct partition values of the live files, indexed by `LiveFile::partition`.
    pub fn partitions(&self) -> &PartitionTable {
        &self.partitions
    }

    /// The distinct partition values, shared (a reference count, not a copy): what
    /// [`present_values`](crate::accepted::present_values) collects from on first use.
    pub fn shared_partitions(&self) -> Arc<PartitionTable> {
        Arc::clone(&self.partitions)
    }

    /// The partition values of file `file`.
    pub fn partition_of(&self, file: usize) -> Partition<'_> {
        self.partitions.partition(self.files[file].partition)
    }

    /// The raw `stats` JSON of file `file`'s add action (synthesized from `stats_parsed` where
    /// a checkpoint carries only that), `None` when the writer recorded none.
    pub fn stats_json(&self, file: usize) -> Option<&str> {
        self.cached_string(file, "stats")
    }

    /// The path of file `file` relative to the table root, as in the log.
    pub fn path(&self, file: usize) -> &str {
        // The replay refuses scan rows without a path column or with a null path
        // (`listing::list_files`), so every live file has one.
        self.cached_string(file, "path").unwrap_or_default()
    }

    /// The paths of the live files, in order: the cached rows' path columns, batch by batch
    /// (each live file is one cached row, in the same order).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        // The replay refuses scan rows without a path column or with a null path.
        self.cached_strings("path").map(Option::unwrap_or_default)
    }

    /// The raw `stats` JSON of every live file, in order ([`stats_json`](Self::stats_json)
    /// file by file, each batch's column found once).
    pub fn stats_jsons(&self) -> impl Iterator<Item = Option<&str>> {
        self.cached_strings("stats")
    }

    /// A string column of every cached row, in order: looked up once per batch, where
    /// [`cached_string`](Self::cached_string) looks it up per file.
    fn cached_strings<'a>(&'a self, column: &'a str) -> impl Iterator<Item = Option<&'a str>> {
        self.cached_rows.iter().flat_map(move |batch| {
            let values = batch
                .column_by_name(column)
                .and_then(|c| c.as_string_opt::<i32>());
            (0..batch.num_rows())
                .map(move |row| values.and_then(|v| v.is_valid(row).then(|| v.value(row))))
        })
    }

    /// A string column of file `file`'s cached row; `None` where it is null.
    fn cached_string(&self, file: usize, column: &str) -> Option<&str> {
        let batch = self
            .batch_starts
            .partition_point(|&start| start <= file)
            .checked_sub(1)?;
        let row = file - self.batch_starts[batch];
        let values = self.cached_rows[batch]
            .column_by_name(column)?
            .as_string_opt::<i32>()?;
        (row < values.len() && values.is_valid(row)).then(|| values.value(row))
    }

    fn index_of(&self) -> &HashMap<String, usize> {
        self.index_of.get_or_init(|| {
            self.paths()
                .enumerate()
                .map(|(i, path)| (path.to_string(), i))
                .collect()
        })
    }

    /// How many live files carry a deletion vector.
    pub fn deletion_vector_files(&self) -> usize {
        self.files.iter().filter(|f| f.has_deletion_vector).count()
    }
}

/// What a replayed table is, whether its rows are kept ([`ReplayedTable`]) or were streamed
/// ([`StreamedTable`]): where it is, its snapshot and columns, its statistics columns. Both
/// dereference to it.
#[derive(Clone)]
pub struct TableHead {
    location: String,
    engine: Arc<dyn Engine>,
    snapshot: SnapshotRef,
    columns: TableColumns,
    /// Physical paths of the data columns whose min/max the kernel reads for data skipping,
    /// as the table's current statistics configuration selects them.
    min_max_columns: BTreeSet<Vec<String>>,
    /// Physical paths of the data columns whose null count it reads (every indexed column,
    /// booleans and binaries among them).
    null_count_columns: BTreeSet<Vec<String>>,
    /// What the reading of the log itself has to say (a checkpoint hint read past).
    log_notes: Vec<Note>,
}

impl TableHead {
    /// The head of the snapshot a replay built, with its statistics columns read.
    fn read(
        location: &str,
        engine: Arc<dyn Engine>,
        snapshot: SnapshotRef,
        columns: TableColumns,
    ) -> Result<Self, ExplainError> {
        let table_err = |e: delta_kernel::KernelError| ExplainError::Table {
            table: location.to_string(),
            reason: kernel_message(&e),
        };
        let min_max_columns = stats_columns(&snapshot, "minValues").map_err(table_err)?;
        let null_count_columns = stats_columns(&snapshot, "nullCount").map_err(table_err)?;
        Ok(Self {
            location: location.to_string(),
            engine,
            snapshot,
            columns,
            min_max_columns,
            null_count_columns,
            log_notes: Vec::new(),
        })
    }

    fn with_log_notes(mut self, notes: Vec<Note>) -> Self {
        self.log_notes = notes;
        self
    }

    /// What the reading of the log had to say about the log itself: a `_last_checkpoint`
    /// naming a checkpoint the log does not hold, read past by listing.
    pub fn log_notes(&self) -> &[Note] {
        &self.log_notes
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

    pub fn engine(&self) -> &dyn Engine {
        self.engine.as_ref()
    }

    pub fn snapshot(&self) -> &SnapshotRef {
        &self.snapshot
    }

    /// Whether data skipping reads min/max for the data column at `stats_path` (physical).
    /// A column outside the table's statistics columns (`delta.dataSkippingNumIndexedCols`,
    /// `delta.dataSkippingStatsColumns`) prunes nothing, whatever bounds its files record.
    pub fn has_min_max_column(&self, stats_path: &[String]) -> bool {
        self.min_max_columns.contains(stats_path)
    }

    /// Whether data skipping reads the null count of a data column (its physical path).
    pub fn has_null_count_column(&self, stats_path: &[String]) -> bool {
        self.null_count_columns.contains(stats_path)
    }
}

impl std::ops::Deref for ReplayedTable {
    type Target = TableHead;
    fn deref(&self) -> &TableHead {
        &self.head
    }
}

impl std::ops::Deref for StreamedTable {
    type Target = TableHead;
    fn deref(&self) -> &TableHead {
        &self.head
    }
}

/// A replay's failure as the one error line the user reads: a version past the table's end
/// said as such, a kernel failure pinned to the log file at fault where one can be found.
fn replay_error(
    e: ReplayFailure,
    location: &str,
    url: &Url,
    engine: &dyn Engine,
    version: Option<u64>,
) -> ExplainError {
    let table_err = |reason: String| ExplainError::Table {
        table: location.to_string(),
        reason: one_line(&reason),
    };
    match e {
        ReplayFailure::Kernel(e) => {
            let reason = kernel_message(&e);
            if let Some(asked) = version
                && let Ok(latest) = delta_kernel::Snapshot::builder_for(url.as_str()).build(engine)
                && latest.version() < asked
            {
                return table_err(format!(
                    "--at-version {asked}: the table has no version {asked}; its latest is {}",
                    latest.version()
                ));
            }
            match locate_broken_file(engine, url, version) {
                Some(file) => table_err(format!("{file}; the kernel said: {reason}")),
                None => table_err(reason),
            }
        }
        ReplayFailure::Rows(reason) | ReplayFailure::Refused(reason) => table_err(reason),
        // A restart is taken inside the replay; one that escapes it is a failure of the rows.
        ReplayFailure::Restart => {
            table_err("the replay had to restart for statistics and could not".into())
        }
        ReplayFailure::Sink(e) => e,
    }
}

/// What a streamed replay leaves once every window has been handed on: the snapshot and the
/// table-wide facts that need no rows.
pub struct StreamedTable {
    head: TableHead,
    /// How many live files the windows held between them.
    files: usize,
    partitions: PartitionList,
}

impl StreamedTable {
    /// How many live files the snapshot has.
    pub fn file_count(&self) -> usize {
        self.files
    }

    /// Every distinct partition of the snapshot.
    pub fn partitions(&self) -> &PartitionTable {
        &self.partitions
    }

    /// Every distinct partition of the snapshot, shared (a reference count, not a copy): what
    /// [`present_values`](crate::accepted::present_values) collects from.
    pub fn shared_partitions(&self) -> Arc<PartitionTable> {
        Arc::clone(&self.partitions)
    }
}

/// What a streamed replay hands each window to, as a [`ReplayedTable`] of that window's files
/// alone, in the replay's order: their partition values are the table's, their partition ids
/// the window's own (counted from 0 in order of first use in the window).
pub trait WindowVisitor: Send {
    /// The snapshot is known and its replay starts (again, after a restart: forget what the
    /// earlier windows said). An error stops the replay before it lists a file.
    fn start(&mut self, columns: &TableColumns) -> Result<(), ExplainError>;
    fn visit(&mut self, window: &ReplayedTable) -> Result<(), ExplainError>;
    /// Whether visiting a window leaves cores idle (fewer predicates than cores): each phase
    /// scan of a window handed on while the kernel's replay leaves its core idle (it waits
    /// on the listing, or it is done) is then split in two halves, each on a thread.
    /// Otherwise a window's scans run on the visiting thread (a window is smaller than
    /// [`ROWS_PER_SHARD`]): a core the replay keeps busy gains nothing from a second shard.
    fn leaves_cores_idle(&self) -> bool {
        false
    }
}

/// Builds each window's [`ReplayedTable`] for a [`WindowVisitor`].
struct WindowBuilder<'v> {
    location: String,
    engine: Arc<dyn Engine>,
    /// Read once the snapshot is known; every window shares it.
    head: Option<TableHead>,
    visitor: &'v mut dyn WindowVisitor,
    window_files: usize,
    files: usize,
}

impl WindowSink for WindowBuilder<'_> {
    fn start(
        &mut self,
        snapshot: &SnapshotRef,
        columns: &TableColumns,
    ) -> Result<(), ExplainError> {
        self.head = Some(TableHead::read(
            &self.location,
            self.engine.clone(),
            snapshot.clone(),
            columns.clone(),
        )?);
        self.files = 0;
        self.visitor.start(columns)
    }

    fn window_files(&self) -> usize {
        self.window_files
    }

    fn window(&mut self, rows: Window) -> Result<(), ExplainError> {
        let Some(head) = &self.head else {
            return Err(ExplainError::Table {
                table: self.location.clone(),
                reason: "a window of rows came before the snapshot".into(),
            });
        };
        self.files += rows.files.len();
        let window = ReplayedTable {
            head: head.clone(),
            files: rows.files,
            index_of: Default::default(),
            cached_rows: rows.cached_rows,
            batch_starts: rows.batch_starts,
            rows_per_shard: if rows.replay_idle && self.visitor.leaves_cores_idle() {
                self.window_files.div_ceil(2)
            } else {
                ROWS_PER_SHARD
            },
            partitions: rows.partitions,
        };
        self.visitor.visit(&window)
    }
}

impl ReplayedTable {
    /// Replays `location` at `version` once, handing its live files to `visitor` in windows
    /// of at least `window_files` (one scan batch more at most; [`WINDOW_ROWS`] by default)
    /// as the replay lists them, and keeping no window once visited:
    /// what the replay holds stays about one window's rows whatever the size of the table.
    /// WindowBuilder are visited in order on a thread of their own while the kernel replays the
    /// next batches. `observer` hears the running file count, as with
    /// [`open_observed`](Self::open_observed).
    pub fn stream(
        location: &str,
        storage: &StorageOptions,
        version: Option<u64>,
        observer: &mut dyn FnMut(usize),
        visitor: &mut dyn WindowVisitor,
        window_files: usize,
    ) -> Result<StreamedTable, ExplainError> {
        let (url, mut engine) = open_engine_with(location, storage)?;
        let mut windows = WindowBuilder {
            location: location.to_string(),
            engine: engine.clone(),
            head: None,
            visitor,
            window_files: window_files.max(1),
            files: 0,
        };
        let mut log_notes = Vec::new();
        // A stale hint is refused before the snapshot: no window was started by then.
        let (snapshot, columns, rest) = replay_past_stale_hint(
            &Opened {
                location,
                storage,
                url: &url,
                version,
            },
            &mut engine,
            &mut log_notes,
            |engine| {
                windows.engine = engine.clone();
                replay_log(engine.as_ref(), &url, version, observer, Some(&mut windows))
            },
        )?;
        let head = match windows.head.take() {
            Some(head) => head,
            None => TableHead::read(location, engine, snapshot, columns)?,
        }
        .with_log_notes(log_notes);
        Ok(StreamedTable {
            head,
            files: windows.files,
            // Every partition the replay listed: the windows were handed on, the list stays.
            partitions: rest.partitions.table,
        })
    }
}

/// The table a replay reads, as it was opened.
struct Opened<'a> {
    location: &'a str,
    storage: &'a StorageOptions,
    url: &'a Url,
    version: Option<u64>,
}

/// Runs `replay` on `engine`. Where the kernel refuses the log because `_last_checkpoint`
/// names a checkpoint the log does not hold and the listing shows where the state starts,
/// `engine` becomes one over a store without the hint, `replay` runs again on it and
/// `log_notes` gains the note saying so (see `stale_hint`); any other refusal is the
/// table's error.
fn replay_past_stale_hint<T>(
    table: &Opened<'_>,
    engine: &mut Arc<dyn Engine>,
    log_notes: &mut Vec<Note>,
    mut replay: impl FnMut(&Arc<dyn Engine>) -> Result<T, ReplayFailure>,
) -> Result<T, ExplainError> {
    let outcome = match replay(engine) {
        Err(ReplayFailure::Kernel(e)) if stale_hint::is_stale_hint(&e) => {
            match stale_hint::read_past(engine.as_ref(), table.url, table.version, table.location)?
            {
                Some(note) => {
                    log_notes.push(note);
                    *engine = open_store(table.location, table.storage, false, false)?.1;
                    replay(engine)
                }
                None => Err(ReplayFailure::Kernel(e)),
            }
        }
        other => other,
    };
    outcome.map_err(|e| replay_error(e, table.location, table.url, engine.as_ref(), table.version))
}

/// The table's URL and a default engine over its object store: what every replay starts from,
/// the benchmarks' plain kernel scans included. The store's credentials come from the
/// environment.
pub fn open_engine(location: &str) -> Result<(Url, Arc<dyn Engine>), ExplainError> {
    open_engine_with(location, &StorageOptions::default())
}

/// [`open_engine`] with options for the store. A remote table's log is listed once first, so
/// a missing bucket, refused credentials or a prefix without `_delta_log` are reported as such
/// rather than as whatever the kernel makes of them.
pub fn open_engine_with(
    location: &str,
    storage: &StorageOptions,
) -> Result<(Url, Arc<dyn Engine>), ExplainError> {
    open_store(location, storage, true, true)
}

/// The engine a plain kernel reader builds: the store opened from the same options, without
/// the log listing [`open_engine_with`] adds. The benchmarks' floor scans use it, so the
/// floor they measure is the kernel's alone.
pub fn plain_engine(
    location: &str,
    storage: &StorageOptions,
) -> Result<(Url, Arc<dyn Engine>), ExplainError> {
    open_store(location, storage, false, true)
}

/// The table's URL and an engine over its store; `read_hint` false: a store without the log's
/// checkpoint hint, which the kernel then finds by listing (see `stale_hint`).
fn open_store(
    location: &str,
    storage: &StorageOptions,
    check_log: bool,
    read_hint: bool,
) -> Result<(Url, Arc<dyn Engine>), ExplainError> {
    let table_err = |reason: String| ExplainError::Table {
        table: location.to_string(),
        reason: one_line(&reason),
    };
    let storage_err = |e: storage::StorageError| match e {
        storage::StorageError::BadLocation(m) | storage::StorageError::BadOption(m) => {
            ExplainError::Usage(m)
        }
        storage::StorageError::NoTable { reason, .. } => table_err(reason),
        storage::StorageError::Store(m) => table_err(m),
    };
    let table = storage::open(location, storage).map_err(storage_err)?;
    if check_log && storage::Scheme::of(&table.url).is_ok_and(|s| s != storage::Scheme::File) {
        storage::check_log(&table).map_err(storage_err)?;
    }
    let url = table.url.clone();
    let store = if read_hint {
        table.store
    } else {
        storage::without_checkpoint_hint(&table)
    };
    Ok((url, Arc::new(DefaultEngineBuilder::new(store).build())))
}

/// The data columns with `statistic` (`minValues`, `nullCount`) under the table's current
/// configuration, read off the kernel's own statistics schema (so this cannot disagree with
/// what its skipping uses).
fn stats_columns(
    snapshot: &SnapshotRef,
    statistic: &str,
) -> Result<BTreeSet<Vec<String>>, delta_kernel::KernelError> {
    let mut out = BTreeSet::new();
    if let Some(schemas) = stats_schemas(snapshot)?
        && let Some(field) = schemas.physical.field(statistic)
    {
        collect_leaf_paths(field.data_type(), &mut Vec::new(), &mut out);
    }
    Ok(out)
}

/// The top-level data columns (logical names, in schema order) that `location` at `version`
/// (latest when `None`) collects statistics for: those with a leaf in the kernel's `nullCount`
/// statistics schema, which every indexed column has whatever its type
/// (`delta.dataSkippingStatsColumns`, else the first `delta.dataSkippingNumIndexedCols` leaves,
/// as the kernel reads the table's configuration). Read off the kernel's schema, as
/// [`TableHead::has_min_max_column`] is, so that no second reading of the configuration can
/// disagree with the one data skipping uses.
pub fn indexed_columns(
    location: &str,
    storage: &StorageOptions,
    version: Option<u64>,
) -> Result<Vec<String>, ExplainError> {
    let table_err = |e: delta_kernel::KernelError| ExplainError::Table {
        table: location.to_string(),
        reason: kernel_message(&e),
    };
    let (url, engine) = open_engine_with(location, storage)?;
    let snapshot = snapshot_at(engine.as_ref(), &url, version).map_err(table_err)?;
    type_changes::check(&snapshot.schema()).map_err(|reason| ExplainError::Table {
        table: location.to_string(),
        reason,
    })?;
    let schemas = stats_schemas(&snapshot).map_err(table_err)?;
    // The `nullCount` struct holds the indexed columns in schema order (a nested column with
    // those of its leaves that are indexed); without an indexed data column the kernel builds
    // no statistics schema.
    let Some(DataType::Struct(fields)) = schemas
        .as_ref()
        .and_then(|s| s.logical.field("nullCount"))
        .map(|f| f.data_type())
    else {
        return Ok(Vec::new());
    };
    Ok(fields.fields().map(|f| f.name().clone()).collect())
}

/// The kernel's schemas of the statistics of every indexed column of `snapshot`, logical and
/// physical; `None` when no data column is indexed.
fn stats_schemas(
    snapshot: &SnapshotRef,
) -> Result<Option<delta_kernel::scan::StatsOutputSchemas>, delta_kernel::KernelError> {
    snapshot
        .clone()
        .scan_builder()
        .with_stats(StatsOptions::all_struct())
        .stats_output_schemas()
}

/// The snapshot of the table at `url` at `version` (latest when `None`).
/// The statistics settings of the table at `version`: `delta.dataSkippingNumIndexedCols` (32
/// when unset, -1 for every column) and `delta.dataSkippingStatsColumns`.
pub fn stats_settings_at(
    location: &str,
    storage: &StorageOptions,
    version: u64,
) -> Result<(i64, Option<Vec<String>>), ExplainError> {
    let (url, engine) = open_engine_with(location, storage)?;
    let snapshot =
        snapshot_at(engine.as_ref(), &url, Some(version)).map_err(|e| ExplainError::Table {
            table: location.to_string(),
            reason: kernel_message(&e),
        })?;
    Ok(stats_settings_of(&snapshot))
}

/// [`stats_settings_at`] of a snapshot opened already.
pub fn stats_settings_of(snapshot: &SnapshotRef) -> (i64, Option<Vec<String>>) {
    use delta_kernel::table_properties::DataSkippingNumIndexedCols;
    let properties = snapshot.table_configuration().table_properties();
    let count = match properties.data_skipping_num_indexed_cols {
        Some(DataSkippingNumIndexedCols::AllColumns) => -1,
        Some(DataSkippingNumIndexedCols::NumColumns(n)) => i64::try_from(n).unwrap_or(i64::MAX),
        None => 32,
    };
    let columns = properties
        .data_skipping_stats_columns
        .as_ref()
        .map(|cs| cs.iter().map(ToString::to_string).collect());
    (count, columns)
}

fn snapshot_at(
    engine: &dyn Engine,
    url: &Url,
    version: Option<u64>,
) -> Result<SnapshotRef, delta_kernel::KernelError> {
    let mut builder = delta_kernel::Snapshot::builder_for(url.as_str());
    if let Some(v) = version {
        builder = builder.at_version(v);
    }
    builder.build(engine)
}

fn collect_leaf_paths(
    data_type: &DataType,
    prefix: &mut Vec<String>,
    out: &mut BTreeSet<Vec<String>>,
) {
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

/// Whether row `row` of a kernel scan batch is selected: rows past the end of a short
/// selection vector are (`FilteredEngineData`).
pub fn is_selected(selection: &[bool], row: usize) -> bool {
    selection.get(row).copied().unwrap_or(true)
}

/// How many of a scan batch's `rows` its selection vector selects.
pub fn selected_count(selection: &[bool], rows: usize) -> usize {
    selection.iter().filter(|s| **s).count() + rows.saturating_sub(selection.len())
}

/// A kernel error's message without the backtrace the kernel attaches when
/// `RUST_BACKTRACE` is set: users get one line, never a stack trace.
pub(crate) fn kernel_message(e: &delta_kernel::KernelError) -> String {
    one_line(&storage::redact_queries(&e.without_backtrace().to_string()))
}

pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per window, its file count, its partition list's length and how many hold the list
    /// while the window is visited.
    #[derive(Default)]
    struct Holders(Vec<(usize, usize, usize)>);

    impl WindowVisitor for Holders {
        fn start(&mut self, _: &TableColumns) -> Result<(), ExplainError> {
            self.0.clear();
            Ok(())
        }

        fn visit(&mut self, window: &ReplayedTable) -> Result<(), ExplainError> {
            self.0.push((
                window.files().len(),
                window.partitions().len(),
                Arc::strong_count(&window.partitions),
            ));
            Ok(())
        }
    }

    /// A window holds a list of its own files' partitions (at most one per file, whatever
    /// the table's partition count: a window that held or copied the table's list would cost
    /// the table's count each time), shared only with the thread naming them in the table's
    /// list, never with the listing, which names the next window's files in a list of their
    /// own meanwhile. Which partitions a window's list holds:
    /// `streamed_windows_name_the_partitions_a_whole_replay_names`.
    #[test]
    fn every_window_holds_a_list_of_its_own_partitions() {
        let mut holders = Holders::default();
        let streamed = ReplayedTable::stream(
            &testkit::taxi(),
            &StorageOptions::default(),
            None,
            &mut |_| {},
            &mut holders,
            1,
        )
        .unwrap();
        assert!(
            holders.0.len() > 2,
            "windows of a scan batch each: {}",
            holders.0.len()
        );
        assert!(streamed.partitions().len() > 1, "taxi has many partitions");
        assert!(
            holders
                .0
                .iter()
                .all(|&(files, len, holders)| 1 <= len && len <= files && holders <= 2),
            "(files, partitions, holders) per window: {:?}",
            holders.0
        );
    }

    /// Refuses its `refuse_at`-th window (counting from 1), and counts what it is shown.
    struct Refusing {
        refuse_at: usize,
        seen: usize,
    }

    impl WindowVisitor for Refusing {
        fn start(&mut self, _: &TableColumns) -> Result<(), ExplainError> {
            self.seen = 0;
            Ok(())
        }

        fn visit(&mut self, _: &ReplayedTable) -> Result<(), ExplainError> {
            self.seen += 1;
            if self.seen == self.refuse_at {
                return Err(ExplainError::Output(format!(
                    "window {} refused",
                    self.seen
                )));
            }
            Ok(())
        }
    }

    /// A refused window stops the replay with that window's own error wherever it falls: the
    /// first window, one while the kernel still replays, or the last (handed on as the
    /// listing finishes); never the listing's or the replay's own complaint about the
    /// stopped queue, never a hang, and no window is shown after it.
    #[test]
    fn a_refused_window_stops_the_replay_with_its_own_error() {
        let stream = |refusing: &mut Refusing| {
            ReplayedTable::stream(
                &testkit::taxi(),
                &StorageOptions::default(),
                None,
                &mut |_| {},
                refusing,
                1,
            )
        };
        let mut accepting = Refusing {
            refuse_at: usize::MAX,
            seen: 0,
        };
        assert!(stream(&mut accepting).is_ok());
        let windows = accepting.seen;
        assert!(windows > 2, "windows of a scan batch each: {windows}");
        for refuse_at in 1..=windows {
            let mut refusing = Refusing { refuse_at, seen: 0 };
            let Err(error) = stream(&mut refusing) else {
                panic!("window {refuse_at} was refused, yet the replay succeeded");
            };
            assert_eq!(
                error.to_string(),
                ExplainError::Output(format!("window {refuse_at} refused")).to_string()
            );
            assert_eq!(refusing.seen, refuse_at, "no window after the refused one");
        }
    }

    /// Each file's path, partition id and partition values, and which window holds it, window
    /// after window; and each window's partition count.
    #[derive(Default)]
    struct Named {
        files: Vec<(String, usize, String, usize)>,
        partitions: Vec<usize>,
    }

    impl WindowVisitor for Named {
        fn start(&mut self, _: &TableColumns) -> Result<(), ExplainError> {
            *self = Named::default();
            Ok(())
        }

        fn visit(&mut self, window: &ReplayedTable) -> Result<(), ExplainError> {
            let at = self.partitions.len();
            for (file, live) in window.files().iter().enumerate() {
                let values = format!("{:?}", window.partition_of(file));
                self.files
                    .push((window.path(file).to_string(), live.partition, values, at));
            }
            self.partitions.push(window.partitions().len());
            Ok(())
        }
    }

    /// The windows' files are given the partition values a replay kept whole gives, and the
    /// table's list is the whole replay's, id for id, whether the table is one window (listed
    /// on the calling thread) or many (handed to a thread of their own while the listing
    /// gathers the next). A window's ids are its own: two of its files share one exactly when
    /// they share one in the whole replay, counted from 0 in order of first use, each used.
    #[test]
    fn streamed_windows_name_the_partitions_a_whole_replay_names() {
        let location = testkit::taxi();
        let whole = ReplayedTable::open(&location, None).unwrap();
        assert!(whole.partitions().len() > 1, "taxi has many partitions");
        for window_files in [1, 2, 7, whole.files().len(), WINDOW_ROWS] {
            let mut named = Named::default();
            let streamed = ReplayedTable::stream(
                &location,
                &StorageOptions::default(),
                None,
                &mut |_| {},
                &mut named,
                window_files,
            )
            .unwrap();
            let case = format!("windows of {window_files} files");
            assert_eq!(named.files.len(), whole.files().len(), "{case}");
            // Per window, the whole replay's id of each of its ids, in order of first use.
            let mut ids: Vec<Vec<usize>> = vec![Vec::new(); named.partitions.len()];
            for (file, (path, id, values, window)) in named.files.iter().enumerate() {
                assert_eq!(path, whole.path(file), "{case}");
                assert_eq!(
                    values,
                    &format!("{:?}", whole.partition_of(file)),
                    "{case}, {path}"
                );
                let whole_id = whole.files()[file].partition;
                let ids = &mut ids[*window];
                match ids.get(*id) {
                    Some(&seen) => {
                        assert_eq!(seen, whole_id, "{case}, {path}: one id, one partition")
                    }
                    None => {
                        assert_eq!(*id, ids.len(), "{case}, {path}: ids in order of first use");
                        assert!(
                            !ids.contains(&whole_id),
                            "{case}, {path}: one partition, one id"
                        );
                        ids.push(whole_id);
                    }
                }
            }
            let used: Vec<usize> = ids.iter().map(Vec::len).collect();
            assert_eq!(
                used, named.partitions,
                "{case}: every id of a window is used"
            );
            assert!(
                named.partitions.len() > 1 || window_files >= whole.files().len(),
                "{case}: {} windows",
                named.partitions.len()
            );
            assert_eq!(
                format!("{:?}", streamed.partitions()),
                format!("{:?}", whole.partitions()),
                "{case}"
            );
        }
    }
}
