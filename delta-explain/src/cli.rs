//! The command line: argument parsing and the run that turns them into a report and an exit
//! code. `main.rs` only wires this to the process.

use clap::{Parser, ValueEnum};

use explain_compiler::error::ExplainError;
use explain_core::report::Report;
use explain_core::report::assertions::Outcome;
use explain_core::request::{ExplainRequest, Options, Progress, explain_many, explain_one};
use explain_core::stream::StreamedReports;

use crate::budget::NO_PREDICATE;
use crate::inputs::{StoreArgs, read_input};
use crate::progress::FileProgress;
use crate::render;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    /// One self-contained page (no network): the funnel, each file's range per column, the
    /// clustering figures, the analysis and diagnoses.
    Html,
}

pub use explain_core::VERSION;

const EXAMPLES: &str = "\
Examples:
  # How partition pruning and data skipping narrow one predicate
  delta-explain ./taxi -w \"pickup_date = '2024-01-03' AND trip_distance > 5\"
  # Every file with the phase that pruned it, as JSON for jq
  delta-explain ./taxi -w \"fare_amount > 50\" -v --format json | jq '.files[] | select(.kept) | .path'
  # Why pruning is weak, and what would help
  delta-explain ./taxi -w \"trip_distance > 5\" --explain-why
  # The funnel down to the rows that really match, as a page to open in a browser
  delta-explain ./taxi -w \"trip_distance > 5\" --verify --format html > funnel.html
  # Each file's [min, max] of a column against the predicate, in the terminal
  delta-explain ./taxi -w \"trip_distance > 5\" --ranges trip_distance
  # A CI gate: at least 80% of files pruned, at least one file kept
  delta-explain s3://bucket/events -w \"day = '2024-01-15'\" --min-pruning 80 --min-files 1
  # Many predicates against one log replay, from a file or standard input
  delta-explain ./taxi --predicates queries.sql --format json
  # Shell completions and the man page
  delta-explain --completions bash > /etc/bash_completion.d/delta-explain
  delta-explain --man > delta-explain.1

Exit codes: 0 ok, 1 a gate failed (the report is still printed), 2 bad input, 3 table or
storage error.";

