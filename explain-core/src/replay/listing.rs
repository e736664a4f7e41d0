//! The base scan: the one predicate-less kernel scan of a replay, its selected rows kept and
//! its live files listed, kept whole or handed on in windows.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};

use delta_kernel::arrow::array::{
    Array, AsArray, BooleanArray, MapArray, RecordBatch, StructArray,
};
use delta_kernel::arrow::compute::filter_record_batch;
use delta_kernel::arrow::datatypes::Int64Type;
use delta_kernel::engine::arrow_data::ArrowEngineData;
use delta_kernel::scan::StatsOptions;
use delta_kernel::{Engine, SnapshotRef};

use url::Url;

use super::narrow_stats::NarrowStats;
use super::{LiveFile, PartitionList, is_selected, selected_count, snapshot_at};
use crate::file_stats::num_records;
use crate::partition_table::{DistinctPartitions, PartitionTable};
use explain_compiler::schema::TableColumns;

/// What the base scan leaves: its selected rows and the live files they are.
#[derive(Default)]
pub(super) struct Replayed {
    pub(super) cached_rows: Vec<RecordBatch>,
    /// The index of the first file of each cached batch.
    pub(super) batch_starts: Vec<usize>,
    pub(super) files: Vec<LiveFile>,
    /// The distinct partitions, in order of first appearance (a null map and an empty one are
    /// two); a batch's borrowed entries are looked up without a copy, and only a partition
    /// seen for the first time is copied. While a streamed replay gathers a window: the
    /// window's own ([`Keeper::hand_on`]).
    pub(super) partitions: DistinctPartitions,
}

impl Replayed {
    /// Keeps the rows of one scan batch that its selection vector selects, lists their
    /// files and names their partitions (in order of first appearance).
    fn take(&mut self, batch: &RecordBatch, selection: &[bool]) -> Result<(), ReplayFailure> {
        for selected in selected_rows(batch, selection).map_err(ReplayFailure::Kernel)? {
            self.batch_starts.push(self.files.len());
            list_files(&selected, &mut self.partitions, &mut self.files)
                .map_err(ReplayFailure::Rows)?;
            self.cached_rows.push(selected);
        }
        Ok(())
    }
}

pub(super) enum ReplayFailure {
    /// The kernel could not replay the log.
    Kernel(delta_kernel::KernelError),
    /// The kernel's scan rows are not what this reader expects.
    Rows(String),
    /// A window handed on found a file without JSON statistics while the replay read none
    /// from `stats_parsed`: the replay starts again, asking for them (see [`replay_log`]).
    Restart,
    /// The window sink refused a window.
    Sink(explain_compiler::error::ExplainError),
    /// The log describes a table the protocol tells readers to refuse (a type change it does
    /// not allow, `type_changes.rs`): the reason.
    Refused(String),
}

/// Where a streamed replay hands its rows: in windows of about [`WINDOW_ROWS`] files, each
/// given on and dropped once visited, so no more than two windows' rows (the one visited,
/// the one gathered meanwhile) and the batches queued behind them are held at once.
pub(super) trait WindowSink: Send {
    /// Called once per replay attempt, before its first window: a restarted replay starts over.
    fn start(
        &mut self,
        snapshot: &SnapshotRef,
        columns: &TableColumns,
    ) -> Result<(), explain_compiler::error::ExplainError>;
    /// How many files a window gathers before it is handed on.
    fn window_files(&self) -> usize;
    /// One window: its rows, the files they are, and their partitions.
    fn window(&mut self, rows: Window) -> Result<(), explain_compiler::error::ExplainError>;
}

/// The rows of one window of a streamed replay.
pub(super) struct Window {
    pub(super) cached_rows: Vec<RecordBatch>,
    pub(super) batch_starts: Vec<usize>,
    /// The window's files, each `partition` an id into `partitions`.
    pub(super) files: Vec<LiveFile>,
    /// The window's own distinct partitions, in order of first use in the window: the table's
    /// list is made from these ([`name_in_table`]), on a thread of its own while the window is
    /// visited once the listing has a thread of its own.
    pub(super) partitions: PartitionList,
    /// Whether the kernel's replay left its core idle when this window was handed on: it
    /// waited on a full queue (the listing, not the replay, holds the run back) or it had
    /// sent its last batch. The window's scans may take that core.
    pub(super) replay_idle: bool,
}

