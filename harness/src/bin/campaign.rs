//! `campaign --seconds N [--cases N] [--seed S] [--jobs J] [--out DIR] [--no-save]
//! [--work-dir DIR] [--engine ballista --scheduler df://HOST:PORT]`: the nightly fuzz campaign.
//! Writes `DIR/report.json`, `DIR/report.md` and its charts, and saves each minimized failure
//! under `corpora/regressions/` (so `cargo test` replays it). Exit 1 when something failed, 3
//! when the oracle's engine (a cluster) failed and the campaign stopped.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use harness::campaign::{CampaignOptions, run};
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
    };
    let (report, regressions) = run(&options, &progress);
    bar.finish_and_clear();
    let command = format!(
        "cargo run --release -p harness --bin campaign -- --seconds {} --seed {} --jobs {}{}{}{}",
        args.seconds,
        args.seed,
        args.jobs,
        args.cases
            .map(|c| format!(" --cases {c}"))
            .unwrap_or_default(),
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
