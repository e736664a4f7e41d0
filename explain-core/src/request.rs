//! The library's entry points for whole reports, shared by the command and the Python package:
//! one predicate ([`explain_one`]) and many against one replay ([`explain_many`]).
//!
//! Both stream (constant memory, [`crate::stream`]), unless one predicate's report goes back to
//! the files after the explanation: `--verify` (the data), the ranges (each file's bounds, for
//! `--ranges` and the HTML page). Those replay the table whole ([`crate::session`]).

use std::time::Instant;

use crate::error::ExplainError;
use crate::explain::CompiledPredicate;
use crate::replay::ReplayedTable;
use crate::session::{ReportRequest, Reported, Session};
use crate::stream::{StreamManyRequest, StreamRequest, explain_streaming, report_many_streaming};

/// One predicate's report: the table, the predicate and sections of a stream, and what goes
/// back to the files.
#[derive(Clone, Debug)]
pub struct ExplainRequest {
    pub stream: StreamRequest,
    /// `--verify`: the funnel checked against the data.
    pub verify: bool,
    /// `--ranges`: the columns whose per-file ranges the report carries.
    pub ranges: Vec<String>,
    /// The ranges of every column the predicate references too (the HTML page).
    pub referenced_ranges: bool,
    /// Files the oracle reads at once for `verify`.
    pub parallelism: usize,
}

impl ExplainRequest {
    /// The baseline of the latest snapshot at `location`, streamed.
    pub fn new(location: &str) -> Self {
        Self {
            stream: StreamRequest::new(location),
            verify: false,
            ranges: Vec::new(),
            referenced_ranges: false,
            parallelism: crate::cores(),
        }
    }

    /// Whether the report goes back to the files, so the table is replayed whole.
    fn whole(&self) -> bool {
        self.verify || self.referenced_ranges || !self.ranges.is_empty()
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

/// The report of one predicate (or the baseline) and the gates it failed (`--verify` is one).
pub fn explain_one(
    request: &ExplainRequest,
    progress: Progress<'_>,
) -> Result<Reported, ExplainError> {
    let started = Instant::now();
    let stream = &request.stream;
    if !request.whole() {
        let streamed = explain_streaming(stream, progress.replayed)?;
        return Ok(streamed.reported(elapsed_ms(started)));
    }
    let table = ReplayedTable::open_observed_with(
        &stream.location,
        &stream.storage,
        stream.version,
        progress.replayed,
    )?;
    let session = Session::new(&table);
    let compiled = stream
        .predicate
        .as_deref()
        .map(|text| CompiledPredicate::compile(text, &table))
        .transpose()?;
    let ((mut report, mut failures), explanation) =
        session.explained(compiled.as_ref(), &stream.report, started)?;
    let mut columns = request.ranges.clone();
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
                .map(|c| crate::ranges::column_ranges(&table, &explanation, c))
                .collect::<Result<_, _>>()?,
        );
    }
    if request.verify {
        let verify = crate::verify::VerifyRequest {
            storage: stream.storage.clone(),
            parallelism: request.parallelism,
        };
        failures.extend(crate::verify::verify(
            &table,
            &explanation,
            stream.predicate.as_deref(),
            &verify,
            &mut report,
            progress.files_read,
        )?);
    }
    report.elapsed_ms = elapsed_ms(started);
    Ok((report, failures))
}

/// The reports of many predicates against one streamed replay of the table at `location`, on
/// every core, in input order; an invalid predicate is an error in its place.
pub fn explain_many(
    location: &str,
    storage: &storage::StorageOptions,
    version: Option<u64>,
    predicates: &[&str],
    request: &ReportRequest,
    progress: &mut dyn FnMut(usize),
) -> Result<Vec<Result<Reported, ExplainError>>, ExplainError> {
    let request = StreamManyRequest {
        storage: storage.clone(),
        version,
        ..StreamManyRequest::new(location, predicates, request)
    };
    Ok(report_many_streaming(&request, progress)?.reports)
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}
