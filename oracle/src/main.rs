//! `delta-oracle <TABLE> -w <PREDICATE> [--format text|json] [--at-version N]`: the files that
//! really match, with their matching row counts, and the statistics-pruning kept set.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use oracle::engine::EngineArgs;
use oracle::engines::{Answer, Engines, SemanticsArg};
use oracle::error::one_line;
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;
use oracle::report::OracleReport;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Each engine's own answer: its version, and the files it matches, its refusal, or why it
/// is unavailable.
fn per_engine(args: &Args, snapshot: Snapshot) -> Result<String, oracle::OracleError> {
    let wanted = SemanticsArg::resolve(&args.semantics);
    let table = LoadedTable::load(snapshot, &plan(num_cpus()))?;
    let mut engines = Engines::start(&table, &wanted)?;
    let mut out = Vec::new();
    for s in wanted {
        let version = engines.version(s);
        let entry = match engines.answer(s, &args.predicate)? {
            Err(unavailable) => serde_json::json!({"engine": s.name(), "status": "unavailable",
                "reason": unavailable.reason}),
            Ok(Answer::Refused(reason)) => serde_json::json!({"engine": s.name(),
                "version": version.ok(), "status": "refused", "reason": reason}),
            Ok(Answer::Rows(rows)) => {
                let files: Vec<&str> = table
                    .snapshot
                    .files
                    .iter()
                    .zip(&rows)
                    .filter(|(_, n)| **n > 0)
                    .map(|(f, _)| f.path.as_str())
                    .collect();
                serde_json::json!({"engine": s.name(), "version": version.ok(), "status": "ok",
                    "matching_rows": rows.iter().sum::<u64>(), "matching_files": files})
            }
        };
        out.push(entry);
    }
    Ok(match args.format {
        Format::Json => {
            serde_json::json!({"table": args.table, "predicate": args.predicate,
            "semantics": out})
            .to_string()
                + "\n"
        }
        Format::Text => {
            let mut text = format!("Predicate: {}\n", args.predicate);
            for e in &out {
                let name = e["engine"].as_str().unwrap_or("?");
                let version = e["version"].as_str().unwrap_or("-");
                text += &match e["status"].as_str() {
                    Some("ok") => format!(
                        "{name} {version}: {} matching row(s) in {} file(s)\n",
                        e["matching_rows"],
                        e["matching_files"].as_array().map_or(0, |a| a.len())
                    ),
                    Some("refused") => format!(
                        "{name} {version}: refuses it: {}\n",
                        e["reason"].as_str().unwrap_or("")
                    ),
                    _ => format!(
                        "{name}: unavailable: {}\n",
                        e["reason"].as_str().unwrap_or("")
                    ),
                };
            }
            text
        }
    })
}

/// Ground truth for Delta file pruning: which files hold rows matching a SQL predicate.
#[derive(Debug, Parser)]
#[command(name = "delta-oracle", version, about)]
struct Args {
    /// The Delta table: a directory path or a URL (file://, s3://, s3a://, az://, abfs[s]://,
    /// gs://). Credentials come from each cloud's environment variables and files.
    table: String,
    /// A storage option for the table's object store, KEY=VALUE (repeatable).
    #[arg(long = "storage-option", visible_alias = "option", value_name = "KEY=VALUE", value_parser = storage::StorageOptions::parse_pair)]
    storage_options: Vec<(String, String)>,
    /// The S3 region of the table's bucket.
    #[arg(long, value_name = "REGION")]
    region: Option<String>,
    /// Unsigned requests, for public buckets.
    #[arg(long)]
    anonymous: bool,
    /// The SQL predicate (DataFusion SQL; column names are case-sensitive).
    #[arg(
        short = 'w',
        long = "where",
        value_name = "PREDICATE",
        allow_hyphen_values = true
    )]
    predicate: String,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Replay the table as of this version.
    #[arg(long, value_name = "N")]
    at_version: Option<u64>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Each file's matching rows per row group as well (`matching_row_groups`).
    #[arg(long)]
    row_groups: bool,
    /// Ask the engines themselves (engines.rs): the matching files under each engine's
    /// reading of the predicate's text, run by Spark (ANSI off, `spark`; on, `spark-ansi`),
    /// DuckDB or DataFusion with its defaults; `all` for every one. Spark and DuckDB need the
    /// environment `oracle/engines/setup.sh` makes; a missing engine is reported unavailable.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "ENGINE")]
    semantics: Vec<SemanticsArg>,
    /// On a cluster: files the driver reads and matches itself, with the oracle's row-wise
    /// evaluator, to check the cluster's answer (0: none).
    #[arg(long, value_name = "N", default_value_t = 8)]
    check_files: usize,
}

