//! `delta-explain advise`: what other layouts of a table would do to a workload of predicates,
//! before the table is rewritten.
//!
//! The live rows are read once by the oracle's reader (or a seeded sample of them,
//! [`rows`]), laid out under each candidate layout ([`layout`]: the current files; partition
//! by a column; sort by a column; Z-order and Hilbert order on two to four columns), cut into
//! files of the target size, and each simulated file gets the statistics a Delta writer would
//! record ([`stats`]). Each layout becomes a table of statistics without data ([`table`]),
//! and the whole workload is explained on it with the same streamed phase scans as any table.
//! The layouts are ranked by the bytes the workload would read.
//!
//! **Calibration.** The current layout is simulated from the table's own rows too: where the
//! simulation keeps other files than the table's own statistics do, the report lists each such
//! file with the reason (no statistics in the log, a deletion vector, a sample, bounds written
//! differently), so a reader knows how far the simulated numbers carry over.

pub mod curve;
pub mod layout;
pub mod rows;
pub mod stats;
pub mod table;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use serde::Serialize;
use storage::StorageOptions;

use explain_compiler::error::ExplainError;
use explain_core::request::{ExplainRequest, Options};
use explain_core::stream::report_many_streaming;
use layout::{Layout, lay_out, partitionable};
use rows::{SampledRows, read_rows, take_rows};

/// At most this many columns are combined into candidate layouts (the most used first).
pub const MAX_COLUMNS: usize = 4;
/// A column is offered as a partition column with fewer distinct values than this.
pub const MAX_PARTITION_VALUES: usize = 1000;

/// What to advise on.
#[derive(Clone, Debug)]
pub struct AdviseRequest {
    /// The table's location; with `catalog`, its name in the catalog.
    pub location: String,
    pub storage: StorageOptions,
    /// The catalog `location` names the table in.
    pub catalog: Option<storage::Catalog>,
    pub version: Option<u64>,
    /// The workload, in order.
    pub predicates: Vec<String>,
    /// Rows to sample; every live row when `None`.
    pub sample: Option<u64>,
    /// The size of a simulated file; the table's mean file size when `None` (so every layout
    /// has about as many files as the table).
    pub target_file_size: Option<u64>,
    /// The seed of the sample.
    pub seed: u64,
    pub workers: usize,
    /// The least share of the bytes a layout must save the workload, in percent, to be
    /// recommended over the current one (rewriting a table costs more than a few percent).
    pub min_saving_pct: f64,
}

/// The default of [`AdviseRequest::min_saving_pct`].
pub const MIN_SAVING_PCT: f64 = 10.0;

/// One predicate on one layout.
#[derive(Clone, Debug, Serialize)]
pub struct PredicateCost {
    pub files_read: usize,
    pub bytes_read: u64,
    pub total_files: usize,
    pub total_bytes: u64,
}

/// A layout and what the workload would read under it.
#[derive(Clone, Debug, Serialize)]
pub struct LayoutResult {
    pub name: String,
    pub layout: Layout,
    pub files: usize,
    pub bytes: u64,
    /// Summed over the predicates every layout could explain.
    pub files_read: usize,
    pub bytes_read: u64,
    /// Per predicate, in workload order (`null` where the predicate could not be explained).
    pub per_predicate: Vec<Option<PredicateCost>>,
    /// `bytes_read` against the current layout's, in percent (negative: less is read).
    pub bytes_read_vs_current_pct: f64,
}

/// A file the simulated current layout keeps and the table does not, or the reverse.
#[derive(Clone, Debug, Serialize)]
pub struct CalibrationFile {
    pub path: String,
    pub kept_by_table: bool,
    pub kept_by_simulation: bool,
    pub reason: String,
}

/// Per predicate, how the simulated current layout compares with the table itself.
#[derive(Clone, Debug, Serialize)]
pub struct CalibrationEntry {
    pub predicate: String,
    pub kept_by_table: usize,
    pub kept_by_simulation: usize,
    /// The files that differ (at most [`CALIBRATION_FILES`] listed).
    pub differing_files: usize,
    pub files: Vec<CalibrationFile>,
}

pub const CALIBRATION_FILES: usize = 10;

#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    pub predicates: usize,
    /// Predicates whose simulated current layout keeps exactly the table's files.
    pub identical: usize,
    pub differing: Vec<CalibrationEntry>,
}

