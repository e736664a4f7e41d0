//! What the performance claims measure: metadata-only tables of a given shape, and the three
//! ways of explaining a predicate on them.
//!
//! - (a) [`floor_scan`]: one delta_kernel scan with the full predicate, the least any reader
//!   pays to learn the surviving files;
//! - (b) [`naive_explain`]: three independent kernel scans (no predicate, the partition
//!   fragment, the full predicate), each replaying the log again;
//! - (c) [`delta_explain`]: the tool itself, in process: one replay, both phase scans over the
//!   cached rows, and the JSON report.
//!
//! The criterion benches (`benchmarks/benches/scaling.rs`) and the scaling report
//! (`src/bin/scaling.rs`) run these same functions, so the two cannot measure different things.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use delta_kernel::arrow::array::{Array, AsArray, RecordBatch};
use delta_kernel::engine::arrow_data::ArrowEngineData;

use delta_kernel::scan::StatsOptions;
use delta_kernel::{PredicateRef, Snapshot};
use explain_compiler::schema::TableColumns;
use explain_core::explain::{CompiledPredicate, ExplainOptions, KernelScans, kernel_scans};
use explain_core::replay::{is_selected, open_engine, plain_engine, selected_count};
use explain_core::request::ExplainRequest;
use explain_core::stream::explain_streaming;
use serde::{Deserialize, Serialize};
use storage::StorageOptions;

/// The log's layout: commits only, or one checkpoint holding every add.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogLayout {
    JsonCommits,
    Checkpoint,
}

/// The shape of a metadata-only benchmark table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StoredShape")]
pub struct TableShape {
    pub files: usize,
    pub partitioning: Partitioning,
    pub layout: LogLayout,
}

/// A shape as a report stores it: reports written before shapes had a partitioning say
/// `partitioned: true|false`, so `scaling render` still reads them.
#[derive(Deserialize)]
struct StoredShape {
    files: usize,
    #[serde(default)]
    partitioning: Option<Partitioning>,
    #[serde(default)]
    partitioned: bool,
    layout: LogLayout,
}

impl From<StoredShape> for TableShape {
    fn from(stored: StoredShape) -> Self {
        let partitioning = stored.partitioning.unwrap_or(if stored.partitioned {
            Partitioning::Partitioned
        } else {
            Partitioning::Flat
        });
        TableShape {
            files: stored.files,
            partitioning,
            layout: stored.layout,
        }
    }
}

/// How a shape's files are partitioned by the string column `p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Partitioning {
    /// No partition column.
    Flat,
    /// [`PARTITIONS`] values, `p0` .. `p9`, the files spread evenly: a table partitioned by
    /// day or region.
    Partitioned,
    /// A partition per file, `p0` .. `p{n-1}`: a column of high cardinality (an id, a
    /// timestamp) chosen as the partition column, every partition a file of its own.
    PartitionPerFile,
}

impl Partitioning {
    pub fn name(self) -> &'static str {
        match self {
            Partitioning::Flat => "flat",
            Partitioning::Partitioned => "partitioned",
            Partitioning::PartitionPerFile => "partition-per-file",
        }
    }

    /// The distinct values of `p` in a table of `files` files (0: no partition column).
    pub fn partitions(self, files: usize) -> usize {
        match self {
            Partitioning::Flat => 0,
            Partitioning::Partitioned => PARTITIONS,
            Partitioning::PartitionPerFile => files,
        }
    }

    pub fn has_partition_column(self) -> bool {
        self != Partitioning::Flat
    }
}

/// Partition values of a partitioned shape: `p0` .. `p9`.
pub const PARTITIONS: usize = 10;
/// Adds per JSON commit of a commits-only shape: a 1M-file table is 100 commits, as a busy
/// streaming table's log between checkpoints might be.
pub const ADDS_PER_COMMIT: usize = 10_000;

