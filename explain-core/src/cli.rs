//! The command line: argument parsing and the run that turns them into a report and an exit
//! code. `main.rs` only wires this to the process.

use std::time::Instant;

use clap::{Parser, ValueEnum};

use crate::diagnose::diagnose;
use crate::error::ExplainError;
use crate::layers::Layers;
use crate::explain::{explain_with, ExplainOptions};
use crate::gates;
use crate::replay::ReplayedTable;
use crate::report::Report;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Explains Delta Lake file pruning for a SQL WHERE predicate.
#[derive(Debug, Parser)]
#[command(name = "delta-explain", version, about)]
#[command(group = clap::ArgGroup::new("file_lists").args(["verbose", "layers"]).multiple(true))]
pub struct Args {
    /// The Delta table: a directory path or a URL (file://, ...).
    pub table: String,
    /// The SQL WHERE predicate to explain.
    #[arg(short = 'w', long = "where", value_name = "PREDICATE")]
    pub predicate: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Explain the table as of this version (time travel).
    #[arg(long, value_name = "N")]
    pub at_version: Option<u64>,
    /// Show per-file outcomes (in JSON: the `files` array).
    #[arg(short, long)]
    pub verbose: bool,
    /// Show at most N files in the per-file view and in each survivor set of --layers.
    #[arg(long, value_name = "N", requires = "file_lists")]
    pub limit: Option<usize>,
    /// Gate: fail (exit 1, report still printed) unless at least PCT percent of files are pruned.
    #[arg(long, value_name = "PCT", requires = "predicate", value_parser = parse_pct)]
    pub min_pruning: Option<f64>,
    /// Gate: fail (exit 1) if any file lacks statistics for a data column the predicate uses.
    #[arg(long)]
    pub assert_stats: bool,
    /// Leave out of the scan every fragment NaN rows could satisfy beyond the recorded
    /// min/max (float `>`, `>=`, `!=`), so the survivor set is sound for any data.
    #[arg(long, requires = "predicate")]
    pub strict: bool,
    /// Diagnose weak pruning: stable codes with a message and a suggestion each.
    #[arg(long, requires = "predicate")]
    pub explain_why: bool,
    /// Show the five forms of the predicate: parsed AST, normalized AST, classification,
    /// kernel scan predicates, survivor sets.
    #[arg(long, requires = "predicate")]
    pub layers: bool,
}

fn parse_pct(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        _ => Err(format!("`{text}` is not a percentage from 0 to 100")),
    }
}

/// The outcome of a run: what to print and the exit code.
pub struct Outcome {
    pub stdout: String,
    /// One line for stderr (a failed gate), empty otherwise.
    pub stderr: String,
    pub exit_code: i32,
}

/// Runs the tool. Errors carry their exit code; stdout stays empty on error.
pub fn run(args: &Args) -> Result<Outcome, ExplainError> {
    let started = Instant::now();
    let table = ReplayedTable::open(&args.table, args.at_version)?;
    let options = ExplainOptions { strict: args.strict };
    let explanation = explain_with(&table, args.predicate.as_deref(), options)?;
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut report = Report::build(&table, &explanation, elapsed_ms);
    report.strict = args.strict;
    let mut assertions = Vec::new();
    if let Some(threshold) = args.min_pruning {
        assertions.push(gates::min_pruning(threshold, report.total_pruning_pct));
    }
    if args.assert_stats {
        assertions.push(gates::stats_complete(&table, &explanation));
    }
    let failures: Vec<String> = assertions
        .iter()
        .filter(|a| a.outcome() == gates::Outcome::Fail)
        .map(gates::Assertion::failure_line)
        .collect();
    report = report.with_assertions(assertions);
    if args.verbose {
        report = report.with_files(&table, &explanation, args.limit);
    }
    if args.layers {
        report.layers = Layers::build(&table, &explanation, args.limit);
    }
    if args.explain_why {
        report.diagnoses = Some(diagnose(&table, &explanation)?);
    }
    let stdout = match args.format {
        Format::Text => report.to_text(),
        Format::Json => report.to_json() + "\n",
    };
    Ok(Outcome { stdout, stderr: failures.join("; "), exit_code: if failures.is_empty() { 0 } else { 1 } })
}