/// The version of the advice's JSON shape (docs/advise.schema.json).
pub const ADVICE_SCHEMA_VERSION: &str = "dx-advise-1.0.0";

/// The advice: every layout ranked, the recommendation, the calibration.
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    pub schema_version: &'static str,
    pub tool_version: &'static str,
    pub table: String,
    pub version: u64,
    pub predicates: Vec<String>,
    /// A predicate's error where it could not be explained (on the table itself).
    pub errors: Vec<Option<String>>,
    pub live_rows: u64,
    pub rows_read: u64,
    /// The share of the live rows in the sample (1: every row).
    pub sample_rate: f64,
    pub target_file_size: u64,
    /// The columns the workload references, the most used first, and how many predicates use
    /// each.
    pub columns: Vec<(String, usize)>,
    /// Best first; the current layout among them.
    pub layouts: Vec<LayoutResult>,
    /// The best layout's name and its columns in order, or the current layout when none
    /// saves at least `min_saving_pct` of the bytes.
    pub recommended: String,
    pub recommended_columns: Vec<String>,
    /// The share of the workload's bytes the recommended layout saves, in percent.
    pub saving_pct: f64,
    /// The threshold a layout had to pass to be recommended.
    pub min_saving_pct: f64,
    /// The Delta SQL that makes the recommended layout (`OPTIMIZE ... ZORDER BY`, `ALTER TABLE
    /// ... CLUSTER BY`, a `REPLACE TABLE` with new partitioning); null when the current layout
    /// is kept.
    pub statement: Option<String>,
    /// The table's liquid clustering columns, whose layout (Hilbert order over them, a sort
    /// for one) is among the candidates; null when the table is not clustered.
    pub clustering_columns: Option<Vec<String>>,
    pub calibration: Calibration,
    pub elapsed_ms: u64,
}

impl Advice {
    /// The best `top` layouts, and the current layout after them where it is not among them:
    /// what every page of the advice shows.
    pub fn shown_layouts(&self, top: usize) -> Vec<&LayoutResult> {
        let mut shown: Vec<&LayoutResult> = self.layouts.iter().take(top).collect();
        if let Some(current) = self.layouts.iter().find(|l| l.layout == Layout::Current)
            && !shown.iter().any(|l| l.layout == Layout::Current)
        {
            shown.push(current);
        }
        shown
    }
}