impl TableShape {
    /// Every shape of one size: both layouts, partitioned and not.
    pub fn all_of(files: usize) -> Vec<TableShape> {
        Self::of_partitionings(files, &[Partitioning::Flat, Partitioning::Partitioned])
    }

    /// The high-cardinality shapes of one size: both layouts, a partition per file.
    pub fn high_cardinality(files: usize) -> Vec<TableShape> {
        Self::of_partitionings(files, &[Partitioning::PartitionPerFile])
    }

    fn of_partitionings(files: usize, partitionings: &[Partitioning]) -> Vec<TableShape> {
        let mut out = Vec::new();
        for layout in [LogLayout::Checkpoint, LogLayout::JsonCommits] {
            for partitioning in partitionings {
                out.push(TableShape {
                    files,
                    partitioning: *partitioning,
                    layout,
                });
            }
        }
        out
    }

    /// A stable name: `checkpoint-partitioned-100000`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.config_name().replace('/', "-"), self.files)
    }

    /// The shape without its size: `checkpoint/partitioned`, one line of the plots.
    pub fn config_name(&self) -> String {
        let layout = match self.layout {
            LogLayout::JsonCommits => "json-commits",
            LogLayout::Checkpoint => "checkpoint",
        };
        format!("{layout}/{}", self.partitioning.name())
    }

    /// Writes the table under `root` (a folder per shape) unless it is there already.
    pub fn write(&self, root: &Path) -> Result<PathBuf, String> {
        let dir = root
            .join(self.config_name().replace('/', "-"))
            .join(self.files.to_string());
        if dir.join("_delta_log").is_dir() {
            return Ok(dir);
        }
        let partitions = self.partitioning.partitions(self.files);
        let checkpoint = self.layout == LogLayout::Checkpoint;
        generators::writer::write_metadata_only(
            &dir,
            self.files,
            partitions,
            checkpoint,
            ADDS_PER_COMMIT,
        )?;
        Ok(dir)
    }

    /// The predicate explained on this shape. File `i` holds ids `[1000 i, 1000 i + 999]`, so
    /// `id < 100 n` keeps the first tenth of the files; a partitioned shape adds one partition
    /// value (one of ten, or one file's). Both phases have work to do, and the data phase a
    /// column the stats hold.
    pub fn predicate(&self) -> String {
        let ids = format!("id < {}", self.files * 100);
        if self.partitioning.has_partition_column() {
            format!("p = 'p3' AND {ids} AND value >= 0")
        } else {
            format!("{ids} AND value >= 0")
        }
    }
}

/// The kinds of predicate whose cost the scaling report measures, each against one kernel
/// scan of the same predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum PredicateClass {
    /// No predicate: the baseline alone.
    None,
    /// Partition columns only: one file per partition asked.
    PartitionOnly,
    /// Data columns only: data skipping alone.
    DataOnly,
    /// A partition conjunct and data conjuncts: both phases.
    Mixed,
    /// A conjunct outside the pruning language beside one data skipping evaluates.
    Unsupported,
    /// An OR of a partition column and a data column: neither phase credited alone.
    MixedOr,
}

impl PredicateClass {
    pub const ALL: [PredicateClass; 6] = [
        PredicateClass::None,
        PredicateClass::PartitionOnly,
        PredicateClass::DataOnly,
        PredicateClass::Mixed,
        PredicateClass::Unsupported,
        PredicateClass::MixedOr,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PredicateClass::None => "none",
            PredicateClass::PartitionOnly => "partition-only",
            PredicateClass::DataOnly => "data-only",
            PredicateClass::Mixed => "mixed",
            PredicateClass::Unsupported => "unsupported",
            PredicateClass::MixedOr => "mixed-or",
        }
    }
}

