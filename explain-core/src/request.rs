//! The library's entry points, shared by the command, the Python package and the harness, and
//! its one request type ([`ExplainRequest`], from [`crate::explain_request`]: where the table
//! is, which snapshot, which predicate or predicates, and the [`Options`] of each report),
//! answered by [`explain_one`] (one predicate,
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

use storage::StorageOptions;

use crate::explain::{CompiledPredicate, Explanation};
use crate::replay::ReplayedTable;
use crate::report::Report;
use crate::report_request::Reported;
use crate::session::Session;
use crate::stream::{StreamedReports, explain_streaming, report_many_streaming};
use explain_compiler::error::ExplainError;

pub use crate::explain_request::{ExplainRequest, Options, locate};

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
    // Time functions bound once, before planning, as the engines bind them.
    let (bound, bindings, _) = request.bound_in_time(run_instant())?;
    let mut answer = explain_bound(&bound, progress, started)?;
    if !bindings.is_empty() {
        answer.report.predicate = request.predicate.clone();
        answer.report.bindings = bindings;
    }
    Ok(answer)
}

/// [`explain_one`] of a request whose time functions are bound.
fn explain_bound(
    request: &ExplainRequest,
    progress: Progress<'_>,
    started: Instant,
) -> Result<Answer, ExplainError> {
    if !request.options.whole() {
        let streamed = explain_streaming(request, progress.replayed)?;
        let (report, failures) = streamed.reported(elapsed_ms(started));
        return Ok(Answer {
            report,
            failures,
            explanation: streamed.explained.explanation,
        });
    }
    let (location, storage) = request.located()?;
    let table =
        ReplayedTable::open_observed_with(&location, &storage, request.version, progress.replayed)?;
    let mut answer = explain_replayed(
        &Session::new(&table),
        request,
        &storage,
        progress.files_read,
    )?;
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
    storage: &StorageOptions,
    files_read: &(dyn Fn(usize) + Sync),
) -> Result<Answer, ExplainError> {
    let started = Instant::now();
    let table = session.table();
    let compiled = request
        .predicate
        .as_deref()
        .map(|text| CompiledPredicate::compile(text, table))
        .transpose()?;
    let ((mut report, failures), explanation) =
        session.report_with_explanation(compiled.as_ref(), &request.report_request(), started)?;
    let mut columns = request.options.ranges.clone();
    if request.options.referenced_ranges {
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
    let _ = (files_read, storage);
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
                storage: storage.clone(),
                parallelism: request.parallelism,
            };
            failures.extend(crate::verify::verify(
                table,
                &explanation,
                request.predicate.as_deref(),
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

/// The reports of the request's predicates ([`ExplainRequest::predicates`]), each with its
/// options, against one streamed replay of its table, on every core, in input order; a
/// predicate that is not valid is an error in its place, a table error stops the run.
/// `verify` and the ranges (which go back to the files) are refused, and so is a request that
/// also names one predicate of its own ([`explain_one`]'s).
pub fn explain_many(
    request: &ExplainRequest,
    progress: &mut dyn FnMut(usize),
) -> Result<StreamedReports, ExplainError> {
    if request.predicate.is_some() {
        return Err(ExplainError::Usage(
            "one predicate (explain_one) or many (explain_many), not both".to_string(),
        ));
    }
    for (predicate, options) in &request.predicates {
        options.check(Some(predicate))?;
        if options.whole() {
            return Err(ExplainError::Usage(
                "verify and ranges go back to the files: one predicate at a time".to_string(),
            ));
        }
    }
    let (bound, _, bindings) = request.bound_in_time(run_instant())?;
    let mut streamed = report_many_streaming(&bound, progress)?;
    for ((outcome, bound), (text, _)) in streamed
        .reports
        .iter_mut()
        .zip(bindings)
        .zip(&request.predicates)
    {
        if let Ok((report, _)) = outcome
            && !bound.is_empty()
        {
            report.predicate = Some(text.clone());
            report.bindings = bound;
        }
    }
    Ok(streamed)
}

/// The instant a run binds its time functions to: now, in microseconds since the epoch.
pub(crate) fn run_instant() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}