/// Advises on `request`; `progress` hears a line per step.
pub fn advise(request: &AdviseRequest, progress: &dyn Fn(&str)) -> Result<Advice, ExplainError> {
    // A catalog's name: its storage location and vended credentials, once.
    let (location, storage) = explain_core::request::locate(
        &request.location,
        &request.storage,
        request.catalog.as_ref(),
    )?;
    let request = &AdviseRequest {
        location,
        storage,
        catalog: None,
        ..request.clone()
    };
    let started = Instant::now();
    if request.predicates.is_empty() {
        return Err(ExplainError::Usage("the workload has no predicate".into()));
    }
    let table_error = |e| table_error(&request.location, e);
    let snapshot =
        oracle::log::Snapshot::open_with(&request.location, &request.storage, request.version)
            .map_err(table_error)?;
    // The table as it is, explained with the per-file view: the baseline the simulation is
    // calibrated against, and each predicate's own errors.
    progress("explaining the workload on the table as it is");
    let verbose = Options {
        verbose: true,
        ..Options::default()
    };
    let real = explain_workload(
        &request.location,
        &request.storage,
        request.version,
        &request.predicates,
        &verbose,
        request.workers,
    )?;
    let errors: Vec<Option<String>> = real.iter().map(|r| r.as_ref().err().cloned()).collect();
    let clustering = clustering_columns(&real, &snapshot);
    let columns = referenced_columns(&snapshot, &request.predicates);
    if columns.is_empty() {
        return Err(ExplainError::Usage(
            "the workload's predicates reference no column of the table".into(),
        ));
    }
    let partition_columns: Vec<String> = snapshot.partition_columns().to_vec();
    let read = columns_to_read(&columns, &partition_columns, clustering.as_deref());
    progress("reading the live rows");
    let rows = read_rows(
        &request.location,
        &snapshot,
        &read,
        request.sample,
        request.seed,
        request.workers,
        &|_| {},
    )?;
    let indexed = explain_core::replay::indexed_columns(
        &request.location,
        &request.storage,
        request.version,
    )?;
    let fields = table::fields_of(&snapshot.metadata.schema_string, &read)?;
    let total_bytes: u64 = rows.files.iter().map(|f| f.size).sum();
    let target = request
        .target_file_size
        .unwrap_or_else(|| total_bytes / (rows.files.len().max(1) as u64))
        .max(1);
    let mut candidates = candidates(&rows, &columns, &partition_columns);
    if let Some(liquid) = clustering.as_deref().map(liquid_layout)
        && !candidates.contains(&liquid)
    {
        candidates.push(liquid);
    }
    let work = tempfile::tempdir()
        .map_err(|e| ExplainError::Output(format!("a temporary directory: {e}")))?;
    let simulation = Simulation {
        request,
        rows: &rows,
        fields: &fields,
        indexed: &indexed,
        read: &read,
        partition_columns: &partition_columns,
        target,
        work: work.path(),
    };
    let (mut results, simulated_current) = simulation.every_layout(&candidates, progress)?;
    rank(&mut results, request.predicates.len());
    let (best, saving_pct, statement) = recommend(&results, request, !partition_columns.is_empty());
    let calibration = calibrate(
        &request.predicates,
        &real,
        simulated_current.as_deref().unwrap_or(&[]),
        &rows,
    );
    Ok(Advice {
        schema_version: ADVICE_SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        table: request.location.clone(),
        version: snapshot.version,
        predicates: request.predicates.clone(),
        errors,
        live_rows: rows.live_rows(),
        rows_read: rows.batch.num_rows() as u64,
        sample_rate: rows.rate,
        target_file_size: target,
        columns,
        layouts: results,
        recommended: best.0,
        recommended_columns: best.1,
        saving_pct,
        min_saving_pct: request.min_saving_pct,
        statement,
        clustering_columns: clustering,
        calibration,
        elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// The columns the rows are read for: the workload's, then the partition and clustering
/// columns it does not reference.
fn columns_to_read(
    columns: &[(String, usize)],
    partition_columns: &[String],
    clustering: Option<&[String]>,
) -> Vec<String> {
    let mut read: Vec<String> = columns.iter().map(|(c, _)| c.clone()).collect();
    for p in partition_columns
        .iter()
        .chain(clustering.into_iter().flatten())
    {
        if !read.contains(p) {
            read.push(p.clone());
        }
    }
    read
}

/// Liquid clustering's layout: a sort for one column, Hilbert order for more.
fn liquid_layout(columns: &[String]) -> Layout {
    match columns {
        [one] => Layout::Sort(one.clone()),
        _ => Layout::Hilbert(columns.to_vec()),
    }
}

/// Liquid clustering's columns, where the table has them (read from the first report): their
/// Hilbert order (a sort for one column) is a candidate whatever the workload references.
fn clustering_columns(
    real: &[Result<explain_core::report::Report, String>],
    snapshot: &oracle::log::Snapshot,
) -> Option<Vec<String>> {
    real.iter()
        .flatten()
        .next()
        .and_then(|r| r.table_features.clustering_columns.clone())
        .filter(|cs| !cs.is_empty() && cs.len() <= MAX_COLUMNS)
        .filter(|cs| {
            cs.iter()
                .all(|c| snapshot.fields.iter().any(|f| &f.name == c))
        })
}

/// A workload's reports, one per predicate (its error where it has no report).
type Reports = Vec<Result<explain_core::report::Report, String>>;

/// What every simulated layout shares: the rows read once, the table's fields and indexed
/// columns, the target file size and the folder the layouts are written under.
struct Simulation<'a> {
    request: &'a AdviseRequest,
    rows: &'a SampledRows,
    fields: &'a [serde_json::Value],
    indexed: &'a [String],
    read: &'a [String],
    partition_columns: &'a [String],
    target: u64,
    work: &'a std::path::Path,
}

impl Simulation<'_> {
    /// Every candidate layout simulated, in order, with the reports of the current one.
    fn every_layout(
        &self,
        candidates: &[Layout],
        progress: &dyn Fn(&str),
    ) -> Result<(Vec<LayoutResult>, Option<Reports>), ExplainError> {
        let mut results = Vec::new();
        let mut simulated_current = None;
        for (i, layout) in candidates.iter().enumerate() {
            progress(&format!(
                "layout {} of {}: {}",
                i + 1,
                candidates.len(),
                layout.name()
            ));
            let (result, reports) = self.layout(i, layout)?;
            if *layout == Layout::Current {
                simulated_current = Some(reports);
            }
            results.push(result);
        }
        Ok((results, simulated_current))
    }

    /// `layout` written as a table of its own (the `i`-th) and the workload explained on it;
    /// the reports are those of the current layout's verbose baseline when it is that one.
    fn layout(
        &self,
        i: usize,
        layout: &Layout,
    ) -> Result<
        (
            LayoutResult,
            Vec<Result<explain_core::report::Report, String>>,
        ),
        ExplainError,
    > {
        let rows = self.rows;
        let files = lay_out(rows, layout, self.target)?;
        let partitions = layout.partition_columns(self.partition_columns);
        let stats_columns: Vec<String> = self
            .indexed
            .iter()
            .filter(|c| self.read.contains(c) && !partitions.contains(c))
            .cloned()
            .collect();
        let stats: Vec<String> = files
            .iter()
            .map(|f| {
                Ok(stats::file_stats(
                    &take_rows(&rows.batch, &f.rows)?,
                    rows.rate,
                    &stats_columns,
                ))
            })
            .collect::<Result<_, ExplainError>>()?;
        let dir = self.work.join(format!("layout-{i}"));
        table::write_table(&dir, self.fields, &partitions, &files, &stats)?;
        let location = dir.to_string_lossy().into_owned();
        let options = Options {
            verbose: *layout == Layout::Current,
            ..Options::default()
        };
        let reports = explain_workload(
            &location,
            &StorageOptions::default(),
            None,
            &self.request.predicates,
            &options,
            self.request.workers,
        )?;
        let per_predicate: Vec<Option<PredicateCost>> = reports
            .iter()
            .map(|r| {
                r.as_ref().ok().map(|r| PredicateCost {
                    files_read: r.final_files,
                    bytes_read: r.final_bytes,
                    total_files: r.total_files,
                    total_bytes: r.total_bytes,
                })
            })
            .collect();
        let result = LayoutResult {
            name: layout.name(),
            layout: layout.clone(),
            files: files.len(),
            bytes: files.iter().map(|f| f.size).sum(),
            files_read: 0,
            bytes_read: 0,
            per_predicate,
            bytes_read_vs_current_pct: 0.0,
        };
        Ok((result, reports))
    }
}

/// The best layout, if it saves enough to be worth a rewrite (its name and columns, the
/// saving, the statement that makes it); else the current one.
fn recommend(
    results: &[LayoutResult],
    request: &AdviseRequest,
    partitioned: bool,
) -> ((String, Vec<String>), f64, Option<String>) {
    match results.first() {
        Some(r)
            if r.layout != Layout::Current
                && -r.bytes_read_vs_current_pct >= request.min_saving_pct =>
        {
            (
                (r.name.clone(), r.layout.columns()),
                -r.bytes_read_vs_current_pct,
                Some(
                    r.layout
                        .statement(&table_reference(&request.location), partitioned),
                ),
            )
        }
        _ => ((Layout::Current.name(), Vec::new()), 0.0, None),
    }
}

/// Totals over the `predicates` every layout could explain, each layout against the current
/// one, best first.
fn rank(results: &mut [LayoutResult], predicates: usize) {
    // Totals over the predicates every layout could explain.
    let everywhere: Vec<usize> = (0..predicates)
        .filter(|&p| results.iter().all(|r| r.per_predicate[p].is_some()))
        .collect();
    for r in results.iter_mut() {
        let costs = everywhere
            .iter()
            .filter_map(|&p| r.per_predicate[p].as_ref());
        r.files_read = costs.clone().map(|c| c.files_read).sum();
        r.bytes_read = costs.map(|c| c.bytes_read).sum();
    }
    let current_bytes = results.first().map_or(0, |r: &LayoutResult| r.bytes_read);
    for r in results.iter_mut() {
        r.bytes_read_vs_current_pct = if current_bytes == 0 {
            0.0
        } else {
            ((r.bytes_read as f64 / current_bytes as f64) - 1.0) * 100.0
        };
    }
    // Best first: fewer bytes, then fewer files, then fewer columns (the simpler layout).
    results.sort_by(|a, b| {
        a.bytes_read
            .cmp(&b.bytes_read)
            .then(a.files_read.cmp(&b.files_read))
            .then(a.layout.columns().len().cmp(&b.layout.columns().len()))
            .then((a.layout != Layout::Current).cmp(&(b.layout != Layout::Current)))
    });
}

/// The oracle's error on the table at `location` as the command reports it: the table named
/// once (the oracle's own "cannot read table X" is not said twice).
pub(crate) fn table_error(location: &str, e: oracle::OracleError) -> ExplainError {
    match e {
        oracle::OracleError::Usage(m) => ExplainError::Usage(m),
        oracle::OracleError::Table { reason, .. } => ExplainError::Table {
            table: location.to_string(),
            reason,
        },
        other => ExplainError::Table {
            table: location.to_string(),
            reason: other.to_string(),
        },
    }
}

/// The table as Delta SQL names it by its location: ``delta.`s3://bucket/t` ``.
fn table_reference(location: &str) -> String {
    format!("delta.`{}`", location.replace('`', "``"))
}

/// The workload explained on the table at `location`: a report per predicate, or its error.
fn explain_workload(
    location: &str,
    storage: &StorageOptions,
    version: Option<u64>,
    predicates: &[String],
    options: &Options,
    workers: usize,
) -> Result<Vec<Result<explain_core::report::Report, String>>, ExplainError> {
    let mut many = ExplainRequest::new(location)
        .storage(storage.clone())
        .version(version)
        .predicates(
            predicates
                .iter()
                .map(|p| (p.clone(), options.clone()))
                .collect(),
        );
    many.workers = workers.max(1);
    let streamed = report_many_streaming(&many, &mut |_| {})?;
    Ok(streamed
        .reports
        .into_iter()
        .map(|r| r.map(|(report, _)| report).map_err(|e| e.to_string()))
        .collect())
}

/// The table's top-level columns the predicates reference (as the table spells them), the
/// most used first (then in schema order), with the number of predicates using each.
fn referenced_columns(
    snapshot: &oracle::log::Snapshot,
    predicates: &[String],
) -> Vec<(String, usize)> {
    let mut uses: BTreeMap<String, usize> = BTreeMap::new();
    for p in predicates {
        let Ok(parsed) = explain_compiler::sql::parse_predicate(p) else {
            continue;
        };
        let mut seen = BTreeSet::new();
        for c in parsed.columns_and_quoted_names() {
            let Some(first) = c.path.first() else {
                continue;
            };
            if let Some(f) = snapshot
                .fields
                .iter()
                .find(|f| f.name.eq_ignore_ascii_case(first))
                && seen.insert(f.name.clone())
            {
                *uses.entry(f.name.clone()).or_default() += 1;
            }
        }
    }
    let position = |name: &str| snapshot.fields.iter().position(|f| f.name == name);
    let mut out: Vec<(String, usize)> = uses.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(position(&a.0).cmp(&position(&b.0))));
    out
}

