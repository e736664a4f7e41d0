//! The command line: argument parsing and the run that turns them into a report and an exit
//! code. `main.rs` only wires this to the process.

use std::time::Instant;

use clap::{Parser, ValueEnum};

use crate::error::ExplainError;
use crate::explain::explain;
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
}

/// The outcome of a run: what to print and the exit code.
pub struct Outcome {
    pub stdout: String,
    pub exit_code: i32,
}

/// Runs the tool. Errors carry their exit code; stdout stays empty on error.
pub fn run(args: &Args) -> Result<Outcome, ExplainError> {
    let started = Instant::now();
    let table = ReplayedTable::open(&args.table, args.at_version)?;
    let explanation = explain(&table, args.predicate.as_deref())?;
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let report = Report::build(&table, &explanation, elapsed_ms);
    let stdout = match args.format {
        Format::Text => report.to_text(),
        Format::Json => report.to_json() + "\n",
    };
    Ok(Outcome { stdout, exit_code: 0 })
}