/// The report, its files matched on the engine `args` names.
fn report(
    args: &Args,
    storage: &storage::StorageOptions,
    snapshot: Snapshot,
) -> Result<OracleReport, oracle::OracleError> {
    match args.engine.cluster()? {
        None if args.row_groups => OracleReport::with_row_groups(
            &args.table,
            &snapshot,
            &args.predicate,
            &plan(num_cpus()),
        ),
        None => {
            let loaded = LoadedTable::load(snapshot, &plan(num_cpus()))?;
            OracleReport::build(&args.table, &loaded, &args.predicate)
        }
        Some(cluster) => on_cluster(args, storage, &snapshot, &cluster),
    }
}

#[cfg(feature = "ballista")]
fn on_cluster(
    args: &Args,
    storage: &storage::StorageOptions,
    snapshot: &Snapshot,
    cluster: &oracle::engine::ClusterRequest,
) -> Result<OracleReport, oracle::OracleError> {
    let counts = oracle::distributed::match_on_cluster(
        snapshot,
        &args.table,
        storage,
        &args.predicate,
        cluster,
    )?;
    let rows: Vec<(u64, u64)> = counts
        .iter()
        .map(|c| (c.physical_rows, c.live_rows))
        .collect();
    let mut report = if args.row_groups {
        let groups: Vec<Vec<(u32, u64)>> = counts.iter().map(|c| c.row_groups.clone()).collect();
        OracleReport::assemble_with_row_groups(
            &args.table,
            snapshot,
            &args.predicate,
            &rows,
            &groups,
        )?
    } else {
        let matching: Vec<u64> = counts.iter().map(|c| c.matching_rows).collect();
        OracleReport::assemble(&args.table, snapshot, &args.predicate, &rows, &matching)?
    };
    use oracle::distributed::sample::{check_sample, sample_positions};
    let positions = sample_positions(snapshot, &counts, args.check_files);
    if !positions.is_empty() {
        report.checked_on_driver = Some(check_sample(
            snapshot,
            &args.predicate,
            &counts,
            &positions,
        )?);
    }
    Ok(report)
}

#[cfg(not(feature = "ballista"))]
fn on_cluster(
    _args: &Args,
    _storage: &storage::StorageOptions,
    _snapshot: &Snapshot,
    _cluster: &oracle::engine::ClusterRequest,
) -> Result<OracleReport, oracle::OracleError> {
    // `EngineArgs::cluster` refuses `--engine ballista` first; this says the same.
    Err(oracle::OracleError::Usage(
        "this binary was built without the `ballista` feature".into(),
    ))
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        // A damaged file's panic inside a guarded read becomes that read's error.
        if oracle::guarded::catching() {
            return;
        }
        eprintln!(
            "delta-oracle: internal error: {}",
            one_line(&info.to_string())
        );
    }));
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            print!("{e}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("delta-oracle: {}", one_line(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let run = || -> Result<String, oracle::OracleError> {
        let storage = storage::StorageOptions {
            options: args.storage_options.clone(),
            region: args.region.clone(),
            anonymous: args.anonymous,
            vended: None,
        };
        // Contradicting engine flags are bad input before the table is opened.
        args.engine.cluster()?;
        let snapshot = Snapshot::open_with(&args.table, &storage, args.at_version)?;
        if !args.semantics.is_empty() {
            return per_engine(&args, snapshot);
        }
        let report = report(&args, &storage, snapshot)?;
        Ok(match args.format {
            Format::Text => report.to_text(),
            Format::Json => report.to_json() + "\n",
        })
    };
    // DataFusion recurses over the predicate in places its stack protection does not reach
    // (displaying an expression's name): a predicate nested as deep as the explainer accepts
    // runs on a thread with room for it.
    let result = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("delta-oracle".into())
            .stack_size(oracle::DEEP_STACK)
            .spawn_scoped(scope, run)
            .map_err(|e| oracle::OracleError::log(format!("cannot start a thread: {e}")))
            .map(|handle| handle.join())
    });
    // A panic outside a guarded read is a bug: the hook has said so on its one line.
    let result = match result {
        Ok(Ok(r)) => r,
        Ok(Err(_)) => return ExitCode::from(101),
        Err(e) => Err(e),
    };
    match result {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout
                .write_all(out.as_bytes())
                .and_then(|_| stdout.flush());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("delta-oracle: {e}");
            ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(3))
        }
    }
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
