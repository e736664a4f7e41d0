//! One predicate explained while the log is replayed, holding no more than a window of rows.
//!
//! The stages of one explanation:
//! - **compile** and **plan** (lower the kernel scans) once, as soon as the snapshot's
//!   columns are known (before any file is listed, so a bad predicate is refused without a
//!   replay);
//! - **execute** per window: the replay hands its live files on in windows of about
//!   [`WINDOW_ROWS`](crate::replay::WINDOW_ROWS) ([`ReplayedTable::stream`]); each window is
//!   explained with the same code as a whole replayed table ([`explain_planned`]: the
//!   partition scan, the partition evaluator, the full scan over the partition survivors),
//!   its report tallies read ([`FileTallies::of`]), and its rows dropped;
//! - **report** from the sum of the windows ([`Explanation::append`], [`FileTallies::plus`]).
//!
//! Why windows answer as the whole table would: the kernel decides each reconciled add from
//! its own row (the same argument that lets a phase scan ask about a subset of the cached
//! rows, see [`replay`](crate::replay)), the partition evaluator decides each file from its
//! own partition values, and every count and volume is a sum over files. So the per-file
//! sets are the whole table's in the replay's order, and every count is the same.
//! `harness/tests/it/streaming.rs` holds the streamed report to the cached one on every
//! fixture and table shape.
//!
//! `--explain-why` and `--assert-stats` stream too: each window's evidence (what every
//! data-column conjunct prunes alone, the files without bounds) and missing statistics are
//! summed; `--verbose` and `--layers` keep each window's first entries of their file lists,
//! merged into the first so far.
//!
//! Runs of many predicates (`--predicates`, `--budget`, [`report_many_streaming`]) stream the
//! same way: every window is explained for every predicate, each with its own report request,
//! on every core (a worker takes the next predicate not yet done with the window), before the
//! window is dropped. Each predicate is compiled and planned once, at the first window; a
//! predicate that does not compile, or whose explanation fails short of the table (a usage or
//! predicate error), becomes an error in its place and the others go on. A table or storage
//! error stops the run.
//!
//! What is held at once: one window's rows, the batches queued behind it, per predicate its
//! counts and sections, and the distinct partitions; for one predicate also one bit per file
//! and set (`after_partition`, `kept`, [`FileSet`](crate::file_set::FileSet)), which a run of
//! many predicates drops window by window (its reports need the counts alone).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::accepted::{PresentValues, present_values};
use crate::coverage::{self, Coverage, CoveragePlan};
use crate::diagnose::{
    Evidence, EvidencePlan, TableFacts, diagnose_from, gather_parsed, gather_planned,
};
use crate::explain::{CompiledPredicate, Explanation, KernelScans, explain_planned, kernel_scans};
use crate::explain_request::ExplainRequest;
use crate::features::TableFeatures;
use crate::file_stats::parse_each;
use crate::gates::stats_complete;
use crate::replay::{ReplayedTable, StreamedTable, TableHead, WindowVisitor};
use crate::report::assertions::Assertion;
use crate::report::coverage::ColumnCoverage;
use crate::report::diagnoses::Diagnosis;
use crate::report::layers::Layers;
use crate::report::{FileReport, FileTallies, Report, TableHeader, first_files, merge_first_files};
use crate::report_request::{ReportRequest, Reported, finish_report};
use explain_compiler::error::ExplainError;
use explain_compiler::schema::TableColumns;
use storage::StorageOptions;

/// What a streamed explanation leaves: the table's header facts and the one predicate's
/// explanation with its sections, with no rows.
pub struct Streamed {
    pub table: StreamedTable,
    pub features: TableFeatures,
    /// How many windows the files came in.
    pub windows: usize,
    pub explained: Explained,
}

impl Streamed {
    /// The report with its sections, as [`Report::build`] and its sections make it from a
    /// replayed table (no gates, no warnings).
    pub fn report(&self, elapsed_ms: u64) -> Report {
        self.explained
            .report(&self.table, &self.features, elapsed_ms)
    }

    /// The finished report, as [`Session::report`](crate::session::Session::report) gives
    /// it: the sections, the gates and warnings, the diagnoses; and the failed gates' lines.
    pub fn reported(&self, elapsed_ms: u64) -> Reported {
        self.explained
            .reported(&self.table, &self.features, elapsed_ms)
    }
}