/// Names the partitions of one window in the table's list `named`, in the window's order of
/// first use (so, window after window, the table's list is the one a replay kept whole
/// makes).
///
/// A window's files are named in a list of the window's own while it is gathered: a lookup
/// among the window's few partitions, not among all the table's (on a table with a partition
/// per file, a hash probe into a million). The table's list, which only the report's accepted
/// values read, is made from the windows' lists on a thread of its own (see
/// [`replay_with`]).
fn name_in_table(named: &mut DistinctPartitions, window: &PartitionTable) -> Result<(), String> {
    let mut entries: Vec<(&str, Option<&str>)> = Vec::new();
    for partition in window.iter() {
        entries.clear();
        entries.extend(partition.iter());
        partition_id(
            named,
            (!partition.is_null_map()).then_some(entries.as_slice()),
        )?;
    }
    Ok(())
}

/// How many files a window of a streamed replay gathers before it is handed on: enough that
/// each window's phase scans (a kernel scan set up per window and predicate) cost little
/// against their rows, few enough that a window's rows (about 300 bytes a file, and the scan
/// batches they are slices of) stay a few megabytes whatever the size of the table. Measured
/// at 1M files on 2 cores: windows of 100,000 files held 40 MB more than one kernel scan,
/// of 32,768 about 20 MB and of 8,192 about 12 MB, at the same wall time.
pub const WINDOW_ROWS: usize = 8_192;

/// Scan batches queued between the kernel's replay and the thread keeping their rows.
const BATCHES_IN_FLIGHT: usize = 16;

/// Batches waiting at which the listing is behind the replay: the queue is full, so the
/// replay waits on the listing and its core is idle.
const BEHIND_AT: usize = BATCHES_IN_FLIGHT;

/// What the listing knows of the kernel's replay ahead of it, once the listing has a thread of
/// its own: hints that decide how a window's scans use the cores, never what they answer.
#[derive(Default)]
struct ReplayProgress {
    /// Batches sent and not yet taken by the listing.
    queued: AtomicUsize,
    /// Whether the replay has sent its last batch: its core is free for the windows left.
    done: AtomicBool,
}

/// Builds the snapshot and runs the one predicate-less base scan, keeping its selected rows:
/// the replayed add metadata every phase re-evaluates.
///
/// Where the files are listed, on the calling thread or beside it: see [`replay_with`].
pub(super) fn replay_log(
    engine: &dyn Engine,
    url: &Url,
    version: Option<u64>,
    observer: &mut dyn FnMut(usize),
    mut sink: Option<&mut (dyn WindowSink + '_)>,
) -> Result<(SnapshotRef, TableColumns, Replayed), ReplayFailure> {
    let snapshot = snapshot_at(engine, url, version).map_err(ReplayFailure::Kernel)?;
    super::type_changes::check(&snapshot.schema()).map_err(ReplayFailure::Refused)?;
    let columns = TableColumns::of_snapshot(&snapshot);
    // Statistics a checkpoint wrote before a type change, which the kernel leaves unread.
    let narrow = NarrowStats::load(engine, &snapshot).map_err(ReplayFailure::Kernel)?;
    let narrow = narrow.as_ref();
    if let Some(sink) = sink.as_deref_mut() {
        sink.start(&snapshot, &columns)
            .map_err(ReplayFailure::Sink)?;
    }
    let first = replay_with(
        engine,
        &snapshot,
        Statistics::Json,
        narrow,
        observer,
        sink.as_deref_mut(),
    );
    let replayed = match first {
        Err(ReplayFailure::Restart) => None,
        other => Some(other?),
    };
    // A predicate-less scan leaves `stats` null where a checkpoint records a file's
    // statistics only as `stats_parsed` (the kernel turns the struct into JSON only when its
    // scan reads statistics), while a scan with a predicate prunes on them. Cached rows
    // without the JSON would keep files a fresh scan prunes, so a replay that found files
    // without statistics is run once more asking for the struct statistics too: the kernel
    // then fills `stats` from `stats_parsed` where the JSON is missing. Tables whose every
    // file has JSON statistics (nearly all) pay nothing.
    // A streamed replay keeps no rows to look at afterwards: it restarts as soon as a window
    // holds such a file (`ReplayFailure::Restart`).
    if let Some(replayed) = replayed {
        if replayed.files.iter().all(|f| f.has_stats) {
            return Ok((snapshot, columns, replayed));
        }
        drop(replayed);
    }
    if let Some(sink) = sink.as_deref_mut() {
        sink.start(&snapshot, &columns)
            .map_err(ReplayFailure::Sink)?;
    }
    let replayed = replay_with(
        engine,
        &snapshot,
        Statistics::WithStruct,
        narrow,
        observer,
        sink,
    )?;
    Ok((snapshot, columns, replayed))
}

/// Which statistics a base scan asks the kernel for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Statistics {
    /// The JSON strings alone (nearly every table has them for every file).
    Json,
    /// `stats_parsed` too, which the kernel turns into JSON where a file has none.
    WithStruct,
}