impl TableShape {
    /// The predicate of `class` on this shape: `None` where the class needs partition
    /// columns the shape lacks, `Some(None)` for no predicate. The data conjuncts keep the
    /// first tenth of the files, the partition conjunct one partition (of ten, or one file's).
    pub fn predicate_of(&self, class: PredicateClass) -> Option<Option<String>> {
        let ids = format!("id < {}", self.files * 100);
        let partitioned = || self.partitioning.has_partition_column().then_some(());
        Some(match class {
            PredicateClass::None => None,
            PredicateClass::PartitionOnly => {
                partitioned()?;
                Some("p = 'p3'".to_string())
            }
            PredicateClass::DataOnly => Some(format!("{ids} AND value >= 0")),
            PredicateClass::Mixed => {
                partitioned()?;
                Some(format!("p = 'p3' AND {ids} AND value >= 0"))
            }
            PredicateClass::Unsupported => Some(format!("{ids} AND id % 7 = 3")),
            PredicateClass::MixedOr => {
                partitioned()?;
                Some(format!("p = 'p3' OR {ids}"))
            }
        })
    }
}

/// The kernel predicates of both phases of `predicate`, compiled against the table's schema
/// alone (no replay), exactly as the tool lowers them.
pub fn scan_predicates(location: &str, predicate: &str) -> Result<KernelScans, String> {
    let (url, engine) = open_engine(location).map_err(|e| e.to_string())?;
    let snapshot = Snapshot::builder_for(url.as_str())
        .build(engine.as_ref())
        .map_err(|e| e.to_string())?;
    let columns = TableColumns::of_snapshot(&snapshot);
    let compiled =
        CompiledPredicate::compile_against(predicate, &columns).map_err(|e| e.to_string())?;
    kernel_scans(&compiled, &columns, ExplainOptions::default()).map_err(|e| e.to_string())
}

/// (a) One kernel scan from a fresh engine: snapshot, log replay, skipping with `predicate`.
/// Returns the surviving files.
pub fn floor_scan(location: &str, predicate: Option<PredicateRef>) -> Result<usize, String> {
    floor_scan_with(location, &StorageOptions::default(), predicate)
}

/// [`floor_scan`] of a table whose store needs options.
pub fn floor_scan_with(
    location: &str,
    storage: &StorageOptions,
    predicate: Option<PredicateRef>,
) -> Result<usize, String> {
    let mut survivors = 0;
    each_scan_batch(location, storage, None, predicate, |batch, selection| {
        survivors += selected_count(selection, batch.num_rows());
        Ok(())
    })?;
    Ok(survivors)
}

/// The paths one fresh delta_kernel scan with `predicate` keeps at `version` (latest when
/// `None`): its own snapshot, its own replay, default options. What every cheaper way of
/// asking the kernel must agree with.
pub fn fresh_scan_paths(
    location: &str,
    version: Option<u64>,
    predicate: Option<PredicateRef>,
) -> Result<BTreeSet<String>, String> {
    let mut kept = BTreeSet::new();
    each_scan_batch(
        location,
        &StorageOptions::default(),
        version,
        predicate,
        |batch, selection| {
            let paths = batch
                .column_by_name("path")
                .and_then(|c| c.as_string_opt::<i32>())
                .ok_or("scan rows without paths")?;
            kept.extend(
                (0..paths.len())
                    .filter(|&row| is_selected(selection, row) && paths.is_valid(row))
                    .map(|row| paths.value(row).to_string()),
            );
            Ok(())
        },
    )?;
    Ok(kept)
}