/// Explains Delta Lake file pruning for a SQL WHERE predicate.
#[derive(Clone, Debug, Parser)]
#[command(name = "delta-explain", version = VERSION, about, after_help = EXAMPLES)]
#[command(group = clap::ArgGroup::new("file_lists").args(["verbose", "layers"]).multiple(true))]
#[command(group = clap::ArgGroup::new("some_predicate").args(["predicate", "predicates"]))]
#[command(
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    disable_help_subcommand = true
)]
pub struct Args {
    /// A command other than the explanation (the default).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The Delta table: a directory path or a URL (file://, s3://, s3a://, az://, abfs[s]://,
    /// gs://). Credentials come from each cloud's environment variables and files.
    #[arg(required_unless_present_any = ["completions", "man"])]
    pub table: Option<String>,
    #[command(flatten)]
    pub store: StoreArgs,
    /// The SQL WHERE predicate to explain (it may start with a minus sign: `-w '-x > 0'`).
    #[arg(
        short = 'w',
        long = "where",
        value_name = "PREDICATE",
        allow_hyphen_values = true
    )]
    pub predicate: Option<String>,
    /// Explain every predicate of FILE (one per line; blank lines and `#` comments skipped;
    /// `-` reads standard input) against one replay of the table, on every core: in JSON an
    /// array of reports (file order), in text a line each. A bad line becomes an error entry in
    /// its place and the run exits 2 at the end.
    #[arg(long, value_name = "FILE", conflicts_with = "predicate")]
    pub predicates: Option<std::path::PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Explain the table as of this version (time travel).
    #[arg(long, value_name = "N")]
    pub at_version: Option<u64>,
    /// Bind current_date(), current_timestamp() and now() to this instant (yyyy-mm-dd or a
    /// timestamp, UTC unless it says otherwise) instead of the time of the run, as an engine
    /// running the query then would; the report says each value bound.
    #[arg(long, value_name = "TIMESTAMP", requires = "some_predicate")]
    pub now: Option<String>,
    /// Show per-file outcomes (in JSON: the `files` array).
    #[arg(short, long)]
    pub verbose: bool,
    /// Show at most N files in the per-file view and in each survivor set of --layers.
    #[arg(long, value_name = "N", requires = "file_lists")]
    pub limit: Option<usize>,
    /// Gate: fail (exit 1, report still printed) unless at least PCT percent of files are pruned.
    #[arg(long, value_name = "PCT", requires = "some_predicate", value_parser = parse_pct)]
    pub min_pruning: Option<f64>,
    /// Gate: fail (exit 1, report still printed) unless at least N files are kept.
    #[arg(long, value_name = "N", requires = "some_predicate")]
    pub min_files: Option<usize>,
    /// Gate: fail (exit 1) if any file lacks statistics for a data column the predicate uses.
    #[arg(long)]
    pub assert_stats: bool,
    /// Leave out of the scan every fragment NaN rows could satisfy beyond the recorded
    /// min/max (float comparisons, in any engine's NaN order), so the survivor set is sound
    /// under Spark, DuckDB and DataFusion semantics at once.
    #[arg(long, requires = "some_predicate")]
    pub strict: bool,
    /// Diagnose weak pruning: stable codes with a message and a suggestion each.
    #[arg(long, requires = "some_predicate")]
    pub explain_why: bool,
    /// Show the five forms of the predicate: parsed AST, normalized AST, classification,
    /// kernel scan predicates, survivor sets.
    #[arg(long, requires = "some_predicate")]
    pub layers: bool,
    /// Verify the funnel against the data: after the log's phases, the row groups an engine
    /// still reads after checking the Parquet footers (DataFusion's rules) and the files and
    /// row groups that really hold a matching row (every live row is read). Fails (exit 1) if
    /// a dropped file holds a match.
    #[arg(long, requires = "predicate", conflicts_with_all = ["predicates", "budget"])]
    pub verify: bool,
    /// Show each file's [min, max] of COLUMN against the predicate's interval, sorted so that
    /// overlap shows, with the clustering figures (average overlap depth, histogram).
    #[arg(long, value_name = "COLUMN", conflicts_with_all = ["predicates", "budget"])]
    pub ranges: Option<String>,
    /// Run a budget: the named predicates of FILE (TOML, `[[predicate]]` entries with `name`,
    /// `where` and their own gates `min_pruning`, `min_files`, `assert_stats`) against one
    /// replay; exit 1 if any gate fails or (with --baseline) any predicate regresses.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["predicate", "predicates"])]
    pub budget: Option<std::path::PathBuf>,
    /// A stored run to compare with (the JSON of `--budget`, of `-w` or of `--predicates`;
    /// matched by budget name or by predicate text): a predicate whose pruning now removes a
    /// smaller share of the files or bytes than it did is a regression (exit 1). Shares, not
    /// counts: a table that only gained data has not regressed.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<std::path::PathBuf>,
    /// How many percentage points of pruning a predicate may lose against --baseline before it
    /// is a regression.
    #[arg(long, value_name = "PCT", default_value_t = 1.0, requires = "baseline", value_parser = parse_pct)]
    pub baseline_tolerance: f64,
    /// Append a markdown summary of the run (one row per predicate) to FILE (e.g.
    /// $GITHUB_STEP_SUMMARY).
    #[arg(long, value_name = "FILE")]
    pub summary_md: Option<std::path::PathBuf>,
    /// Write the run as JUnit XML to FILE (one test case per predicate, a failure per failed
    /// gate or regression).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<std::path::PathBuf>,
    /// Print completions for SHELL (bash, zsh, fish, elvish, powershell) and exit.
    #[arg(long, value_name = "SHELL", exclusive = true)]
    pub completions: Option<clap_complete::Shell>,
    /// Print the man page (roff) and exit.
    #[arg(long, exclusive = true)]
    pub man: bool,
}