/// One predicate's explanation of a streamed table and the sections its request asked for.
pub struct Explained {
    pub explanation: Explanation,
    pub tallies: FileTallies,
    /// `analysis.stats_coverage`, when asked for and there is a predicate.
    pub coverage: Option<Vec<ColumnCoverage>>,
    /// The diagnoses, when asked for.
    pub diagnoses: Option<Vec<Diagnosis>>,
    /// The `--assert-stats` assertion over every file, when asked for.
    pub stats_assertion: Option<Assertion>,
    /// The per-file view, in its order, when asked for.
    pub files: Option<Vec<FileReport>>,
    /// The layers, when asked for and there is a predicate.
    pub layers: Option<Layers>,
    /// How many live files the table has (every window's).
    file_count: usize,
    request: ReportRequest,
    /// The table's present values, collected once per run and shared by its predicates.
    present: Arc<PresentValues>,
}

impl Explained {
    /// The report with its sections (no gates, no warnings).
    pub fn report(&self, table: &TableHead, features: &TableFeatures, elapsed_ms: u64) -> Report {
        let mut report = Report::assemble(
            TableHeader {
                location: table.location(),
                version: table.version(),
                features: features.clone(),
            },
            &self.explanation,
            &self.tallies,
            elapsed_ms,
        );
        if let Some(files) = &self.files {
            report.set_files(files.clone(), self.file_count);
        }
        report.layers = self.layers.clone();
        if let Some(analysis) = &mut report.analysis {
            analysis.stats_coverage = self.coverage.clone();
        }
        report
    }

    /// The finished report: the sections, the gates and warnings, the diagnoses; and the
    /// failed gates' lines.
    pub fn reported(
        &self,
        table: &TableHead,
        features: &TableFeatures,
        elapsed_ms: u64,
    ) -> Reported {
        let mut report = self.report(table, features, elapsed_ms);
        let failures = finish_report(
            &self.request,
            &mut report,
            &self.explanation,
            table.columns(),
            &self.present,
            self.stats_assertion.clone(),
        );
        if let Some(diagnoses) = &self.diagnoses {
            report.set_diagnoses(diagnoses.clone());
        }
        (report, failures)
    }
}

/// Explains the request's predicate ([`ExplainRequest::predicate`], with its options) in one
/// streamed replay, in windows of [`ExplainRequest::window_files`]; `observer` hears the
/// running file count. A predicate that does not compile is refused before any file is
/// listed. Every section is gathered window by window: the diagnoses' evidence, the files
/// without statistics, each window's first `limit` entries of the per-file view and the
/// layers merged into the first so far; and `analysis.stats_coverage`.
pub fn explain_streaming(
    request: &ExplainRequest,
    observer: &mut dyn FnMut(usize),
) -> Result<Streamed, ExplainError> {
    let (location, storage) = request.located()?;
    let report = request.report_request();
    let mut windows = WindowStreams {
        streams: vec![PredicateStream::new(request.predicate.as_deref(), &report)],
        errors_in_place: false,
        workers: 1,
        windows: 0,
        dv_files: 0,
    };
    let (table, features) = windows.replay(
        &location,
        &storage,
        request.version,
        request.window_files,
        observer,
    )?;
    let present = run_present_values(&table);
    let explained = windows
        .streams
        .pop()
        .map(|stream| stream.finish(&table, table.file_count(), &present))
        .unwrap_or_else(|| Err(no_window(&location)))?;
    Ok(Streamed {
        windows: windows.windows,
        table,
        features,
        explained,
    })
}

/// One predicate (compiled already; none: the baseline) explained over a table whose rows
/// are replayed already, as a stream of one window: the one report builder, whether the
/// windows come from a streamed replay or the table is held whole ([`Session`] for
/// `--verify`, the ranges, the advisor and the harness's checks). `present` is the table's
/// present partition values (shared by every predicate asked of it).
///
/// [`Session`]: crate::session::Session
pub(crate) fn explain_window(
    table: &ReplayedTable,
    compiled: Option<&CompiledPredicate>,
    request: &ReportRequest,
    present: &Arc<PresentValues>,
) -> Result<Explained, ExplainError> {
    let mut stream = PredicateStream::new(None, request);
    if let Some(compiled) = compiled {
        let scans = kernel_scans(compiled, table.columns(), request.options)?;
        stream.planned = Some((compiled.clone(), scans));
    }
    stream.visit(table)?;
    stream.finish(table, table.files().len(), present)
}

/// The reports of many predicates and the table they were explained against.
pub struct StreamedReports {
    pub table: StreamedTable,
    /// How many windows the files came in.
    pub windows: usize,
    /// In the order of the request's entries; a predicate's own error in its place.
    pub reports: Vec<Result<Reported, ExplainError>>,
}