/// The candidate layouts: the current one; for each of the most used columns, sorting by it
/// and (with few values) partitioning by it; Z-order and Hilbert order on every combination of
/// two or more of them.
fn candidates(
    rows: &SampledRows,
    columns: &[(String, usize)],
    partition_columns: &[String],
) -> Vec<Layout> {
    let top: Vec<String> = columns
        .iter()
        .take(MAX_COLUMNS)
        .map(|(c, _)| c.clone())
        .collect();
    let mut out = vec![Layout::Current];
    for c in &top {
        out.push(Layout::Sort(c.clone()));
        let few = rows
            .batch
            .column_by_name(c)
            .is_some_and(|a| partitionable(a, MAX_PARTITION_VALUES));
        // The table's own partitioning is the current layout already.
        if few && !(partition_columns.len() == 1 && &partition_columns[0] == c) {
            out.push(Layout::Partition(c.clone()));
        }
    }
    for size in 2..=top.len() {
        for combination in combinations(&top, size) {
            out.push(Layout::ZOrder(combination.clone()));
            out.push(Layout::Hilbert(combination));
        }
    }
    // A partitioned table keeps its partitions, its files ordered within each: by each data
    // column the workload uses, and on a Hilbert curve over every two or more of them.
    if !partition_columns.is_empty() {
        let data: Vec<String> = top
            .iter()
            .filter(|c| !partition_columns.contains(c))
            .cloned()
            .collect();
        for c in &data {
            out.push(Layout::Within(Box::new(Layout::Sort(c.clone()))));
        }
        for size in 2..=data.len() {
            for combination in combinations(&data, size) {
                out.push(Layout::Within(Box::new(Layout::Hilbert(combination))));
            }
        }
    }
    out
}