/// The commands beside the explanation.
#[derive(Clone, Debug, clap::Subcommand)]
pub enum Command {
    /// Simulates other layouts of a table (partitioning, sorting, Z-order and Hilbert order on
    /// the workload's columns) and ranks them by what a workload of predicates would read.
    #[command(
        after_help = "Example:\n  delta-explain advise ./taxi --predicates queries.sql --sample 1000000\n\nExit codes: 0 ok, 2 bad input, 3 table or storage error."
    )]
    Advise(crate::advise_cli::AdviseArgs),
    /// Checks the explainer against itself on the table, reading no row: the files kept for
    /// the predicate, its negation and its NULL rows together hold every file with a row; a
    /// narrower predicate keeps no file the predicate prunes, a wider one every file it keeps.
    #[command(
        after_help = "Example:\n  delta-explain check ./taxi -w \"trip_distance > 5 AND pickup_date = '2024-01-03'\"\n\nExit codes: 0 every check holds, 1 a check failed, 2 bad input, 3 table or storage error."
    )]
    Check(crate::check_cli::CheckArgs),
    /// Explains one predicate at two versions of a table (or on two tables) side by side:
    /// each phase's survivors, the share of files and bytes pruned, and whether skipping got
    /// worse (a CI gate with --fail-if-worse).
    #[command(
        after_help = "Example:\n  delta-explain diff ./taxi --from-version 2 --to-version 3 -w \"trip_distance > 5\" --fail-if-worse\n\nExit codes: 0 ok, 1 skipping got worse (--fail-if-worse), 2 bad input, 3 table or storage error."
    )]
    Diff(crate::diff_cli::DiffArgs),
    /// Why the table does not skip, from its log alone: the statistics settings and the
    /// columns they leave without statistics, each column's statistics across the files, the
    /// layout, and for a workload what each predicate keeps, why, and the property that would
    /// give its columns statistics.
    #[command(
        after_help = "Example:\n  delta-explain doctor ./taxi -w \"trip_distance > 5\" --predicates queries.sql\n\nExit codes: 0 ok, 2 bad input, 3 table or storage error."
    )]
    Doctor(crate::doctor_cli::DoctorArgs),
}

/// What `--completions SHELL` or `--man` print: generated from the command definition itself,
/// so they cannot drift from the flags.
pub fn generated_docs(args: &Args) -> Option<Vec<u8>> {
    use clap::CommandFactory;
    let mut command = Args::command();
    if let Some(shell) = args.completions {
        let mut out = Vec::new();
        clap_complete::generate(shell, &mut command, "delta-explain", &mut out);
        return Some(out);
    }
    if args.man {
        let mut out = Vec::new();
        clap_mangen::Man::new(command).render(&mut out).ok()?;
        return Some(out);
    }
    None
}

impl Args {
    /// What each report of the run carries beside the counts, and its gates.
    pub fn options(&self) -> Options {
        Options {
            strict: self.strict,
            verbose: self.verbose,
            limit: self.limit,
            explain_why: self.explain_why,
            layers: self.layers,
            verify: self.verify,
            ranges: self.ranges.iter().cloned().collect(),
            // The page draws the ranges of the columns the predicate references.
            referenced_ranges: self.format == Format::Html,
            min_pruning: self.min_pruning,
            min_files: self.min_files,
            assert_stats: self.assert_stats,
            now: self.now.clone(),
        }
    }

    /// How to reach the table's store.
    pub fn storage(&self) -> storage::StorageOptions {
        self.store.options()
    }
}

fn parse_pct(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        _ => Err(format!("`{text}` is not a percentage from 0 to 100")),
    }
}

/// The outcome of a run: what to print and the exit code.
pub struct CommandOutput {
    pub stdout: String,
    /// One line for stderr (a failed gate), empty otherwise.
    pub stderr: String,
    /// Lines for stderr about results that are probably mistakes (the exit code stays 0).
    pub warnings: Vec<String>,
    pub exit_code: i32,
}