/// One plain delta_kernel scan, as a reader runs it: its own engine and snapshot at `version`
/// (latest when `None`), default options; `visit` sees each batch of scan rows and its
/// selection vector.
fn each_scan_batch(
    location: &str,
    storage: &StorageOptions,
    version: Option<u64>,
    predicate: Option<PredicateRef>,
    mut visit: impl FnMut(&RecordBatch, &[bool]) -> Result<(), String>,
) -> Result<(), String> {
    let (url, engine) = plain_engine(location, storage).map_err(|e| e.to_string())?;
    let mut builder = Snapshot::builder_for(url.as_str());
    if let Some(v) = version {
        builder = builder.at_version(v);
    }
    let snapshot = builder.build(engine.as_ref()).map_err(|e| e.to_string())?;
    let scan = snapshot
        .scan_builder()
        .with_predicate(predicate)
        .with_stats(StatsOptions::default())
        .build()
        .map_err(|e| e.to_string())?;
    for meta in scan
        .scan_metadata(engine.as_ref())
        .map_err(|e| e.to_string())?
    {
        let (data, selection) = meta.map_err(|e| e.to_string())?.scan_files.into_parts();
        let data = ArrowEngineData::try_from_engine_data(data).map_err(|e| e.to_string())?;
        visit(data.record_batch(), &selection)?;
    }
    Ok(())
}

/// (b) The naive explain: the baseline, the partition fragment and the full predicate, each
/// its own kernel scan with its own replay. Returns the three survivor counts.
pub fn naive_explain(location: &str, scans: &KernelScans) -> Result<[usize; 3], String> {
    Ok([
        floor_scan(location, None)?,
        floor_scan(location, scans.partition.clone())?,
        floor_scan(location, scans.full.clone())?,
    ])
}

/// (c) The tool in process, as `delta-explain TABLE --where PREDICATE --format json` runs it:
/// one streamed replay, the phase scans of each window, the report. Returns the JSON report.
pub fn delta_explain(location: &str, predicate: &str) -> Result<String, String> {
    delta_explain_with(location, &StorageOptions::default(), Some(predicate))
}

/// [`delta_explain`] of a table whose store needs options, with or without a predicate
/// (`delta-explain TABLE --format json`).
pub fn delta_explain_with(
    location: &str,
    storage: &StorageOptions,
    predicate: Option<&str>,
) -> Result<String, String> {
    let started = std::time::Instant::now();
    let request = ExplainRequest::new(location)
        .storage(storage.clone())
        .predicate(predicate.map(str::to_string));
    let streamed = explain_streaming(&request, &mut |_| {}).map_err(|e| e.to_string())?;
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(streamed.report(elapsed_ms).to_json())
}

/// The `final_files` of a JSON report.
pub fn final_files(report: &str) -> Result<usize, String> {
    // Only the count is read; the rest of the document is skipped unbuilt, so reading the
    // answer back costs the measurement little beside what delta-explain did.
    #[derive(serde::Deserialize)]
    struct Counted {
        final_files: Option<u64>,
    }
    let counted: Counted = serde_json::from_str(report).map_err(|e| e.to_string())?;
    counted
        .final_files
        .map(|n| n as usize)
        .ok_or_else(|| "the report has no final_files".to_string())
}

/// The process's peak and current resident set, in KiB, from `/proc/self/status` (Linux);
/// `None` elsewhere.
pub fn resident_kib() -> Option<(u64, u64)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    Some((field("VmHWM:")?, field("VmRSS:")?))
}

/// CPU time this process has used so far, user and system, every thread (those that have
/// ended too): ms, to the microsecond where the clock allows (`CLOCK_PROCESS_CPUTIME_ID`;
/// a table of a thousand files takes a few milliseconds, below `/proc`'s 10 ms ticks), else
/// from `/proc/self/stat`.
#[allow(unsafe_code)] // libc's clock_gettime
pub fn cpu_ms() -> Option<f64> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through a pointer to a live local.
    if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) } == 0 {
        return Some(now.tv_sec as f64 * 1000.0 + now.tv_nsec as f64 / 1e6);
    }
    cpu_ms_from_proc()
}

/// [`cpu_ms`] from `/proc/self/stat` (fields 14 and 15, in USER_HZ ticks of 10 ms).
fn cpu_ms_from_proc() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name may hold spaces; the fields after it are space-separated.
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // `after_name` starts at field 3 (state), so field n is at index n - 3.
    let ticks = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some((ticks(14)? + ticks(15)?) as f64 * 10.0)
}