/// The reports of every predicate of the request ([`ExplainRequest::predicates`], each with
/// its options) in input order, from one streamed replay in windows of
/// [`ExplainRequest::window_files`] on [`ExplainRequest::workers`] threads; a predicate that
/// fails short of the table is an error in its place. Each report's `elapsed_ms` is the time
/// spent on that predicate's explanation and report.
pub fn report_many_streaming(
    request: &ExplainRequest,
    observer: &mut dyn FnMut(usize),
) -> Result<StreamedReports, ExplainError> {
    let (location, storage) = request.located()?;
    let reports: Vec<ReportRequest> = request
        .predicates
        .iter()
        .map(|(_, options)| options.report_request())
        .collect();
    let mut windows = WindowStreams {
        streams: request
            .predicates
            .iter()
            .zip(&reports)
            .map(|((predicate, _), report)| PredicateStream {
                keep_files: false,
                ..PredicateStream::new(Some(predicate), report)
            })
            .collect(),
        errors_in_place: true,
        workers: request.workers.max(1),
        windows: 0,
        dv_files: 0,
    };
    let (table, features) = windows.replay(
        &location,
        &storage,
        request.version,
        request.window_files,
        observer,
    )?;
    let streams = std::mem::take(&mut windows.streams);
    let present = run_present_values(&table);
    let finished = for_each_stream(streams, windows.workers, |stream| {
        let started = Instant::now();
        let busy = stream.busy;
        let explained = stream.finish(&table, table.file_count(), &present)?;
        let elapsed = busy + started.elapsed();
        let elapsed_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        Ok(explained.reported(&table, &features, elapsed_ms))
    });
    let stops = |o: &Result<Reported, ExplainError>| {
        matches!(o, Err(ExplainError::Table { .. } | ExplainError::Output(_)))
    };
    let mut finished = finished;
    if let Some(at) = finished.iter().position(stops)
        && let Err(e) = finished.swap_remove(at)
    {
        return Err(e);
    }
    Ok(StreamedReports {
        table,
        windows: windows.windows,
        reports: finished,
    })
}

/// The present values of a streamed table, for every predicate of the run: each key's
/// values are collected on first use, once.
fn run_present_values(table: &StreamedTable) -> Arc<PresentValues> {
    Arc::new(present_values(table.shared_partitions(), table.columns()))
}

fn no_window(location: &str) -> ExplainError {
    ExplainError::Table {
        table: location.to_string(),
        reason: "the replay handed on no window of files".into(),
    }
}

/// The explanations gathered window by window, one stream per predicate.
struct WindowStreams<'a> {
    streams: Vec<PredicateStream<'a>>,
    /// A predicate's own error is kept in its place (many predicates) rather than stopping
    /// the run (one predicate: its error is the run's).
    errors_in_place: bool,
    workers: usize,
    windows: usize,
    dv_files: usize,
}

impl WindowStreams<'_> {
    /// Replays `location` at `version` in windows of `window_files`, each visited by every
    /// stream; the table and its features (with the deletion-vector files every window
    /// counted).
    fn replay(
        &mut self,
        location: &str,
        storage: &StorageOptions,
        version: Option<u64>,
        window_files: usize,
        observer: &mut dyn FnMut(usize),
    ) -> Result<(StreamedTable, TableFeatures), ExplainError> {
        let table =
            ReplayedTable::stream(location, storage, version, observer, self, window_files)?;
        let features = TableFeatures::read_parts(
            table.snapshot(),
            table.engine(),
            table.columns(),
            self.dv_files,
            table.log_notes(),
        );
        Ok((table, features))
    }
}