/// Runs the tool. Errors carry their exit code; stdout stays empty on error.
pub fn run(args: &Args) -> Result<CommandOutput, ExplainError> {
    if args.predicates.is_some() && args.format == Format::Text {
        let sections: Vec<&str> = [
            (args.verbose, "--verbose"),
            (args.layers, "--layers"),
            (args.explain_why, "--explain-why"),
        ]
        .into_iter()
        .filter_map(|(on, flag)| on.then_some(flag))
        .collect();
        if !sections.is_empty() {
            return Err(ExplainError::Usage(format!(
                "{} add sections the one line per predicate of --predicates does not show; use --format json, where each report carries them",
                sections.join(", ")
            )));
        }
    }
    if args.format == Format::Html && (args.predicates.is_some() || args.budget.is_some()) {
        return Err(ExplainError::Usage(
            "--format html draws one predicate's page; use --format json with --predicates or --budget".into(),
        ));
    }
    let named = args
        .table
        .as_deref()
        .ok_or_else(|| ExplainError::Usage("a table location is required".into()))?;
    // A catalog's name is resolved by the library, as it opens the table.
    let location = named;
    let progress = FileProgress::replay(location);
    // Every run streams: one predicate alone (unless its report goes back to the files:
    // `--verify`, the ranges), many predicates over one replay.
    match (&args.predicates, &args.budget) {
        (Some(path), _) => run_many(args, location, path, &progress),
        (None, Some(path)) => run_budget(args, location, path, &progress),
        (None, None) => run_one(args, location, progress),
    }
}

/// `entries` explained over one streamed replay of `location`, the replay's progress shown.
fn stream_many(
    args: &Args,
    location: &str,
    entries: &[(String, Options)],
    progress: &FileProgress,
) -> Result<StreamedReports, ExplainError> {
    let request = ExplainRequest::new(location)
        .storage(args.storage())
        .catalog(args.store.catalog())
        .version(args.at_version)
        .predicates(entries.to_vec());
    let streamed = explain_many(&request, &mut |n| progress.files_so_far(n));
    progress.finish();
    streamed
}

/// One predicate (or the baseline): streamed while the log is replayed, a window of rows held
/// at once whatever the size of the table, unless the report goes back to the files
/// (`--verify`, `--ranges`, the HTML page).
fn run_one(
    args: &Args,
    location: &str,
    progress: FileProgress,
) -> Result<CommandOutput, ExplainError> {
    let request = ExplainRequest::new(location)
        .storage(args.storage())
        .catalog(args.store.catalog())
        .version(args.at_version)
        .predicate(args.predicate.clone())
        .options(args.options());
    let reading = FileProgress::reading(location);
    let reported = explain_one(
        &request,
        Progress {
            replayed: &mut |n| progress.files_so_far(n),
            files_read: &|n| {
                // The replay is over when the data is read.
                progress.finish();
                reading.files_so_far(n);
            },
        },
    );
    progress.finish();
    reading.finish();
    let (report, mut failures) = reported?.reported();
    let name = report
        .predicate
        .as_deref()
        .map_or_else(|| NO_PREDICATE.to_string(), |p| p.trim().to_string());
    let ci = ci_outputs(args, vec![(name, report.clone(), failures.clone())])?;
    failures.extend(ci.regressions);
    let mut out = outcome(args, &report, failures);
    if args.format == Format::Text {
        out.stdout.push_str(&ci.text);
    }
    Ok(out)
}

/// What `--baseline`, `--summary-md` and `--junit` add to a run of one or many predicates.
struct CiOutputs {
    /// Each regression, `name: what`.
    regressions: Vec<String>,
    /// The baseline beside the current figures, for the text page (empty without a baseline).
    text: String,
}

