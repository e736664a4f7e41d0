//! What one predicate's report carries beside the counts, and the gates it answers
//! ([`ReportRequest`]), and the last step of every report: the gates' assertions and the
//! warnings ([`finish_report`]). Shared by the stream's report builder ([`crate::stream`]) and
//! the session that holds a table whole ([`crate::session`]).

use crate::accepted::PresentValues;
use crate::explain::{ExplainOptions, Explanation};
use crate::gates;
use crate::report::Report;
use crate::report::assertions::Assertion;

/// What to put in one predicate's report beside the counts.
#[derive(Clone, Debug, Default)]
pub struct ReportRequest {
    pub options: ExplainOptions,
    /// `--min-pruning PCT`.
    pub min_pruning: Option<f64>,
    /// `--min-files N`.
    pub min_files: Option<usize>,
    /// `--assert-stats`.
    pub assert_stats: bool,
    /// `--verbose`: the per-file view, at most `limit` files.
    pub verbose: bool,
    pub limit: Option<usize>,
    /// `--layers`.
    pub layers: bool,
    /// `--explain-why`.
    pub explain_why: bool,
    /// `analysis.stats_coverage` (a pass over the statistics of the partition survivors).
    pub stats_coverage: bool,
}

/// One report and the lines of the gates it failed.
pub type Reported = (Report, Vec<String>);

/// Sets what every report carries beside the counts: `--strict`, the gates' assertions
/// (`stats`: the `--assert-stats` assertion, checked over the files by the caller) and the
/// warnings; returns the failed gates' lines.
pub fn finish_report(
    request: &ReportRequest,
    report: &mut Report,
    explanation: &Explanation,
    columns: &explain_compiler::schema::TableColumns,
    present: &PresentValues,
    stats: Option<Assertion>,
) -> Vec<String> {
    report.strict = request.options.strict;
    let mut assertions = Vec::new();
    if let Some(threshold) = request.min_pruning {
        assertions.push(gates::min_pruning(
            threshold,
            report.total_files - report.final_files,
            report.total_files,
            report.total_pruning_pct,
        ));
    }
    if let Some(threshold) = request.min_files {
        assertions.push(gates::min_files(threshold, report.final_files));
    }
    if request.assert_stats {
        assertions.extend(stats);
    }
    let failures: Vec<String> = assertions
        .iter()
        .filter(|a| a.outcome() == crate::report::assertions::Outcome::Fail)
        .map(crate::report::assertions::Assertion::failure_line)
        .collect();
    // Probably a mistake rather than perfect pruning: said by default.
    report.warnings = crate::diagnose::absent_partition_values(columns, present, explanation)
        .iter()
        .map(crate::diagnose::AbsentValue::warning)
        .collect();
    report.set_assertions(assertions);
    failures
}
