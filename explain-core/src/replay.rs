//! One snapshot, one log replay, many scans.
//!
//! [`ReplayedTable::open`] resolves the snapshot and replays its log once with a
//! predicate-less kernel scan, keeping the reconciled add rows (path, size, stats,
//! partition values, deletion vector) in memory. Every phase scan then re-runs the kernel's
//! partition pruning and data skipping over those cached rows through
//! `Scan::scan_metadata_from` at the same version: no second replay, no second source of
//! truth that could disagree with the first.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use delta_kernel::arrow::array::{Array, AsArray, MapArray, RecordBatch, StructArray};
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
    pub partition_values: RawPartitionValues,
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
        let table_err = |reason: String| ExplainError::Table {
            table: location.to_string(),
            reason: one_line(&reason),
        };
        let (url, engine) = open_engine(location)?;
        let (snapshot, cached_rows) = replay_log(engine.as_ref(), &url, version, observer).map_err(|e| {
            let reason = kernel_message(&e);
            match locate_broken_file(engine.as_ref(), &url, version) {
                Some(file) => table_err(format!("{file}; the kernel said: {reason}")),
                None => table_err(reason),
            }
        })?;
        let columns = TableColumns::of_snapshot(&snapshot);
        let mut files = Vec::new();
        let mut batch_starts = Vec::with_capacity(cached_rows.len());
        for batch in &cached_rows {
            batch_starts.push(files.len());
            files.extend(live_files(batch).map_err(table_err)?);
        }
        let index_of = std::sync::OnceLock::new();
        let min_max_columns = min_max_columns(&snapshot).map_err(|e| table_err(kernel_message(&e)))?;
        Ok(Self { location: location.to_string(), engine, snapshot, columns, files, index_of, cached_rows, batch_starts, min_max_columns, features: Default::default(), present_values: Default::default() })
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
        let Some(predicate) = predicate else {
            return Ok(vec![true; self.files.len()]);
        };
        let scan_err = |e: delta_kernel::KernelError| ExplainError::Table {
            table: self.location.clone(),
            reason: one_line(&format!("kernel scan with `{predicate}` failed: {}", kernel_message(&e))),
        };
        let scan = self
            .snapshot
            .clone()
            .scan_builder()
            .with_predicate(predicate.clone())
            .with_stats(StatsOptions::json_only())
            .build()
            .map_err(scan_err)?;
        let rows: Vec<Box<dyn EngineData>> = self
            .cached_rows
            .iter()
            .map(|b| Box::new(ArrowEngineData::new(b.clone())) as Box<dyn EngineData>)
            .collect();
        let mut kept = vec![false; self.files.len()];
        let outputs = scan
            .scan_metadata_from(self.engine.as_ref(), self.version(), rows, Some(predicate.clone()))
            .map_err(scan_err)?;
        // The kernel re-plays the cached batches in order and answers each with a selection
        // vector over the same rows, so output batch k row j is cached batch k row j. That is
        // checked, not assumed: a selected row's path must be the file at that position, and
        // anything else falls back to finding the file by path.
        let mut offset = 0usize;
        for (k, meta) in outputs.enumerate() {
            let meta = meta.map_err(scan_err)?;
            let (data, selection) = meta.scan_files.into_parts();
            let batch = ArrowEngineData::try_from_engine_data(data).map_err(scan_err)?;
            let batch = batch.record_batch();
            let paths = batch.column_by_name("path").and_then(|c| c.as_string_opt::<i32>()).ok_or_else(|| {
                ExplainError::Table { table: self.location.clone(), reason: "kernel scan rows have no path column".into() }
            })?;
            let aligned = self.cached_rows.get(k).is_some_and(|c| c.num_rows() == batch.num_rows());
            for row in 0..batch.num_rows() {
                // Rows past a short selection vector are selected (FilteredEngineData).
                if !selection.get(row).copied().unwrap_or(true) || paths.is_null(row) {
                    continue;
                }
                let path = paths.value(row);
                let index = match aligned.then(|| offset + row).filter(|i| self.files.get(*i).is_some_and(|f| f.path == path)) {
                    Some(i) => i,
                    None => *self.index_of().get(path).ok_or_else(|| ExplainError::Table {
                        table: self.location.clone(),
                        reason: format!("a phase scan returned `{path}`, which the replay did not list"),
                    })?,
                };
                kept[index] = true;
            }
            offset += batch.num_rows();
        }
        Ok(kept)
    }
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

/// Builds the snapshot and runs the one predicate-less base scan, keeping its rows (selection
/// vector applied): the replayed add metadata every phase re-evaluates.
fn replay_log(
    engine: &dyn Engine,
    url: &Url,
    version: Option<u64>,
    observer: &mut dyn FnMut(usize),
) -> Result<(SnapshotRef, Vec<RecordBatch>), delta_kernel::KernelError> {
    let mut builder = Snapshot::builder_for(url.as_str());
    if let Some(v) = version {
        builder = builder.at_version(v);
    }
    let snapshot = builder.build(engine)?;
    let base = snapshot.clone().scan_builder().with_stats(StatsOptions::json_only()).build()?;
    let mut rows = Vec::new();
    let mut live = 0usize;
    for meta in base.scan_metadata(engine)? {
        let selected = meta?.scan_files.apply_selection_vector()?;
        let batch: RecordBatch = ArrowEngineData::try_from_engine_data(selected)?.record_batch().clone();
        if batch.num_rows() > 0 {
            live += batch.num_rows();
            rows.push(batch);
            observer(live);
        }
    }
    Ok((snapshot, rows))
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

/// Reads the live files out of a batch of kernel scan rows (`scan_row_schema`).
fn live_files(batch: &RecordBatch) -> Result<Vec<LiveFile>, String> {
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

    let mut out = Vec::with_capacity(batch.num_rows());
    for row in 0..batch.num_rows() {
        if paths.is_null(row) {
            return Err(format!("scan row {row} has no path"));
        }
        let mut partition_values = RawPartitionValues::new();
        if partition_maps.is_valid(row) {
            let entries = partition_maps.value(row);
            let keys = entries.column(0).as_string_opt::<i32>().ok_or_else(|| missing("partitionValues keys"))?;
            let values = entries.column(1).as_string_opt::<i32>().ok_or_else(|| missing("partitionValues values"))?;
            for i in 0..entries.len() {
                let value = values.is_valid(i).then(|| values.value(i).to_string());
                partition_values.insert(keys.value(i).to_string(), value);
            }
        }
        let has_deletion_vector =
            dvs.is_valid(row) && dv_storage.is_some_and(|s| s.is_valid(row));
        out.push(LiveFile {
            path: paths.value(row).to_string(),
            size_bytes: if sizes.is_valid(row) { sizes.value(row) } else { 0 },
            has_stats: stats.is_valid(row),
            partition_values,
            has_deletion_vector,
        });
    }
    Ok(out)
}