/// The baseline comparison and the CI files of a run of named reports (the predicate's text
/// names each), as a budget run writes them.
fn ci_outputs(
    args: &Args,
    reports: Vec<(String, Report, Vec<String>)>,
) -> Result<CiOutputs, ExplainError> {
    use crate::budget::{Baseline, BudgetRun, EntryResult, regressions};
    if args.baseline.is_none() && args.summary_md.is_none() && args.junit.is_none() {
        return Ok(CiOutputs {
            regressions: Vec::new(),
            text: String::new(),
        });
    }
    let baseline = read_baselines(args)?;
    let mut found = Vec::new();
    let mut text = String::new();
    let mut entries = Vec::new();
    for (name, report, mut failures) in reports {
        let base = baseline.get(&name).cloned();
        if let Some(b) = &base {
            let lost = regressions(&report, b, args.baseline_tolerance);
            found.extend(lost.iter().map(|r| format!("{name}: {r}")));
            failures.extend(lost);
            text.push_str(&format!(
                "\nBaseline ({}):\n  now      {}\n  baseline {}\n",
                name,
                Baseline::of(&report).describe(),
                b.describe()
            ));
        } else if args.baseline.is_some() {
            text.push_str(&format!("\nBaseline: `{name}` is not in it\n"));
        }
        entries.push(EntryResult {
            name: name.clone(),
            predicate: report.predicate.clone().unwrap_or_default(),
            result: if failures.is_empty() {
                Outcome::Pass
            } else {
                Outcome::Fail
            },
            failures,
            baseline: base,
            report,
        });
    }
    let (table, version) = entries
        .first()
        .map(|e| (e.report.table.clone(), e.report.version))
        .unwrap_or_default();
    let run = BudgetRun {
        schema_version: crate::budget::BUDGET_SCHEMA_VERSION,
        table,
        version,
        result: if entries.iter().all(|e| e.result == Outcome::Pass) {
            Outcome::Pass
        } else {
            Outcome::Fail
        },
        entries,
    };
    write_ci_files(args, &run)?;
    Ok(CiOutputs {
        regressions: found,
        text,
    })
}

/// The stored run of `--baseline`, by name (empty without one).
fn read_baselines(
    args: &Args,
) -> Result<std::collections::BTreeMap<String, crate::budget::Baseline>, ExplainError> {
    match &args.baseline {
        Some(p) => {
            let (shown, text) = read_input(p, false)?;
            crate::budget::read_baseline(&text, &shown)
        }
        None => Ok(Default::default()),
    }
}

/// `--summary-md` (appended) and `--junit` (written) of a run.
fn write_ci_files(args: &Args, run: &crate::budget::BudgetRun) -> Result<(), ExplainError> {
    if let Some(p) = &args.summary_md {
        use std::io::Write;
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .and_then(|mut f| f.write_all(run.to_markdown().as_bytes()))
            .map_err(|e| ExplainError::Output(format!("{}: {e}", p.display())))?;
    }
    if let Some(p) = &args.junit {
        std::fs::write(p, run.to_junit())
            .map_err(|e| ExplainError::Output(format!("{}: {e}", p.display())))?;
    }
    Ok(())
}

/// The outcome of one report: printed in the asked format, exit 1 when a gate failed.
fn outcome(args: &Args, report: &Report, failures: Vec<String>) -> CommandOutput {
    let stdout = match args.format {
        Format::Text => render::report_text(report),
        Format::Json => report.to_json() + "\n",
        Format::Html => render::report_html(report),
    };
    CommandOutput {
        stdout,
        stderr: failures.join("; "),
        warnings: report.warnings.clone(),
        exit_code: if failures.is_empty() { 0 } else { 1 },
    }
}

/// The budget of `path` against the one replay of `table`: each entry explained with its own
/// gates, compared with the baseline run if one is given, written as JSON or text, and as
/// markdown and JUnit XML where asked.
fn run_budget(
    args: &Args,
    location: &str,
    path: &std::path::Path,
    progress: &FileProgress,
) -> Result<CommandOutput, ExplainError> {
    use crate::budget::{Budget, BudgetRun, EntryResult, regressions};
    let (shown, text) = read_input(path, false)?;
    let budget = Budget::parse(&text, &shown)?;
    let baseline = read_baselines(args)?;
    let requests: Vec<(String, Options)> = budget
        .predicates
        .iter()
        .map(|entry| {
            let options = Options {
                min_pruning: entry.min_pruning,
                min_files: entry.min_files,
                assert_stats: entry.assert_stats,
                ..args.options()
            };
            (entry.predicate.clone(), options)
        })
        .collect();
    let streamed = stream_many(args, location, &requests, progress)?;
    let table = &streamed.table;
    let mut entries = Vec::new();
    for (entry, reported) in budget.predicates.iter().zip(streamed.reports) {
        let (report, mut failures) = reported
            .map_err(|e| ExplainError::Usage(format!("budget {shown}: `{}`: {e}", entry.name)))?;
        let base = baseline.get(&entry.name).cloned();
        if let Some(b) = &base {
            failures.extend(regressions(&report, b, args.baseline_tolerance));
        }
        entries.push(EntryResult {
            name: entry.name.clone(),
            predicate: entry.predicate.clone(),
            result: if failures.is_empty() {
                Outcome::Pass
            } else {
                Outcome::Fail
            },
            failures,
            baseline: base,
            report,
        });
    }
    let failed: Vec<String> = entries
        .iter()
        .filter(|e| e.result == Outcome::Fail)
        .map(|e| format!("{}: {}", e.name, e.failures.join(", ")))
        .collect();
    let run = BudgetRun {
        schema_version: crate::budget::BUDGET_SCHEMA_VERSION,
        table: table.location().to_string(),
        version: table.version(),
        result: if failed.is_empty() {
            Outcome::Pass
        } else {
            Outcome::Fail
        },
        entries,
    };
    write_ci_files(args, &run)?;
    let stdout = match args.format {
        Format::Json => serde_json::to_string_pretty(&run).unwrap_or_default() + "\n",
        Format::Text | Format::Html => run.to_text(),
    };
    Ok(CommandOutput {
        stdout,
        stderr: if failed.is_empty() {
            String::new()
        } else {
            format!("budget failed: {}", failed.join("; "))
        },
        warnings: Vec::new(),
        exit_code: if failed.is_empty() { 0 } else { 1 },
    })
}