impl Statistics {
    fn options(self) -> StatsOptions {
        match self {
            Statistics::Json => StatsOptions::json_only(),
            Statistics::WithStruct => StatsOptions::all(),
        }
    }
}

/// The base scan of `snapshot` with `stats`: its selected rows kept (without any
/// `stats_parsed` column: the phase scans read the JSON) and its files listed.
///
/// A table of one window (of [`INLINE_FILES`] when kept whole) is listed on the calling
/// thread between the kernel's batches: that is done in less time than a thread takes to
/// start and be handed the batches. A larger table is listed on a thread of its own, fed
/// through a bounded queue, while the kernel replays the next batches: on a log of JSON
/// commits the kernel's replay is two threads already (the engine decodes JSON in the
/// background, the caller deduplicates), and the listing would otherwise lengthen the
/// caller's share. The windows of a streamed replay listed so are visited on a third
/// thread while the listing gathers the next window, and each window's partitions (named
/// among the window's own) are named in the table's list on a fourth ([`name_in_table`]): on
/// a table partitioned by a column of high cardinality, looking up a million partitions in
/// the table's list is as much work as listing the files, and that work runs beside the
/// listing and the windows' scans, not before them.
fn replay_with(
    engine: &dyn Engine,
    snapshot: &SnapshotRef,
    stats: Statistics,
    narrow: Option<&NarrowStats>,
    observer: &mut dyn FnMut(usize),
    sink: Option<&mut (dyn WindowSink + '_)>,
) -> Result<Replayed, ReplayFailure> {
    // No row transforms: they are how a reader injects partition values into the data it
    // reads, built per listed file; the explanation reads no data, and listing every file is
    // exactly where that cost would be paid a million times.
    let base = snapshot
        .clone()
        .scan_builder()
        .with_stats(stats.options())
        .without_row_transforms()
        .build()
        .map_err(ReplayFailure::Kernel)?;
    let window_files = sink.as_deref().map(|sink| sink.window_files());
    let mut keeper = Keeper::new(sink, stats);
    let mut live = 0usize;
    let mut batches = base.scan_metadata(engine).map_err(ReplayFailure::Kernel)?;
    let mut next_batch = |live: &mut usize| -> Option<Result<_, ReplayFailure>> {
        let meta = batches.next()?;
        Some(meta.map_err(ReplayFailure::Kernel).and_then(|meta| {
            let (data, selection) = meta.scan_files.into_parts();
            let batch = without_stats_parsed(
                ArrowEngineData::try_from_engine_data(data)
                    .map_err(ReplayFailure::Kernel)?
                    .record_batch(),
            );
            let batch = match narrow {
                Some(narrow) => narrow.fill(batch).map_err(ReplayFailure::Rows)?,
                None => batch,
            };
            *live += selected_count(&selection, batch.num_rows());
            Ok((batch, selection))
        }))
    };
    // The calling thread lists the batches itself for as long as the table may turn out to
    // be one window: a batch that completes a window (or, kept whole, passes
    // [`INLINE_FILES`]) is listed here only if no batch follows it.
    let inline_files = window_files.unwrap_or(INLINE_FILES);
    let (send, receive) =
        std::sync::mpsc::sync_channel::<(RecordBatch, Vec<bool>)>(BATCHES_IN_FLIGHT);
    let progress = Arc::new(ReplayProgress::default());
    loop {
        let Some(next) = next_batch(&mut live) else {
            return keeper.finish();
        };
        let (batch, selection) = next?;
        observer(live);
        if keeper.replayed.files.len() + selected_count(&selection, batch.num_rows()) < inline_files
        {
            keeper.keep(&batch, &selection)?;
            continue;
        }
        let Some(following) = next_batch(&mut live) else {
            keeper.keep(&batch, &selection)?;
            return keeper.finish();
        };
        let following = following?;
        observer(live);
        // The queue holds both: it has room for more.
        for waiting in [(batch, selection), following] {
            progress.queued.fetch_add(1, Ordering::Relaxed);
            send.send(waiting)
                .map_err(|_| ReplayFailure::Rows("the listing queue closed".into()))?;
        }
        break;
    }
    keeper.progress = Some(Arc::clone(&progress));
    // A streamed replay's windows are visited on a thread of their own: the listing gathers
    // the next window meanwhile. The handover holds no window (a rendezvous), so at most the
    // window being visited and the one being handed over are held. No window has been
    // handed on yet: the calling thread lists only what may be the table's one window.
    let visiting = keeper.visit_elsewhere();
    std::thread::scope(|scope| {
        let (visitor, namer) = spawn_visitors(scope, visiting);
        let listing = scope.spawn(move || {
            for (batch, selection) in receive {
                keeper.queued_taken();
                keeper.keep(&batch, &selection)?;
            }
            keeper.finish()
        });
        let mut replay = || -> Result<(), ReplayFailure> {
            while let Some(next) = next_batch(&mut live) {
                let next = next?;
                progress.queued.fetch_add(1, Ordering::Relaxed);
                if send.send(next).is_err() {
                    // The listing stopped on an error of its own; joining it below reports
                    // that.
                    break;
                }
                observer(live);
            }
            Ok(())
        };
        let replayed = replay();
        // The windows still to come (the queued batches, the window being gathered) may
        // take the core the replay leaves.
        progress.done.store(true, Ordering::Relaxed);
        drop(send);
        let kept = listing.join().unwrap_or_else(|_| {
            Err(ReplayFailure::Rows(
                "the thread keeping the scan rows panicked".into(),
            ))
        });
        let visited = visitor.map(|visitor| {
            visitor.join().unwrap_or_else(|_| {
                Err(ReplayFailure::Rows(
                    "the thread visiting the windows panicked".into(),
                ))
            })
        });
        let named = namer.map(|namer| {
            namer.join().unwrap_or_else(|_| {
                Err(ReplayFailure::Rows(
                    "the thread naming the partitions panicked".into(),
                ))
            })
        });
        // The kernel's error first, then the visitor's (the listing stops when the visitor
        // does, on a handover no one takes), then the naming's (likewise; it stops only on a
        // table of more partitions than ids), then the listing's.
        replayed?;
        visited.transpose()?;
        let named = named.transpose()?;
        let mut kept = kept?;
        if let Some(named) = named {
            kept.partitions = named;
        }
        Ok(kept)
    })
}

/// A helper thread of the replay, its outcome joined at the end.
type Helper<'scope, T> = std::thread::ScopedJoinHandle<'scope, Result<T, ReplayFailure>>;

/// The threads visiting a streamed replay's windows and naming their partitions in the
/// table's list; none for a replay kept whole.
fn spawn_visitors<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    visiting: Option<Visiting<'env, '_>>,
) -> (
    Option<Helper<'scope, ()>>,
    Option<Helper<'scope, DistinctPartitions>>,
) {
    match visiting {
        Some(Visiting {
            sink,
            windows,
            mut named,
            partitions,
        }) => (
            Some(scope.spawn(move || -> Result<(), ReplayFailure> {
                for window in windows {
                    sink.window(window).map_err(ReplayFailure::Sink)?;
                }
                Ok(())
            })),
            Some(
                scope.spawn(move || -> Result<DistinctPartitions, ReplayFailure> {
                    for window in partitions {
                        name_in_table(&mut named, &window).map_err(ReplayFailure::Rows)?;
                    }
                    Ok(named)
                }),
            ),
        ),
        None => (None, None),
    }
}

