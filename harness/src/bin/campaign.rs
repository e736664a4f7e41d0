//! `campaign --seconds N [--cases N] [--seed S] [--jobs J] [--out DIR] [--no-save]
//! [--work-dir DIR] [--engine ballista --scheduler df://HOST:PORT]`: the nightly fuzz campaign.
//! Writes `DIR/report.json`, `DIR/report.md` and its charts, and saves each minimized failure
//! under `corpora/regressions/` (so `cargo test` replays it). Exit 1 when something failed, 3
//! when the oracle's engine (a cluster) failed and the campaign stopped.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use harness::campaign::{CampaignOptions, run};
use harness::conformance::{self, ConformanceOptions, ReaderName};
use harness::corpus::corpora_dir;
use harness::page::{charts, markdown};
use harness::subject::OracleEngine;
use indicatif::{ProgressBar, ProgressStyle};
use oracle::engine::EngineArgs;
use oracle::engines::SemanticsArg;

#[derive(Debug, Parser)]
#[command(
    name = "campaign",
    about = "Differential fuzz campaign of delta-explain against the oracle"
)]
struct Args {
    /// How long to run.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Stop after about this many cases.
    #[arg(long)]
    cases: Option<u64>,
    /// The campaign seed: the same seed draws the same tables and predicates.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Predicates per generated table.
    #[arg(long, default_value_t = 40)]
    predicates: usize,
    /// Each table's predicates end with an AND and an OR of this many leaves drawn from its
    /// pools (0: none): the long chains the explainer accepts, which the oracle must answer.
    #[arg(long, default_value_t = 0, value_name = "N")]
    chain_leaves: usize,
    /// The log as it evolves: each round also appends a random sequence of operations (an
    /// OPTIMIZE-style rewrite, deletes with deletion vectors, a log compaction) where the table
    /// allows them and checks soundness at every version, not only the last; with --engines,
    /// every reader reads every version.
    #[arg(long)]
    histories: bool,
    /// Where to write the report (default: reports/campaign-seed-<SEED>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Do not save minimized failures under corpora/regressions/.
    #[arg(long)]
    no_save: bool,
    /// Where the generated tables are written (default: the system's temporary directory).
    /// With a cluster of several machines: a directory every executor sees at the same path.
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
    /// Where the oracle's DataFusion matching runs (the row-wise interpreter it is checked
    /// against stays here).
    #[command(flatten)]
    engine: EngineArgs,
    /// The engines that run every predicate themselves as the soundness check's truth, beside
    /// the oracle's model: `spark`, `spark-ansi`, `duckdb`, `datafusion` or `all` (Spark and
    /// DuckDB from the environment `oracle/engines/setup.sh` makes). Each engine's version is
    /// in the report; an unavailable engine is counted as unknown, never as agreement.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "ENGINE")]
    semantics: Vec<SemanticsArg>,
    /// The conformance campaign instead: the Delta readers named (`kernel`,
    /// `datafusion-parquet`, `duckdb-delta`, `delta-rs`, `polars` or `all`) read every
    /// generated table themselves, each held to its own engine's rows (harness/src/conformance).
    /// The report goes to `--out` (default reports/conformance-seed-<SEED>) with a reproduction
    /// of each finding; exit 1 on a finding.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "READER")]
    engines: Vec<ReaderName>,
    /// The conformance campaign with a reader pinned at a version from PyPI, in an
    /// environment of its own made once and reused offline (`oracle/engines/reader-env.sh`):
    /// `delta-rs==1.1.4`, `polars==1.27.1`, `duckdb-delta==1.5.1` (the version of
    /// `duckdb-extension-delta`, which pins its DuckDB). Repeatable; it takes the place of the
    /// same reader in --engines.
    #[arg(long = "reader", value_name = "NAME==VERSION")]
    readers: Vec<conformance::Pin>,
    /// With --engines or --reader: run the shared fixtures with their corpora (`corpora/`)
    /// first.
    #[arg(long)]
    fixtures: bool,
    /// With --engines or --reader: the known findings (a conformance `report.json`, or a file
    /// of known causes holding a `findings` array; repeatable: their union); the run fails
    /// only on a finding whose cause is not among them.
    #[arg(long, value_name = "REPORT_JSON")]
    known: Vec<PathBuf>,
    /// Recall on known bugs instead: each bug of the list (harness/known-bugs.json) has its
    /// reader run the conformance campaign at the version with the bug and at the version
    /// with the fix, --minutes each; the report (recall.json, README.md in --out, default
    /// reports/recall-seed-<SEED>) says which were found and how long it took.
    #[arg(long, value_name = "FILE")]
    known_bugs: Option<PathBuf>,
    /// With --known-bugs: minutes of campaign per version.
    #[arg(long, default_value_t = 2, requires = "known_bugs")]
    minutes: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let engine = match args.engine.cluster() {
        Ok(None) => OracleEngine::Local,
        Ok(Some(cluster)) => OracleEngine::Ballista(cluster),
        Err(e) => {
            eprintln!("campaign: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(dir) = &args.work_dir
        && !dir.is_dir()
    {
        eprintln!("campaign: --work-dir {} is not a directory", dir.display());
        return ExitCode::from(2);
    }
    if let Some(file) = &args.known_bugs {
        return recall(&args, file);
    }
    if !args.engines.is_empty() || !args.readers.is_empty() {
        return conformance_campaign(&args);
    } else if args.fixtures || !args.known.is_empty() {
        eprintln!("campaign: --fixtures and --known go with --engines or --reader");
        return ExitCode::from(2);
    }
    let out = args.out.clone().unwrap_or_else(|| {
        corpora_dir()
            .join("..")
            .join("reports")
            .join(format!("campaign-seed-{}", args.seed))
    });
    let bar = ProgressBar::new(args.seconds);
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed_precise}/{len}s {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    let progress = |cases: u64| {
        bar.set_position(started.elapsed().as_secs().min(args.seconds));
        bar.set_message(format!("{cases} cases"));
    };
    let options = CampaignOptions {
        seconds: args.seconds,
        max_cases: args.cases,
        seed: args.seed,
        jobs: args.jobs,
        predicates_per_table: args.predicates,
        engine,
        work_dir: args.work_dir.clone(),
        engines: SemanticsArg::resolve(&args.semantics),
        chain_leaves: args.chain_leaves,
        histories: args.histories,
    };
    let (report, regressions) = run(&options, &progress);
    bar.finish_and_clear();
    let command = format!(
        "cargo run --release -p harness --bin campaign -- --seconds {} --seed {} --jobs {}{}{}{}{}",
        args.seconds,
        args.seed,
        args.jobs,
        args.cases
            .map(|c| format!(" --cases {c}"))
            .unwrap_or_default(),
        if args.histories { " --histories" } else { "" },
        args.engine
            .scheduler
            .as_ref()
            .map(|s| format!(" --engine ballista --scheduler {s}"))
            .unwrap_or_default(),
        if options.engines.is_empty() {
            String::new()
        } else {
            let names: Vec<&str> = options.engines.iter().map(|e| e.name()).collect();
            format!(" --semantics {}", names.join(","))
        }
    );
    if let Err(e) = write_report(&out, &report, &command) {
        eprintln!("campaign: cannot write the report: {e}");
        return ExitCode::from(3);
    }
    if !args.no_save {
        let dir = corpora_dir().join("regressions");
        for r in &regressions {
            let text = serde_json::to_string_pretty(r).unwrap_or_default();
            let name = format!("{}-{:016x}.json", r.invariant, fnv(&text));
            if let Err(e) = std::fs::create_dir_all(&dir)
                .and_then(|_| std::fs::write(dir.join(&name), text + "\n"))
            {
                eprintln!("campaign: cannot save {name}: {e}");
            }
        }
    }
    if let Some(e) = &report.engine_error {
        eprintln!("campaign: stopped, the oracle's engine failed: {e}");
        return ExitCode::from(3);
    }
    eprintln!(
        "campaign: {} cases in {:.0} s ({:.1}/s), {} failure(s); report in {}",
        report.cases,
        report.seconds,
        report.cases_per_second,
        report.failures.len(),
        out.display()
    );
    if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The known causes of the `--known` files (none given: `None`, every finding fails).
fn known_causes(paths: &[PathBuf]) -> Result<Option<Vec<conformance::Finding>>, String> {
    if paths.is_empty() {
        return Ok(None);
    }
    let mut all = Vec::new();
    for path in paths {
        all.extend(conformance::read_known(path)?);
    }
    Ok(Some(all))
}

/// `campaign --known-bugs FILE`: the recall of the conformance campaign on known bugs.
fn recall(args: &Args, file: &std::path::Path) -> ExitCode {
    let bugs = match conformance::recall::read(file) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("campaign: --known-bugs {e}");
            return ExitCode::from(2);
        }
    };
    let out = args.out.clone().unwrap_or_else(|| {
        corpora_dir()
            .join("..")
            .join("reports")
            .join(format!("recall-seed-{}", args.seed))
    });
    let options = ConformanceOptions {
        seconds: args.minutes * 60,
        max_cases: args.cases,
        seed: args.seed,
        predicates_per_table: args.predicates,
        work_dir: args.work_dir.clone(),
        out: None,
        fixtures: Vec::new(),
        histories: args.histories,
    };
    let started = std::time::Instant::now();
    let recall = conformance::recall::run(
        &bugs,
        &options,
        &mut |pin| conformance::workers::WorkerAdapter::pinned(pin.reader, &pin.version),
        &mut |what| {
            eprintln!(
                "campaign: {:>5} s, known bug {what}",
                started.elapsed().as_secs()
            );
        },
    );
    let command = format!(
        "cargo run --release -p harness --bin campaign -- --known-bugs {} --minutes {} --seed {} --predicates {}",
        file.display(),
        args.minutes,
        args.seed,
        args.predicates
    );
    if let Err(e) = conformance::recall::write(&out, &recall, &command) {
        eprintln!("campaign: cannot write the report: {e}");
        return ExitCode::from(3);
    }
    eprintln!(
        "campaign: recall {:.0}% of {} known bugs ({:.0}% of those reachable); report in {}",
        recall.recall * 100.0,
        recall.bugs.len(),
        recall.recall_reachable * 100.0,
        out.display()
    );
    ExitCode::SUCCESS
}

/// The command that reruns this campaign with the readers `names`.
fn command_line(args: &Args, names: &[String]) -> String {
    let pins: String = args
        .readers
        .iter()
        .map(|p| format!(" --reader {p}"))
        .collect();
    format!(
        "cargo run --release -p harness --bin campaign -- --engines {}{pins} --seconds {} --seed {} --predicates {}{}{}{}",
        names.join(","),
        args.seconds,
        args.seed,
        args.predicates,
        if args.fixtures { " --fixtures" } else { "" },
        if args.histories { " --histories" } else { "" },
        args.cases
            .map(|c| format!(" --cases {c}"))
            .unwrap_or_default(),
    )
}

/// The readers `--engines` and `--reader` name, started, each one's version said on stderr;
/// `None` where they cannot be (said too).
fn readers(args: &Args) -> Option<Vec<Box<dyn conformance::Adapter>>> {
    let mut adapters = match conformance::adapters(&args.engines) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("campaign: {e}");
            return None;
        }
    };
    // A pinned reader takes the place of the same reader named by --engines.
    adapters.retain(|a| !args.readers.iter().any(|p| p.reader.name() == a.name()));
    for pin in &args.readers {
        eprintln!("campaign: {pin}: its environment (made once)");
        adapters.push(conformance::workers::WorkerAdapter::pinned(
            pin.reader,
            &pin.version,
        ));
    }
    for a in &adapters {
        match a.version() {
            Ok(v) => eprintln!("campaign: {} {v}", a.name()),
            Err(why) => eprintln!("campaign: {} is unavailable: {why}", a.name()),
        }
    }
    Some(adapters)
}

