//! The library's one request type and its entry points, shared by the command, the Python
//! package and the harness: [`ExplainRequest`] (where the table is, which snapshot, which
//! predicate, and the [`Options`] of the report), answered by [`explain_one`] (one predicate,
//! `--verify` and the ranges included) or [`explain_many`] (many predicates against one
//! replay, each with options of its own: `--predicates`, `--budget`, Python's
//! `explain_many`). The advisor's request is `explain_advise::AdviseRequest`.
//!
//! Both stream (constant memory, [`crate::stream`]), unless one predicate's report goes back to
//! the files after the explanation: `--verify` (the data), the ranges (each file's bounds, for
//! `--ranges` and the HTML page). Those replay the table whole ([`crate::session`]) and build
//! the report with the stream's builder over the table as one window. The harness's checks
//! call [`explain_one`] too and read the [`Answer`]'s explanation.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use storage::StorageOptions;

use crate::explain::{CompiledPredicate, ExplainOptions, Explanation};
use crate::replay::ReplayedTable;
use crate::report::Report;
use crate::report_request::{ReportRequest, Reported};
use crate::session::Session;
use crate::stream::{
    StreamManyRequest, StreamRequest, StreamedReports, explain_streaming, report_many_streaming,
};
use explain_compiler::error::ExplainError;

/// What one explanation's report carries beside the counts, and the gates it answers: the
/// options of the command (its flags), of the Python package (its keyword arguments, read
/// from this type's JSON form) and of a budget entry, spelled once. Unknown names are refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// `--strict`: the survivor set sound under Spark, DuckDB and DataFusion at once.
    pub strict: bool,
    /// `--verbose`: the per-file view.
    pub verbose: bool,
    /// `--limit`: at most this many files in the per-file view and each `--layers` set.
    pub limit: Option<usize>,
    /// `--explain-why`: the diagnoses.
    pub explain_why: bool,
    /// `--layers`: the five forms of the predicate.
    pub layers: bool,
    /// `--verify`: the funnel checked against the data (one predicate only).
    pub verify: bool,
    /// `--ranges`: the columns whose per-file `[min, max]` the report carries (one predicate
    /// only).
    pub ranges: Vec<String>,
    /// `--min-pruning`: a percentage from 0 to 100.
    pub min_pruning: Option<f64>,
    /// `--min-files`.
    pub min_files: Option<usize>,
    /// `--assert-stats`.
    pub assert_stats: bool,
}