/// The files a base scan lists on the calling thread before the listing moves to a thread
/// of its own (see [`replay_with`]).
const INLINE_FILES: usize = WINDOW_ROWS;

/// Where the listing's rows go.
enum Out<'a, 'b> {
    /// Nowhere: the replay is kept whole.
    Whole,
    /// To a sink the listing hands each window to itself.
    Sink(&'a mut (dyn WindowSink + 'b)),
    /// To the thread that hands each window to the sink while the listing gathers the next,
    /// and the window's partitions to the thread naming them in the table's list.
    Visitor {
        windows: SyncSender<Window>,
        partitions: SyncSender<PartitionList>,
    },
}

/// What the threads visiting a streamed replay's windows and naming their partitions hold:
/// the sink and the handover's receiving end; the table's partition list so far and the
/// windows' lists to name in it.
struct Visiting<'a, 'b> {
    sink: &'a mut (dyn WindowSink + 'b),
    windows: Receiver<Window>,
    named: DistinctPartitions,
    partitions: Receiver<PartitionList>,
}

/// WindowBuilder' partition lists queued for the thread naming them in the table's list: enough
/// that the listing rarely waits on it, each list no longer than its window.
const LISTS_IN_FLIGHT: usize = 4;

/// The listing side of a base scan: the rows kept so far, and where windows go.
struct Keeper<'a, 'b> {
    replayed: Replayed,
    out: Out<'a, 'b>,
    /// How many files a window gathers (a replay kept whole has no windows).
    window_files: usize,
    /// Whether a window has been handed on (a table without files hands on one, empty).
    handed_on: bool,
    /// Whether a window with a file without JSON statistics restarts the replay.
    restart_without_stats: bool,
    /// The replay ahead of the listing, once the listing has a thread of its own (`None` on
    /// the calling thread: nothing waits, and the replay is not done while it lists).
    progress: Option<Arc<ReplayProgress>>,
    /// The table's partition list, while windows are handed on by the listing itself
    /// (`Out::Sink`); a replay kept whole names its files in `replayed.partitions` directly.
    named: DistinctPartitions,
}