impl WindowVisitor for WindowStreams<'_> {
    fn start(&mut self, columns: &TableColumns) -> Result<(), ExplainError> {
        self.windows = 0;
        self.dv_files = 0;
        for stream in &mut self.streams {
            stream.restart();
            // One predicate is refused before any file is listed; many are planned by the
            // workers at the first window, each error in its place.
            if !self.errors_in_place {
                stream.plan(columns)?;
            }
        }
        Ok(())
    }

    fn visit(&mut self, window: &ReplayedTable) -> Result<(), ExplainError> {
        self.windows += 1;
        self.dv_files += window.deletion_vector_files();
        let in_place = self.errors_in_place;
        let streams = std::mem::take(&mut self.streams);
        let outcomes = for_each_stream_mut(streams, self.workers, |stream| {
            if stream.failed.is_some() {
                return Ok(());
            }
            let started = Instant::now();
            let visited = stream
                .plan(window.columns())
                .and_then(|()| stream.visit(window));
            stream.busy += started.elapsed();
            match visited {
                Ok(()) => Ok(()),
                Err(e @ (ExplainError::Table { .. } | ExplainError::Output(_))) => Err(e),
                Err(e) if in_place => {
                    stream.failed = Some(e);
                    Ok(())
                }
                Err(e) => Err(e),
            }
        });
        let (streams, outcome) = outcomes;
        self.streams = streams;
        outcome
    }

    /// One worker per predicate: fewer predicates than cores leave cores idle.
    fn leaves_cores_idle(&self) -> bool {
        self.streams.len() < crate::cores()
    }
}

/// Runs `work` on every stream, on up to `workers` threads (a worker takes the next stream not
/// yet done), and gives the streams back in order with the first error. Workers get the main
/// thread's deep stack: a predicate file may hold deep predicates.
fn for_each_stream_mut<'a>(
    mut streams: Vec<PredicateStream<'a>>,
    workers: usize,
    work: impl Fn(&mut PredicateStream<'a>) -> Result<(), ExplainError> + Sync,
) -> (Vec<PredicateStream<'a>>, Result<(), ExplainError>) {
    let workers = workers.min(streams.len());
    if workers <= 1 {
        let outcome = streams.iter_mut().try_for_each(&work);
        return (streams, outcome);
    }
    let outcomes = workers::map(
        streams.iter_mut().collect(),
        workers,
        crate::DEEP_STACK,
        work,
    );
    // The first failure, in the streams' order.
    let outcome = outcomes
        .into_iter()
        .collect::<Result<Vec<()>, _>>()
        .map(|_| ());
    (streams, outcome)
}

/// Runs `finish` on every stream on up to `workers` threads, the outcomes in order.
fn for_each_stream<'a, T: Send>(
    streams: Vec<PredicateStream<'a>>,
    workers: usize,
    finish: impl Fn(PredicateStream<'a>) -> Result<T, ExplainError> + Sync,
) -> Vec<Result<T, ExplainError>> {
    workers::map(streams, workers, crate::DEEP_STACK, finish)
}

/// One predicate's part of a streamed run: planned once, then its explanation and sections
/// gathered window by window.
struct PredicateStream<'a> {
    predicate: Option<&'a str>,
    request: &'a ReportRequest,
    /// Compiled and planned (its kernel scans lowered) once, when the columns are known.
    planned: Option<(CompiledPredicate, KernelScans)>,
    /// The diagnoses' kernel scans, lowered at the first window (`--explain-why`).
    evidence_plan: Option<EvidencePlan>,
    /// The statistics coverage's columns, resolved at the first window.
    coverage_plan: Option<CoveragePlan>,
    /// What the windows of this replay attempt have said (a restart starts it again).
    gathered: Gathered,
    /// The predicate's own error, kept in its place.
    failed: Option<ExplainError>,
    /// Time spent on this predicate's windows.
    busy: Duration,
    /// Whether the gathered explanation keeps its per-file sets (one predicate: a caller may
    /// ask which files it kept) or drops them once each window is read (many predicates:
    /// their reports need the counts alone).
    keep_files: bool,
}

/// What the windows say, summed or merged; a section not asked for stays `None`.
#[derive(Default)]
struct Gathered {
    explanation: Option<Explanation>,
    tallies: FileTallies,
    evidence: Option<Evidence>,
    coverage: Option<Coverage>,
    stats_assertion: Option<Assertion>,
    files: Option<Vec<FileReport>>,
    layers: Option<Layers>,
}

impl<'a> PredicateStream<'a> {
    fn new(predicate: Option<&'a str>, request: &'a ReportRequest) -> Self {
        Self {
            predicate,
            request,
            planned: None,
            evidence_plan: None,
            coverage_plan: None,
            gathered: Gathered::default(),
            failed: None,
            busy: Duration::ZERO,
            keep_files: true,
        }
    }

    /// A restarted replay: what the earlier windows said is forgotten; the plan (of the same
    /// snapshot) is kept.
    fn restart(&mut self) {
        self.gathered = Gathered::default();
        self.evidence_plan = None;
        self.coverage_plan = None;
        self.busy = Duration::ZERO;
    }