impl Options {
    /// The options' names, sorted (the Python package's keyword arguments).
    pub fn names() -> Vec<String> {
        match serde_json::to_value(Options::default()) {
            Ok(serde_json::Value::Object(fields)) => fields.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// The options read from their JSON form (`{"strict": true, "min_files": 1}`); a name this
    /// type does not have, or a value of the wrong type, is bad input.
    pub fn from_json(text: &str) -> Result<Options, ExplainError> {
        serde_json::from_str(text).map_err(|e| ExplainError::Usage(format!("options: {e}")))
    }

    /// Refuses what no report can mean: a percentage outside 0..=100, `verify` or `ranges`
    /// without a predicate.
    pub fn check(&self, predicate: Option<&str>) -> Result<(), ExplainError> {
        if let Some(pct) = self.min_pruning
            && !(0.0..=100.0).contains(&pct)
        {
            return Err(ExplainError::Usage(format!(
                "min_pruning {pct} is not a percentage from 0 to 100"
            )));
        }
        if self.verify && predicate.is_none() {
            return Err(ExplainError::Usage(
                "verify needs a predicate (`where`)".to_string(),
            ));
        }
        Ok(())
    }

    /// What the report carries, as the explanation takes it.
    pub fn report_request(&self) -> ReportRequest {
        ReportRequest {
            options: ExplainOptions {
                strict: self.strict,
            },
            min_pruning: self.min_pruning,
            min_files: self.min_files,
            assert_stats: self.assert_stats,
            verbose: self.verbose,
            limit: self.limit,
            layers: self.layers,
            // `verify` says what would remove the false positives: the diagnoses.
            explain_why: self.explain_why || self.verify,
            // One more pass over each file's statistics per predicate: for one predicate, and
            // for many where the diagnoses read the statistics anyway.
            stats_coverage: self.explain_why || self.verify,
        }
    }

    /// Whether the report goes back to the files, so the table is replayed whole.
    fn whole(&self) -> bool {
        self.verify || !self.ranges.is_empty()
    }
}

/// One request of the library: a table, a snapshot, a predicate and its options. Built with
/// [`ExplainRequest::new`] and the methods that follow it.
#[derive(Clone, Debug)]
pub struct ExplainRequest {
    pub location: String,
    pub storage: StorageOptions,
    /// The snapshot version; the latest when `None`.
    pub version: Option<u64>,
    /// The predicate; the baseline alone when `None` (with [`explain_many`], the predicates
    /// are its own).
    pub predicate: Option<String>,
    pub options: Options,
    /// The ranges of every column the predicate references too (the HTML page).
    pub referenced_ranges: bool,
    /// Files the oracle reads at once for `verify`.
    pub parallelism: usize,
}

impl ExplainRequest {
    /// The baseline of the latest snapshot at `location`, with no option set.
    pub fn new(location: &str) -> Self {
        Self {
            location: location.to_string(),
            storage: StorageOptions::default(),
            version: None,
            predicate: None,
            options: Options::default(),
            referenced_ranges: false,
            parallelism: crate::cores(),
        }
    }

    /// How to reach the table's store.
    pub fn storage(mut self, storage: StorageOptions) -> Self {
        self.storage = storage;
        self
    }

    /// The snapshot version (time travel); the latest when `None`.
    pub fn version(mut self, version: Option<u64>) -> Self {
        self.version = version;
        self
    }

    /// The predicate; the baseline when `None`.
    pub fn predicate(mut self, predicate: Option<String>) -> Self {
        self.predicate = predicate;
        self
    }

    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The ranges of every column the predicate references (the HTML page).
    pub fn referenced_ranges(mut self, referenced: bool) -> Self {
        self.referenced_ranges = referenced;
        self
    }

    /// Whether the report goes back to the files, so the table is replayed whole.
    fn whole(&self) -> bool {
        self.options.whole() || self.referenced_ranges
    }

    /// The streamed explanation of the predicate.
    fn stream(&self) -> StreamRequest {
        StreamRequest {
            storage: self.storage.clone(),
            version: self.version,
            predicate: self.predicate.clone(),
            report: ReportRequest {
                stats_coverage: true,
                ..self.options.report_request()
            },
            ..StreamRequest::new(&self.location)
        }
    }
}

/// What a long run reports as it goes: the files replayed so far, and for `--verify` the data
/// files read so far (from the oracle's workers).
pub struct Progress<'a> {
    pub replayed: &'a mut dyn FnMut(usize),
    pub files_read: &'a (dyn Fn(usize) + Sync),
}

impl Progress<'_> {
    /// Nothing reported (the Python package, the tests).
    pub fn silent<T>(run: impl FnOnce(Progress<'_>) -> T) -> T {
        run(Progress {
            replayed: &mut |_| {},
            files_read: &|_| {},
        })
    }
}

/// One predicate's answer: its report, the gates it failed (`verify` is one), and the
/// explanation behind them (its per-file survivor sets in the replay's order, which the
/// harness's checks hold to the rows).
pub struct Answer {
    pub report: Report,
    pub failures: Vec<String>,
    pub explanation: Explanation,
}

impl Answer {
    /// The report and the failed gates' lines, the explanation dropped.
    pub fn reported(self) -> Reported {
        (self.report, self.failures)
    }
}

/// The answer for one predicate (or the baseline) of `request`: streamed, unless the report
/// goes back to the files (`verify`, the ranges), which replays the table whole and answers
/// with [`explain_replayed`]. Either way one report builder (the stream's, over windows or
/// over the whole table as one window).
pub fn explain_one(
    request: &ExplainRequest,
    progress: Progress<'_>,
) -> Result<Answer, ExplainError> {
    let started = Instant::now();
    request.options.check(request.predicate.as_deref())?;
    if !request.whole() {
        let streamed = explain_streaming(&request.stream(), progress.replayed)?;
        let (report, failures) = streamed.reported(elapsed_ms(started));
        return Ok(Answer {
            report,
            failures,
            explanation: streamed.explained.explanation,
        });
    }
    let table = ReplayedTable::open_observed_with(
        &request.location,
        &request.storage,
        request.version,
        progress.replayed,
    )?;
    let mut answer = explain_replayed(&Session::new(&table), request, progress.files_read)?;
    answer.report.elapsed_ms = elapsed_ms(started);
    Ok(answer)
}

/// [`explain_one`] of a table replayed already, held in `session` (which stands for the
/// request's location, storage and version): the table is explained as one window of the
/// stream, the ranges read from its rows, `verify` run against its files (`files_read` hears
/// how many the oracle has read). The harness's checks ask their cached tables this way, with
/// the request the command builds.
fn explain_replayed(
    session: &Session<'_>,
    request: &ExplainRequest,
    files_read: &(dyn Fn(usize) + Sync),
) -> Result<Answer, ExplainError> {
    let started = Instant::now();
    request.options.check(request.predicate.as_deref())?;
    let table = session.table();
    let stream = &request.stream();
    let compiled = stream
        .predicate
        .as_deref()
        .map(|text| CompiledPredicate::compile(text, table))
        .transpose()?;
    let ((mut report, failures), explanation) =
        session.explained(compiled.as_ref(), &stream.report, started)?;
    let mut columns = request.options.ranges.clone();
    if request.referenced_ranges {
        for info in compiled
            .iter()
            .flat_map(|c| {
                let (partition, data) = table.columns().split_columns(&c.normalized);
                partition.into_iter().chain(data)
            })
            .filter(|i| i.primitive().is_some())
        {
            let name = info.column.dotted();
            if !columns.iter().any(|c| c.eq_ignore_ascii_case(&name)) {
                columns.push(name);
            }
        }
    }
    if !columns.is_empty() {
        report.ranges = Some(
            columns
                .iter()
                .map(|c| crate::ranges::column_ranges(table, &explanation, c))
                .collect::<Result<_, _>>()?,
        );
    }
    #[cfg(not(feature = "verify"))]
    let _ = files_read;
    #[cfg(not(feature = "verify"))]
    if request.options.verify {
        return Err(ExplainError::Usage(
            "--verify reads the rows with DataFusion, which this build leaves out (built without the `verify` feature)".into(),
        ));
    }
    #[cfg(feature = "verify")]
    let failures = {
        let mut failures = failures;
        if request.options.verify {
            let verify = crate::verify::VerifyRequest {
                storage: stream.storage.clone(),
                parallelism: request.parallelism,
            };
            failures.extend(crate::verify::verify(
                table,
                &explanation,
                stream.predicate.as_deref(),
                &verify,
                &mut report,
                files_read,
            )?);
        }
        failures
    };
    report.elapsed_ms = elapsed_ms(started);
    Ok(Answer {
        report,
        failures,
        explanation,
    })
}

/// The reports of many predicates, each with its options, against one streamed replay of the
/// request's table, on every core, in input order; a predicate that is not valid is an error
/// in its place, a table error stops the run. The request's own predicate is not one of them;
/// `verify` and `ranges` (which go back to the files) are refused.
pub fn explain_many(
    request: &ExplainRequest,
    predicates: &[(String, Options)],
    progress: &mut dyn FnMut(usize),
) -> Result<StreamedReports, ExplainError> {
    for (predicate, options) in predicates {
        options.check(Some(predicate))?;
        if options.whole() {
            return Err(ExplainError::Usage(
                "verify and ranges go back to the files: one predicate at a time".to_string(),
            ));
        }
    }
    let many = StreamManyRequest {
        storage: request.storage.clone(),
        version: request.version,
        entries: predicates
            .iter()
            .map(|(p, options)| (p.clone(), options.report_request()))
            .collect(),
        ..StreamManyRequest::new(&request.location, &[], &ReportRequest::default())
    };
    report_many_streaming(&many, progress)
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}
