//! One predicate explained while the log is replayed, holding no more than a window of rows.
//!
//! The stages of one explanation:
//! - **compile** once, as soon as the snapshot's columns are known (before any file is
//!   listed, so a bad predicate is refused without a replay);
//! - **plan and execute** per window: the replay hands its live files on in windows of about
//!   [`WINDOW_ROWS`](crate::replay::WINDOW_ROWS) ([`ReplayedTable::stream`]); each window is
//!   explained with the same code as a whole replayed table ([`explain_compiled`]: the
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

use crate::diagnose::{Diagnosis, Evidence, TableFacts, diagnose_from, gather_evidence};
use crate::error::ExplainError;
use crate::explain::{CompiledPredicate, ExplainOptions, Explanation, explain_compiled};
use crate::features::TableFeatures;
use crate::gates::{Assertion, stats_complete};
use crate::layers::Layers;
use crate::replay::{ReplayedTable, StreamedTable, WINDOW_ROWS, WindowVisitor};
use crate::report::{FileReport, FileTallies, Report, TableHeader, first_files, merge_first_files};
use crate::schema::TableColumns;
use storage::StorageOptions;

/// One explanation to stream: where the table is and what to explain.
#[derive(Clone, Debug)]
pub struct StreamRequest {
    pub location: String,
    pub storage: StorageOptions,
    /// The snapshot version; the latest when `None`.
    pub version: Option<u64>,
    /// The predicate; the baseline alone when `None`.
    pub predicate: Option<String>,
    pub options: ExplainOptions,
    /// The files a window gathers before it is explained and dropped (the tests make windows
    /// of a file or two).
    pub window_files: usize,
    /// Diagnose the explanation (`--explain-why`): its evidence is gathered per window.
    pub diagnose: bool,
    /// Check every file's statistics (`--assert-stats`), window by window.
    pub assert_stats: bool,
    /// The per-file view (`--verbose`), at most `limit` files: each window's first entries
    /// merged into the view so far, so no more than `limit` entries and a window are held.
    pub verbose: bool,
    pub limit: Option<usize>,
    /// The five forms of the predicate and its survivor sets (`--layers`), their paths cut to
    /// `limit` window by window as the per-file view's are.
    pub layers: bool,
}

impl StreamRequest {
    /// The baseline of the latest snapshot at `location`, in windows of [`WINDOW_ROWS`].
    pub fn new(location: &str) -> Self {
        Self {
            location: location.to_string(),
            storage: StorageOptions::default(),
            version: None,
            predicate: None,
            options: ExplainOptions::default(),
            window_files: WINDOW_ROWS,
            diagnose: false,
            assert_stats: false,
            verbose: false,
            limit: None,
            layers: false,
        }
    }
}

/// What a streamed explanation leaves: the table's header facts, the explanation, and the
/// tallies a report needs, with no rows.
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
}

impl Streamed {
    /// The report, as [`Report::build`] makes it from a replayed table.
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
}

/// Explains `request` in one streamed replay; `observer` hears the running file count.
pub fn explain_streaming(
    request: &StreamRequest,
    observer: &mut dyn FnMut(usize),
) -> Result<Streamed, ExplainError> {
    let mut windows = Windows {
        predicate: request.predicate.as_deref(),
        options: request.options,
        compiled: None,
        explanation: None,
        tallies: FileTallies::default(),
        dv_files: 0,
        windows: 0,
        diagnose: request.diagnose,
        evidence: Evidence::default(),
        assert_stats: request.assert_stats,
        stats_assertion: None,
        files: request.verbose.then(Vec::new),
        limit: request.limit,
        layers_asked: request.layers,
        layers: None,
    };
    let table = ReplayedTable::stream(
        &request.location,
        &request.storage,
        request.version,
        observer,
        &mut windows,
        request.window_files,
    )?;
    let mut explanation = windows.explanation.ok_or_else(|| ExplainError::Table {
        table: request.location.clone(),
        reason: "the replay handed on no window of files".into(),
    })?;
    // Accepted values are decided over every partition of the table, known only now.
    let present = table.present_values();
    explanation = explanation.with_accepted(&present, table.columns());
    let diagnoses = request.diagnose.then(|| {
        diagnose_from(
            &TableFacts {
                columns: table.columns(),
                present_values: &present,
                has_min_max_column: &|path| table.has_min_max_column(path),
            },
            &explanation,
            &windows.evidence,
        )
    });
    let features = TableFeatures::read_parts(
        table.snapshot(),
        table.engine(),
        table.columns(),
        windows.dv_files,
    );
    Ok(Streamed {
        table,
        explanation,
        tallies: windows.tallies,
        features,
        windows: windows.windows,
        diagnoses,
        stats_assertion: windows.stats_assertion,
        files: windows.files,
        layers: windows.layers,
    })
}

/// The explanation gathered window by window.
struct Windows<'a> {
    predicate: Option<&'a str>,
    options: ExplainOptions,
    /// Compiled once, when the columns are known.
    compiled: Option<CompiledPredicate>,
    explanation: Option<Explanation>,
    tallies: FileTallies,
    dv_files: usize,
    windows: usize,
    diagnose: bool,
    evidence: Evidence,
    assert_stats: bool,
    stats_assertion: Option<Assertion>,
    files: Option<Vec<FileReport>>,
    limit: Option<usize>,
    layers_asked: bool,
    layers: Option<Layers>,
}

impl WindowVisitor for Windows<'_> {
    fn start(&mut self, columns: &TableColumns) -> Result<(), ExplainError> {
        // A restarted replay compiled the predicate already, against the same snapshot.
        if self.compiled.is_none() {
            self.compiled = self
                .predicate
                .map(|text| CompiledPredicate::compile_against(text, columns))
                .transpose()?;
        }
        self.explanation = None;
        self.tallies = FileTallies::default();
        self.dv_files = 0;
        self.windows = 0;
        self.evidence = Evidence::default();
        self.stats_assertion = None;
        if let Some(files) = &mut self.files {
            files.clear();
        }
        self.layers = None;
        Ok(())
    }

    fn visit(&mut self, window: &ReplayedTable, _first_file: usize) -> Result<(), ExplainError> {
        let explanation = explain_compiled(window, self.compiled.as_ref(), self.options)?;
        self.tallies = self.tallies.plus(FileTallies::of(window, &explanation));
        self.dv_files += window.deletion_vector_files();
        self.windows += 1;
        if self.diagnose {
            let evidence = gather_evidence(window, &explanation)?;
            self.evidence = std::mem::take(&mut self.evidence).plus(evidence);
        }
        if let Some(files) = &mut self.files {
            let first = first_files(window, &explanation, self.limit);
            *files = merge_first_files(std::mem::take(files), first, self.limit);
        }
        if self.layers_asked
            && let Some(more) = Layers::build(window, &explanation, self.limit)
        {
            self.layers = Some(match self.layers.take() {
                Some(so_far) => so_far.plus(more, self.limit),
                None => more,
            });
        }
        if self.assert_stats {
            let checked = stats_complete(window, &explanation);
            self.stats_assertion = Some(match self.stats_assertion.take() {
                Some(so_far) => so_far.plus(checked),
                None => checked,
            });
        }
        match &mut self.explanation {
            Some(so_far) => so_far.append(explanation),
            None => self.explanation = Some(explanation),
        }
        Ok(())
    }
}