    /// Compiles and plans the predicate, once.
    fn plan(&mut self, columns: &TableColumns) -> Result<(), ExplainError> {
        if self.planned.is_none()
            && let Some(text) = self.predicate
        {
            let compiled = CompiledPredicate::compile_against(text, columns)?;
            let scans = kernel_scans(&compiled, columns, self.request.options)?;
            self.planned = Some((compiled, scans));
        }
        Ok(())
    }

    fn visit(&mut self, window: &ReplayedTable) -> Result<(), ExplainError> {
        let request = self.request;
        let planned = self.planned.as_ref().map(|(c, s)| (c, s));
        let explanation = explain_planned(window, planned)?;
        let so_far = &mut self.gathered;
        so_far.tallies = so_far.tallies.plus(FileTallies::of(window, &explanation));
        if request.explain_why && self.evidence_plan.is_none() {
            self.evidence_plan = Some(EvidencePlan::new(window.columns(), &explanation)?);
        }
        if request.stats_coverage && explanation.predicate.is_some() && self.coverage_plan.is_none()
        {
            self.coverage_plan = Some(CoveragePlan::new(window.columns(), &explanation));
        }
        let evidence_plan = self.evidence_plan.as_ref().filter(|_| request.explain_why);
        let coverage_plan = self
            .coverage_plan
            .as_ref()
            .filter(|_| request.stats_coverage && explanation.predicate.is_some());
        // The evidence and the coverage read the same files' statistics: with both asked
        // for, each file's JSON is parsed once, for what either reads.
        let shared = match (evidence_plan, coverage_plan) {
            (Some(evidence), Some(coverage)) => Some(parse_each(
                window.stats_jsons(),
                &evidence.needs().and(coverage.needs()),
            )),
            _ => None,
        };
        if let Some(plan) = evidence_plan {
            let evidence = match &shared {
                Some(stats) => gather_parsed(window, &explanation, plan, stats)?,
                None => gather_planned(window, &explanation, plan)?,
            };
            so_far.evidence = Some(match so_far.evidence.take() {
                Some(before) => before.plus(evidence),
                None => evidence,
            });
        }
        if let Some(plan) = coverage_plan {
            let counted = match &shared {
                Some(stats) => coverage::gather_parsed(window, &explanation, plan, stats),
                None => coverage::gather(window, &explanation, plan),
            };
            so_far.coverage = Some(match so_far.coverage.take() {
                Some(before) => before.plus(counted),
                None => counted,
            });
        }
        if request.assert_stats {
            let checked = stats_complete(window, &explanation);
            so_far.stats_assertion = Some(match so_far.stats_assertion.take() {
                Some(before) => before.plus(checked),
                None => checked,
            });
        }
        if request.verbose {
            let first = first_files(window, &explanation, request.limit);
            let before = so_far.files.take().unwrap_or_default();
            so_far.files = Some(merge_first_files(before, first, request.limit));
        }
        if request.layers
            && let Some(more) = Layers::build(window, &explanation, request.limit)
        {
            so_far.layers = Some(match so_far.layers.take() {
                Some(before) => before.plus(more, request.limit),
                None => more,
            });
        }
        let explanation = if self.keep_files {
            explanation
        } else {
            explanation.without_files()
        };
        match &mut so_far.explanation {
            Some(before) => before.append(explanation),
            None => so_far.explanation = Some(explanation),
        }
        Ok(())
    }

    /// The explanation of every window, its accepted values and diagnoses decided over every
    /// partition of the table (known only now).
    fn finish(
        self,
        table: &TableHead,
        file_count: usize,
        present: &Arc<PresentValues>,
    ) -> Result<Explained, ExplainError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let gathered = self.gathered;
        let explanation = gathered
            .explanation
            .ok_or_else(|| no_window(table.location()))?;
        let explanation = explanation.with_accepted(present, table.columns());
        let diagnoses = gathered.evidence.map(|evidence| {
            diagnose_from(
                &TableFacts {
                    columns: table.columns(),
                    present_values: present,
                    has_min_max_column: &|path| table.has_min_max_column(path),
                },
                &explanation,
                &evidence,
            )
        });
        let coverage = match (gathered.coverage, &self.coverage_plan) {
            (Some(counted), Some(plan)) => Some(counted.entries(plan)),
            _ => None,
        };
        Ok(Explained {
            explanation,
            tallies: gathered.tallies,
            coverage,
            diagnoses,
            stats_assertion: gathered.stats_assertion,
            files: gathered.files,
            layers: gathered.layers,
            file_count,
            request: self.request.clone(),
            present: Arc::clone(present),
        })
    }
}
