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
//! merged into the first so far. Runs of many predicates (`--predicates`, `--budget`) read the
//! whole replayed table ([`ReplayedTable::open`]) and share it.
//!
//! What is held at once: one window's rows, the batches queued behind it, one byte per file
//! and set (`after_partition`, `kept`), and the distinct partitions.

use crate::diagnose::{
    Diagnosis, Evidence, EvidencePlan, TableFacts, diagnose_from, gather_planned,
};
use crate::error::ExplainError;
use crate::explain::{CompiledPredicate, Explanation, KernelScans, explain_planned, kernel_scans};
use crate::features::TableFeatures;
use crate::gates::{Assertion, stats_complete};
use crate::layers::Layers;
use crate::replay::{ReplayedTable, StreamedTable, WINDOW_ROWS, WindowVisitor};
use crate::report::{FileReport, FileTallies, Report, TableHeader, first_files, merge_first_files};
use crate::schema::TableColumns;
use crate::session::{ReportRequest, Reported, finish_report};
use storage::StorageOptions;

/// One explanation to stream: where the table is, what to explain, and what its report
/// carries beside the counts.
#[derive(Clone, Debug)]
pub struct StreamRequest {
    pub location: String,
    pub storage: StorageOptions,
    /// The snapshot version; the latest when `None`.
    pub version: Option<u64>,
    /// The predicate; the baseline alone when `None`.
    pub predicate: Option<String>,
    /// The explain options, the gates and the sections. Each section is gathered window by
    /// window: `explain_why` the diagnoses' evidence, `assert_stats` the files without
    /// statistics, `verbose` and `layers` each window's first `limit` entries merged into the
    /// first so far (no more than `limit` entries and a window are held).
    pub report: ReportRequest,
    /// The files a window gathers before it is explained and dropped (the tests make windows
    /// of a file or two).
    pub window_files: usize,
}

impl StreamRequest {
    /// The baseline of the latest snapshot at `location`, in windows of [`WINDOW_ROWS`].
    pub fn new(location: &str) -> Self {
        Self {
            location: location.to_string(),
            storage: StorageOptions::default(),
            version: None,
            predicate: None,
            report: ReportRequest::default(),
            window_files: WINDOW_ROWS,
        }
    }
}

/// What a streamed explanation leaves: the table's header facts, the explanation, and what
/// its report needs, with no rows.
pub struct Streamed {
    pub table: StreamedTable,
    pub explanation: Explanation,
    pub tallies: FileTallies,
    pub features: TableFeatures,
    /// How many windows the files came in.
    pub windows: usize,
    /// The diagnoses, when asked for.
    pub diagnoses: Option<Vec<Diagnosis>>,
    /// The `--assert-stats` assertion over every file, when asked for.
    pub stats_assertion: Option<Assertion>,
    /// The per-file view, in its order, when asked for.
    pub files: Option<Vec<FileReport>>,
    /// The layers, when asked for and there is a predicate.
    pub layers: Option<Layers>,
    request: ReportRequest,
}

impl Streamed {
    /// The report with its sections, as [`Report::build`] and its sections make it from a
    /// replayed table (no gates, no warnings).
    pub fn report(&self, elapsed_ms: u64) -> Report {
        let mut report = Report::assemble(
            TableHeader {
                location: self.table.location(),
                version: self.table.version(),
                features: self.features.clone(),
            },
            &self.explanation,
            &self.tallies,
            elapsed_ms,
        );
        if let Some(files) = &self.files {
            report.set_files(files.clone(), self.table.file_count());
        }
        report.layers = self.layers.clone();
        report
    }

    /// The finished report, as [`Session::report`](crate::session::Session::report) gives
    /// it: the sections, the gates and warnings, the diagnoses; and the failed gates' lines.
    pub fn reported(&self, elapsed_ms: u64) -> Reported {
        let mut report = self.report(elapsed_ms);
        let failures = finish_report(
            &self.request,
            &mut report,
            &self.explanation,
            self.table.columns(),
            &self.table.present_values(),
            self.stats_assertion.clone(),
        );
        if let Some(diagnoses) = &self.diagnoses {
            report.set_diagnoses(diagnoses.clone());
        }
        (report, failures)
    }
}