impl<'a, 'b> Keeper<'a, 'b> {
    /// The listing side of a replay handing windows to `sink`, or kept whole without one.
    fn new(sink: Option<&'a mut (dyn WindowSink + 'b)>, stats: Statistics) -> Self {
        let window_files = sink.as_deref().map(|sink| sink.window_files());
        Keeper {
            replayed: Replayed::default(),
            out: match sink {
                Some(sink) => Out::Sink(sink),
                None => Out::Whole,
            },
            window_files: window_files.unwrap_or(usize::MAX),
            handed_on: false,
            progress: None,
            named: DistinctPartitions::default(),
            // Rows without JSON statistics make a json-only replay start again with struct
            // statistics asked for; a replay that already asked keeps them as they come.
            restart_without_stats: stats == Statistics::Json,
        }
    }
}

impl<'a, 'b> Keeper<'a, 'b> {
    /// One waiting batch is taken off the queue.
    fn queued_taken(&self) {
        if let Some(progress) = &self.progress {
            progress.queued.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Whether the kernel's replay leaves its core idle: the queue is full as the window is
    /// handed on (the listing itself is behind the replay, as on a partition per file), or
    /// the replay has sent its last batch (the windows left have its core to themselves: on
    /// a checkpoint the replay outruns the windows' scans, which would then finish on one
    /// core). A replay held back by the visits alone is not counted idle: the listing has
    /// just taken a window's batches off the queue when it hands the window on, and while
    /// the replay still has batches to decode, a second scan set up per window costs more
    /// than it gives (measured in `reports/scaling-20261203/notes.md`).
    fn replay_idle(&self) -> bool {
        self.progress.as_ref().is_some_and(|p| {
            p.queued.load(Ordering::Relaxed) >= BEHIND_AT || p.done.load(Ordering::Relaxed)
        })
    }

    /// Hands the windows to a thread of their own, and their partitions to another, from now
    /// on: what those threads need, or `None` for a replay kept whole.
    fn visit_elsewhere(&mut self) -> Option<Visiting<'a, 'b>> {
        let (handover, windows) = std::sync::mpsc::sync_channel::<Window>(0);
        let (lists, partitions) = std::sync::mpsc::sync_channel::<PartitionList>(LISTS_IN_FLIGHT);
        let out = Out::Visitor {
            windows: handover,
            partitions: lists,
        };
        match std::mem::replace(&mut self.out, out) {
            Out::Sink(sink) => Some(Visiting {
                sink,
                windows,
                named: std::mem::take(&mut self.named),
                partitions,
            }),
            other => {
                self.out = other;
                None
            }
        }
    }

    /// Keeps one scan batch's selected rows, and hands them on once they make a window.
    fn keep(&mut self, batch: &RecordBatch, selection: &[bool]) -> Result<(), ReplayFailure> {
        self.replayed.take(batch, selection)?;
        if !matches!(self.out, Out::Whole) && self.replayed.files.len() >= self.window_files {
            self.hand_on()?;
        }
        Ok(())
    }

    /// Hands on the last window (the only one, empty, of a table without files), and leaves
    /// what is kept: with the table's partition list where windows were handed on here (the
    /// thread naming them gives it where they were not).
    fn finish(mut self) -> Result<Replayed, ReplayFailure> {
        if !matches!(self.out, Out::Whole) {
            if !self.handed_on || !self.replayed.files.is_empty() {
                self.hand_on()?;
            }
            self.replayed.partitions = std::mem::take(&mut self.named);
        }
        Ok(self.replayed)
    }

    /// Hands the rows gathered so far on as one window, with the partitions its files were
    /// named in, and forgets them; those partitions are named in the table's list too (here,
    /// or on the thread naming them).
    fn hand_on(&mut self) -> Result<(), ReplayFailure> {
        if self.restart_without_stats && self.replayed.files.iter().any(|f| !f.has_stats) {
            return Err(ReplayFailure::Restart);
        }
        let replay_idle = self.replay_idle();
        let replayed = &mut self.replayed;
        let partitions = replayed.partitions.take_table();
        let window = Window {
            cached_rows: std::mem::take(&mut replayed.cached_rows),
            batch_starts: std::mem::take(&mut replayed.batch_starts),
            files: std::mem::take(&mut replayed.files),
            partitions: Arc::clone(&partitions),
            replay_idle,
        };
        self.handed_on = true;
        match &mut self.out {
            // A replay kept whole has no windows: `keep` and `finish` hand nothing on.
            Out::Whole => Ok(()),
            Out::Sink(sink) => {
                name_in_table(&mut self.named, &partitions).map_err(ReplayFailure::Rows)?;
                sink.window(window).map_err(ReplayFailure::Sink)
            }
            Out::Visitor {
                windows,
                partitions: lists,
            } => {
                lists.send(partitions).map_err(|_| {
                    // The naming stopped on an error of its own; joining it reports that.
                    ReplayFailure::Rows("the thread naming the partitions stopped".into())
                })?;
                windows.send(window).map_err(|_| {
                    // The visitor stopped on an error of its own; joining it reports that.
                    ReplayFailure::Rows("the thread visiting the windows stopped".into())
                })
            }
        }
    }
}

/// `batch` without its `stats_parsed` column, if it has one: the phase scans are given the
/// rows in the shape of a JSON-statistics scan, and the struct would only hold memory.
fn without_stats_parsed(batch: &RecordBatch) -> RecordBatch {
    match batch.schema().index_of("stats_parsed") {
        Ok(at) => {
            let mut batch = batch.clone();
            batch.remove_column(at);
            batch
        }
        Err(_) => batch.clone(),
    }
}

/// Above this many runs of selected rows a batch is copied instead of sliced, so a batch
/// that interleaves adds with other actions does not become thousands of tiny slices.
const MAX_SLICES_PER_BATCH: usize = 8;

/// The rows of `batch` its selection vector keeps (rows past a short vector are kept, as in
/// `FilteredEngineData`). The selected rows of a scan batch mostly form a few runs (a
/// commit's adds after its commit info, a checkpoint part's adds after protocol and
/// metadata), and a run is a zero-copy slice; anything more fragmented is copied once.
fn selected_rows(
    batch: &RecordBatch,
    selection: &[bool],
) -> Result<Vec<RecordBatch>, delta_kernel::KernelError> {
    let is_selected = |row: usize| is_selected(selection, row);
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for row in (0..batch.num_rows()).filter(|&r| is_selected(r)) {
        match runs.last_mut() {
            Some((start, len)) if *start + *len == row => *len += 1,
            _ => runs.push((row, 1)),
        }
    }
    if runs.len() <= MAX_SLICES_PER_BATCH {
        return Ok(runs
            .into_iter()
            .map(|(start, len)| batch.slice(start, len))
            .collect());
    }
    let mask = BooleanArray::from(
        (0..batch.num_rows())
            .map(is_selected)
            .collect::<Vec<bool>>(),
    );
    let selected = filter_record_batch(batch, &mask)
        .map_err(|e| delta_kernel::KernelError::Generic(e.to_string()))?;
    Ok(vec![selected])
}

/// The id of the partition holding `entries`, or the error of a snapshot with more distinct
/// partitions than 32-bit ids name.
fn partition_id(
    partitions: &mut DistinctPartitions,
    entries: Option<&[(&str, Option<&str>)]>,
) -> Result<usize, String> {
    partitions.id_of(entries).ok_or_else(|| {
        format!(
            "the snapshot has more than {} distinct partitions",
            u32::MAX - 1
        )
    })
}

/// Reads the live files out of a batch of kernel scan rows (`scan_row_schema`), each file's
/// record count off the front of its statistics: here, on the listing thread while the kernel
/// replays the next batches, rather than in a pass of its own once the rows are kept.
/// They are appended to `out`, the replay's own list: no list per batch to copy over. Each
/// file's partition is named in `partitions`: a distinct set of values gets the next id the
/// first time it is met.
fn list_files(
    batch: &RecordBatch,
    partitions: &mut DistinctPartitions,
    out: &mut Vec<LiveFile>,
) -> Result<(), String> {
    let missing = |name: &str| format!("scan rows lack the `{name}` column");
    let paths = batch
        .column_by_name("path")
        .and_then(|c| c.as_string_opt::<i32>())
        .ok_or_else(|| missing("path"))?;
    let sizes = batch
        .column_by_name("size")
        .and_then(|c| c.as_primitive_opt::<Int64Type>())
        .ok_or_else(|| missing("size"))?;
    let stats = batch
        .column_by_name("stats")
        .and_then(|c| c.as_string_opt::<i32>())
        .ok_or_else(|| missing("stats"))?;
    let dvs = batch
        .column_by_name("deletionVector")
        .and_then(|c| c.as_struct_opt())
        .ok_or_else(|| missing("deletionVector"))?;
    let dv_storage = dvs.column_by_name("storageType");
    let dv_cardinality = dvs
        .column_by_name("cardinality")
        .and_then(|c| c.as_primitive_opt::<Int64Type>());
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
    let keys = partition_maps
        .keys()
        .as_string_opt::<i32>()
        .ok_or_else(|| missing("partitionValues keys"))?;
    let values = partition_maps
        .values()
        .as_string_opt::<i32>()
        .ok_or_else(|| missing("partitionValues values"))?;
    // Files of one partition mostly come in runs (a commit's adds, a checkpoint's rows), so a
    // file whose entries equal the previous file's takes its id without a lookup; the entries
    // are gathered into two buffers, this file's and the previous one's, reused from file to
    // file.
    let mut entries: Vec<(&str, Option<&str>)> = Vec::new();
    let mut previous_entries: Vec<(&str, Option<&str>)> = Vec::new();
    // Whether the previous file had a map, and its partition.
    let mut previous: Option<(bool, usize)> = None;
    out.reserve(batch.num_rows());
    // Checked once per batch, not per row.
    if paths.null_count() > 0
        && let Some(row) = (0..batch.num_rows()).find(|&row| paths.is_null(row))
    {
        return Err(format!("scan row {row} has no path"));
    }
    for row in 0..batch.num_rows() {
        // A null map and an empty one are told apart: they share nothing.
        let has_map = partition_maps.is_valid(row);
        entries.clear();
        if has_map {
            entries.extend(
                (offsets[row] as usize..offsets[row + 1] as usize)
                    .map(|i| (keys.value(i), values.is_valid(i).then(|| values.value(i)))),
            );
        }
        let partition = match previous {
            Some((previous_has_map, id))
                if previous_has_map == has_map && previous_entries == entries =>
            {
                id
            }
            _ => {
                let id = partition_id(partitions, has_map.then_some(entries.as_slice()))?;
                std::mem::swap(&mut entries, &mut previous_entries);
                previous = Some((has_map, id));
                id
            }
        };
        let has_deletion_vector = dvs.is_valid(row) && dv_storage.is_some_and(|s| s.is_valid(row));
        let deleted_records = match dv_cardinality {
            Some(c) if has_deletion_vector && c.is_valid(row) => {
                u64::try_from(c.value(row)).unwrap_or(0)
            }
            Some(_) | None => 0,
        };
        let stats_json = stats.is_valid(row).then(|| stats.value(row));
        out.push(LiveFile {
            size_bytes: if sizes.is_valid(row) {
                sizes.value(row)
            } else {
                0
            },
            num_records: stats_json.and_then(num_records),
            has_stats: stats_json.is_some(),
            partition,
            has_deletion_vector,
            deleted_records,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A partition met again, in a later batch, is found by the batch's borrowed strings: the
    /// borrowed key hashes and compares as the owned one does. A null map, an empty map and a
    /// null value are three partitions.
    #[test]
    fn a_partition_met_again_keeps_its_id() {
        let mut partitions = DistinctPartitions::default();
        let mut id_of =
            |entries: Option<&[(&str, Option<&str>)]>| partitions.id_of(entries).unwrap();
        let x = id_of(Some(&[("p", Some("x")), ("q", Some("1"))]));
        let null_map = id_of(None);
        let empty_map = id_of(Some(&[]));
        let null_value = id_of(Some(&[("p", None)]));
        let ids = [x, null_map, empty_map, null_value];
        assert_eq!(ids, [0, 1, 2, 3], "four partitions");
        for _ in 0..2 {
            assert_eq!(id_of(Some(&[("p", Some("x")), ("q", Some("1"))])), x);
            assert_eq!(id_of(None), null_map);
            assert_eq!(id_of(Some(&[])), empty_map);
            assert_eq!(id_of(Some(&[("p", None)])), null_value);
        }
        assert_eq!(
            id_of(Some(&[("q", Some("1")), ("p", Some("x"))])),
            4,
            "entries in another order are another key, as before"
        );
        // Enough partitions that the id table grows many times over: each keeps its id
        // across the growth (a slot is placed again by its kept fragment).
        let many: Vec<String> = (0..20_000).map(|i| format!("v{i}")).collect();
        let first: Vec<usize> = many
            .iter()
            .map(|v| id_of(Some(&[("p", Some(v))])))
            .collect();
        assert_eq!(first, (5..20_005).collect::<Vec<_>>());
        let again: Vec<usize> = many
            .iter()
            .map(|v| id_of(Some(&[("p", Some(v))])))
            .collect();
        assert_eq!(again, first);
        let values = &partitions.table;
        assert_eq!(values.len(), 20_005);
        assert_eq!(values.partition(x).get("p"), Some(Some("x")));
        assert_eq!(values.partition(null_value).get("p"), Some(None));
        assert!(values.partition(null_map).is_null_map());
        assert!(!values.partition(empty_map).is_null_map());
        assert_eq!(values.partition(20_004).get("p"), Some(Some("v19999")));
    }
}