/// `campaign --engines ...`: the conformance campaign of the readers named.
fn conformance_campaign(args: &Args) -> ExitCode {
    let out = args.out.clone().unwrap_or_else(|| {
        corpora_dir()
            .join("..")
            .join("reports")
            .join(format!("conformance-seed-{}", args.seed))
    });
    let Some(mut adapters) = readers(args) else {
        return ExitCode::from(2);
    };
    let known = match known_causes(&args.known) {
        Ok(known) => known,
        Err(e) => {
            eprintln!("campaign: --known {e}");
            return ExitCode::from(2);
        }
    };
    let fixtures = if args.fixtures {
        match fixture_tables() {
            Ok(f) => f,
            Err(e) => {
                eprintln!("campaign: {e}");
                return ExitCode::from(3);
            }
        }
    } else {
        Vec::new()
    };
    let options = ConformanceOptions {
        seconds: args.seconds,
        max_cases: args.cases,
        seed: args.seed,
        predicates_per_table: args.predicates,
        work_dir: args.work_dir.clone(),
        out: Some(out.clone()),
        fixtures,
        histories: args.histories,
    };
    let started = std::time::Instant::now();
    let report = conformance::run(&options, &mut adapters, &mut |table, cases| {
        eprintln!(
            "campaign: {:>4} s, {cases} cases, next table {table}",
            started.elapsed().as_secs()
        );
    });
    let mut report = match report {
        Ok(r) => r,
        Err(e) => {
            eprintln!("campaign: {e}");
            return ExitCode::from(3);
        }
    };
    // The upstream issue of each known cause, in the report.
    if let Some(known) = &known {
        conformance::annotate_known(&mut report, known);
        report.group_bugs();
    }
    if let Err(e) = conformance::repro::note_upstream(&out, &report.findings) {
        eprintln!("campaign: cannot note the upstream issues in the reproductions: {e}");
    }
    let names: Vec<String> = adapters.iter().map(|a| a.name().to_string()).collect();
    let command = command_line(args, &names);
    if let Err(e) = conformance::page::write(&out, &report, &command) {
        eprintln!("campaign: cannot write the report: {e}");
        return ExitCode::from(3);
    }
    let findings = report.findings.len();
    eprintln!(
        "campaign: {} tables, {} predicates in {:.0} s, {findings} cause(s) of {} failing case(s); report in {}",
        report.tables,
        report.predicates,
        report.seconds,
        report.failing_cases,
        out.display()
    );
    // A reader that could not run checked nothing: never a pass.
    let unavailable: Vec<&str> = adapters
        .iter()
        .filter(|a| a.version().is_err())
        .map(|a| a.name())
        .collect();
    if !unavailable.is_empty() {
        eprintln!(
            "campaign: unavailable, nothing checked: {} (run oracle/engines/setup.sh)",
            unavailable.join(", ")
        );
        return ExitCode::from(1);
    }
    let failing = match &known {
        None => findings,
        Some(known) => {
            let new = conformance::new_findings(&report, known);
            for f in &new {
                eprintln!(
                    "campaign: a cause not among the known ones: {} on `{}`: `{}` ({})",
                    f.cause, f.table, f.minimized, f.detail
                );
            }
            new.len()
        }
    };
    if failing == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The shared fixtures with a corpus: `(name, location, predicates)`.
fn fixture_tables() -> Result<Vec<(String, String, Vec<String>)>, String> {
    let root = testkit::fixtures_location();
    let mut tables = vec![root.join("taxi-nyc")];
    let real = root.join("real");
    let mut more: Vec<PathBuf> = std::fs::read_dir(&real)
        .map_err(|e| format!("the fixtures: {}: {e}", real.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("_delta_log").is_dir())
        .collect();
    more.sort();
    tables.extend(more);
    let mut out = Vec::new();
    for table in tables {
        let name = table
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let corpus = harness::corpus::corpus_path(&name);
        if corpus.is_file() {
            out.push((
                name,
                table.to_string_lossy().into_owned(),
                harness::corpus::read_corpus(&corpus)?,
            ));
        }
    }
    Ok(out)
}

fn write_report(
    out: &std::path::Path,
    report: &harness::campaign::CampaignReport,
    command: &str,
) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(
        out.join("report.json"),
        serde_json::to_string_pretty(report).unwrap_or_default() + "\n",
    )?;
    std::fs::write(out.join("report.md"), markdown(report, command))?;
    for (name, svg) in charts(report) {
        std::fs::write(out.join(name), svg)?;
    }
    Ok(())
}

/// A stable name for a regression file (FNV-1a of its text).
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