/// Explains `request` in one streamed replay; `observer` hears the running file count.
pub fn explain_streaming(
    request: &StreamRequest,
    observer: &mut dyn FnMut(usize),
) -> Result<Streamed, ExplainError> {
    let mut windows = Windows {
        predicate: request.predicate.as_deref(),
        request: &request.report,
        compiled: None,
        evidence_plan: None,
        gathered: Gathered::default(),
    };
    let table = ReplayedTable::stream(
        &request.location,
        &request.storage,
        request.version,
        observer,
        &mut windows,
        request.window_files,
    )?;
    let gathered = windows.gathered;
    let explanation = gathered.explanation.ok_or_else(|| ExplainError::Table {
        table: request.location.clone(),
        reason: "the replay handed on no window of files".into(),
    })?;
    // Accepted values are decided over every partition of the table, known only now.
    let present = table.present_values();
    let explanation = explanation.with_accepted(&present, table.columns());
    let diagnoses = gathered.evidence.map(|evidence| {
        diagnose_from(
            &TableFacts {
                columns: table.columns(),
                present_values: &present,
                has_min_max_column: &|path| table.has_min_max_column(path),
            },
            &explanation,
            &evidence,
        )
    });
    let features = TableFeatures::read_parts(
        table.snapshot(),
        table.engine(),
        table.columns(),
        gathered.dv_files,
    );
    Ok(Streamed {
        table,
        explanation,
        tallies: gathered.tallies,
        features,
        windows: gathered.windows,
        diagnoses,
        stats_assertion: gathered.stats_assertion,
        files: gathered.files,
        layers: gathered.layers,
        request: request.report.clone(),
    })
}

/// The explanation gathered window by window.
struct Windows<'a> {
    predicate: Option<&'a str>,
    request: &'a ReportRequest,
    /// Compiled and planned (its kernel scans lowered) once, when the columns are known.
    compiled: Option<(CompiledPredicate, KernelScans)>,
    /// The diagnoses' kernel scans, lowered at the first window (`--explain-why`).
    evidence_plan: Option<EvidencePlan>,
    /// What the windows of this replay attempt have said (a restart starts it again).
    gathered: Gathered,
}

/// What the windows say, summed or merged; a section not asked for stays `None`.
#[derive(Default)]
struct Gathered {
    explanation: Option<Explanation>,
    tallies: FileTallies,
    dv_files: usize,
    windows: usize,
    evidence: Option<Evidence>,
    stats_assertion: Option<Assertion>,
    files: Option<Vec<FileReport>>,
    layers: Option<Layers>,
}

impl WindowVisitor for Windows<'_> {
    fn start(&mut self, columns: &TableColumns) -> Result<(), ExplainError> {
        // A restarted replay compiled the predicate already, against the same snapshot.
        if self.compiled.is_none()
            && let Some(text) = self.predicate
        {
            let compiled = CompiledPredicate::compile_against(text, columns)?;
            let scans = kernel_scans(&compiled, columns, self.request.options)?;
            self.compiled = Some((compiled, scans));
        }
        self.gathered = Gathered::default();
        Ok(())
    }

    fn visit(&mut self, window: &ReplayedTable) -> Result<(), ExplainError> {
        let request = self.request;
        let planned = self.compiled.as_ref().map(|(c, s)| (c, s));
        let explanation = explain_planned(window, planned)?;
        let so_far = &mut self.gathered;
        so_far.tallies = so_far.tallies.plus(FileTallies::of(window, &explanation));
        so_far.dv_files += window.deletion_vector_files();
        so_far.windows += 1;
        if request.explain_why {
            let plan = match self.evidence_plan.take() {
                Some(plan) => plan,
                None => EvidencePlan::new(window.columns(), &explanation)?,
            };
            let evidence = gather_planned(window, &explanation, &plan)?;
            self.evidence_plan = Some(plan);
            so_far.evidence = Some(match so_far.evidence.take() {
                Some(before) => before.plus(evidence),
                None => evidence,
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
        match &mut so_far.explanation {
            Some(before) => before.append(explanation),
            None => so_far.explanation = Some(explanation),
        }
        Ok(())
    }
}