/// Every combination of `size` of `items`, in their order.
fn combinations(items: &[String], size: usize) -> Vec<Vec<String>> {
    if size == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for (i, first) in items.iter().enumerate() {
        for mut rest in combinations(&items[i + 1..], size - 1) {
            rest.insert(0, first.clone());
            out.push(rest);
        }
    }
    out
}

/// Compares the table's kept files with the simulated current layout's, predicate by
/// predicate, and says why each differing file differs.
fn calibrate(
    predicates: &[String],
    real: &[Result<explain_core::report::Report, String>],
    simulated: &[Result<explain_core::report::Report, String>],
    rows: &SampledRows,
) -> Calibration {
    let mut compared = 0;
    let mut identical = 0;
    let mut differing = Vec::new();
    for (i, predicate) in predicates.iter().enumerate() {
        let (Some(Ok(real)), Some(Ok(sim))) = (real.get(i), simulated.get(i)) else {
            continue;
        };
        let (Some(real_files), Some(sim_files)) = (&real.files, &sim.files) else {
            continue;
        };
        compared += 1;
        let sim_by_path: BTreeMap<&str, &explain_core::report::FileReport> =
            sim_files.iter().map(|f| (f.path.as_str(), f)).collect();
        let mut files = Vec::new();
        let mut count = 0;
        for f in real_files {
            let sim_kept = sim_by_path.get(f.path.as_str()).is_none_or(|s| s.kept);
            if sim_kept == f.kept {
                continue;
            }
            count += 1;
            if files.len() < CALIBRATION_FILES {
                files.push(CalibrationFile {
                    path: f.path.clone(),
                    kept_by_table: f.kept,
                    kept_by_simulation: sim_kept,
                    reason: why_different(f, sim_by_path.get(f.path.as_str()).copied(), rows),
                });
            }
        }
        if count == 0 {
            identical += 1;
        } else {
            differing.push(CalibrationEntry {
                predicate: predicate.clone(),
                kept_by_table: real.final_files,
                kept_by_simulation: sim.final_files,
                differing_files: count,
                files,
            });
        }
    }
    Calibration {
        predicates: compared,
        identical,
        differing,
    }
}