/// Least-squares slope of `ln y` against `ln x`: 1 is linear growth.
pub fn log_log_slope(points: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let n = logs.len() as f64;
    let mean_x = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// The median of a non-empty sample.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Plain DataFusion over a list of Parquet files: `SELECT count(*) FROM files WHERE ...`, the
/// yardstick for the oracle's per-file matching. It parses SQL as the oracle's session does.
pub struct ParquetCount {
    ctx: datafusion::prelude::SessionContext,
    runtime: tokio::runtime::Runtime,
}

impl ParquetCount {
    pub fn new(files: Vec<String>) -> Result<Self, String> {
        let ctx = oracle::matching::session(2);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        runtime.block_on(async {
            let options = datafusion::prelude::ParquetReadOptions::default();
            let df = ctx
                .read_parquet(files, options)
                .await
                .map_err(|e| e.to_string())?;
            ctx.register_table("parquet_files", df.into_view())
                .map_err(|e| e.to_string())
        })?;
        Ok(Self { ctx, runtime })
    }

    /// The rows of every file for which `predicate` is TRUE (deletion vectors not applied).
    pub fn count(&self, predicate: &str) -> Result<u64, String> {
        let sql = format!("SELECT count(*) FROM parquet_files WHERE {predicate}");
        let batches = self
            .runtime
            .block_on(async { self.ctx.sql(&sql).await?.collect().await })
            .map_err(|e| e.to_string())?;
        use arrow::array::AsArray;
        Ok(batches
            .iter()
            .filter(|b| b.num_rows() > 0)
            .map(|b| {
                b.column(0)
                    .as_primitive::<arrow::datatypes::Int64Type>()
                    .value(0) as u64
            })
            .sum())
    }
}

/// The oracle's loaded taxi, its Parquet files, and the corpus predicates over data columns
/// only (a plain Parquet read has no partition columns).
pub fn oracle_subject(
    taxi: &str,
) -> Result<(oracle::matching::LoadedTable, Vec<String>, Vec<String>), String> {
    let snapshot = oracle::log::Snapshot::open(taxi, None).map_err(|e| e.to_string())?;
    let partition_columns: Vec<String> = snapshot.partition_columns().to_vec();
    let loaded = oracle::matching::LoadedTable::load(snapshot, &oracle::planning::plan(2))
        .map_err(|e| e.to_string())?;
    let root = Path::new(taxi);
    let files = loaded
        .snapshot
        .files
        .iter()
        .map(|f| root.join(&f.path).to_string_lossy().to_string())
        .collect();
    let predicates = crate::corpus::read_corpus(&crate::corpus::corpus_path("taxi-nyc"))?
        .into_iter()
        .filter(|p| !partition_columns.iter().any(|c| p.contains(c.as_str())))
        .collect();
    Ok((loaded, files, predicates))
}

/// Runs `exe measure ARGS` (a report binary measuring itself in a child process, so each
/// mode's peak memory is its own) and reads the sample it prints as JSON.
pub fn measure_child<T: serde::de::DeserializeOwned>(
    exe: &Path,
    args: &[&std::ffi::OsStr],
    what: &str,
) -> Result<T, String> {
    let output = std::process::Command::new(exe)
        .arg("measure")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !output.status.success() {
        return Err(format!(
            "measure {what}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| format!("measure {what}: {e}"))
}

/// Over a mode's runs, `(peak, start)` resident sets in KiB each: the highest peak and the
/// largest working set (peak less the start), in MiB to two decimals.
pub fn memory_mib(runs: impl Iterator<Item = (u64, u64)>) -> (f64, f64) {
    let (peak, working) = runs.fold((0u64, 0u64), |(p, w), (peak, start)| {
        (p.max(peak), w.max(peak.saturating_sub(start)))
    });
    let mib = |kib: u64| round2(kib as f64 / 1024.0);
    (mib(peak), mib(working))
}

/// `v` to two decimals.
pub fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}