/// Every predicate of `path` (`-` reads standard input), explained against the one replay of
/// `table`. A line that is not a valid predicate becomes an error entry in its place (in JSON
/// `{"line", "predicate", "error", "exit_code"}`, in text `line N: error: ...`) and the run
/// exits 2 once every line is answered; a table error still stops the batch.
fn run_many(
    args: &Args,
    location: &str,
    path: &std::path::Path,
    progress: &FileProgress,
) -> Result<CommandOutput, ExplainError> {
    let (shown, text) = read_input(path, true)?;
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, p)| !p.is_empty() && !p.starts_with('#'))
        .collect();
    let predicates: Vec<&str> = lines.iter().map(|(_, p)| *p).collect();
    let mut entries: Vec<serde_json::Value> = Vec::new();
    let mut summary = Vec::new();
    let mut failures = Vec::new();
    let mut bad_lines = 0usize;
    let options = args.options();
    let requests: Vec<(String, Options)> = predicates
        .iter()
        .map(|p| (p.to_string(), options.clone()))
        .collect();
    let outcomes = stream_many(args, location, &requests, progress)?.reports;
    let mut named = Vec::new();
    for ((line, predicate), outcome) in lines.iter().zip(outcomes) {
        match outcome {
            Ok((report, gate_failures)) => {
                failures.extend(gate_failures.iter().map(|f| format!("line {line}: {f}")));
                summary.push(render::summary_line(&report));
                entries.push(serde_json::to_value(&report).unwrap_or_default());
                named.push((predicate.to_string(), report, gate_failures));
            }
            Err(e @ (ExplainError::Table { .. } | ExplainError::Output(_))) => return Err(e),
            Err(e) => {
                bad_lines += 1;
                summary.push(format!("line {line}: error: {e}"));
                entries.push(serde_json::json!({
                    "line": line,
                    "predicate": predicate,
                    "error": e.to_string(),
                    "exit_code": e.exit_code(),
                }));
            }
        }
    }
    let ci = ci_outputs(args, named)?;
    failures.extend(ci.regressions);
    let stdout = match args.format {
        Format::Json => serde_json::to_string_pretty(&entries).unwrap_or_default() + "\n",
        Format::Text | Format::Html => summary.join("\n") + "\n" + &ci.text,
    };
    if bad_lines > 0 {
        failures.insert(
            0,
            format!(
                "{bad_lines} line(s) of {shown} are not valid predicates (error entries in their place)"
            ),
        );
    }
    Ok(CommandOutput {
        stdout,
        stderr: failures.join("; "),
        // Each report carries its own warnings; the batch does not repeat them on stderr.
        warnings: Vec::new(),
        exit_code: match (bad_lines, failures.is_empty()) {
            (0, true) => 0,
            (0, false) => 1,
            _ => 2,
        },
    })
}