/// Why the table's statistics of a file and the simulated ones prune differently.
fn why_different(
    real: &explain_core::report::FileReport,
    sim: Option<&explain_core::report::FileReport>,
    rows: &SampledRows,
) -> String {
    if !real.has_stats {
        return "the table's log has no statistics for this file; the simulation computes them"
            .into();
    }
    if real.has_deletion_vector {
        return "a deletion vector: the log's statistics still count the deleted rows, the simulation reads only live rows".into();
    }
    if rows.rate < 1.0 {
        return format!(
            "sampled: the simulation saw {:.2}% of the rows, so its bounds can be narrower than the file's",
            rows.rate * 100.0
        );
    }
    let Some(sim) = sim else {
        return "the simulation has no such file".into();
    };
    for (column, value) in &real.min_values {
        if sim.min_values.get(column) != Some(value) {
            return format!(
                "the writer's bounds differ: `{column}` min {value} in the log, {} simulated",
                sim.min_values
                    .get(column)
                    .map_or("none".into(), ToString::to_string)
            );
        }
    }
    for (column, value) in &real.max_values {
        if sim.max_values.get(column) != Some(value) {
            return format!(
                "the writer's bounds differ: `{column}` max {value} in the log, {} simulated",
                sim.max_values
                    .get(column)
                    .map_or("none".into(), ToString::to_string)
            );
        }
    }
    for column in sim.min_values.keys() {
        if !real.min_values.contains_key(column) {
            return format!(
                "the log records no bounds for `{column}` in this file; the simulation does"
            );
        }
    }
    "the same bounds, kept differently (a partition value or a null count)".into()
}
