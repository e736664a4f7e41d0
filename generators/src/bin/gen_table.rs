//! `gen-table <NAME|SPEC.json> <DIR> [--seed N]`: writes a generated table, so anyone can
//! reproduce a case; `gen-table --list` names the catalog; `--print-spec` shows a spec as JSON;
//! `gen-table --metadata-only FILES <DIR>` writes a table of statistics without data files.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use generators::catalog::{NAMES, named, named_with_seed};
use generators::spec::TableSpec;
use generators::writer::{write_metadata_only, write_table};

#[derive(Debug, Parser)]
#[command(name = "gen-table", about = "Writes a generated Delta table")]
struct Args {
    /// A catalog name (see --list) or a spec JSON file.
    spec: Option<String>,
    /// The folder to write the table into (created; must hold no table).
    dir: Option<PathBuf>,
    /// Override the spec's seed.
    #[arg(long)]
    seed: Option<u64>,
    /// List the catalog's names.
    #[arg(long)]
    list: bool,
    /// Print the spec as JSON instead of writing it.
    #[arg(long)]
    print_spec: bool,
    /// Write a metadata-only table of this many files (SPEC is then the folder).
    #[arg(long, value_name = "FILES")]
    metadata_only: Option<usize>,
    /// With --metadata-only: partition over this many values of `p`.
    #[arg(long, default_value_t = 0)]
    partitions: usize,
    /// With --metadata-only: JSON commits of this many adds instead of a checkpoint.
    #[arg(long)]
    json_commits: Option<usize>,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen-table: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    if args.list {
        for name in NAMES {
            println!("{name}");
        }
        return Ok(());
    }
    if let Some(files) = args.metadata_only {
        let dir = args
            .spec
            .as_ref()
            .map(PathBuf::from)
            .ok_or("give the folder to write")?;
        let started = Instant::now();
        let version = write_metadata_only(
            &dir,
            files,
            args.partitions,
            args.json_commits.is_none(),
            args.json_commits.unwrap_or(0),
        )?;
        eprintln!(
            "wrote {files} files at version {version} into {} in {:.1} s",
            dir.display(),
            started.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    let name = args
        .spec
        .as_deref()
        .ok_or("give a catalog name or a spec file (see --list)")?;
    let mut spec: TableSpec = if name.ends_with(".json") {
        let text = std::fs::read_to_string(name).map_err(|e| format!("{name}: {e}"))?;
        serde_json::from_str(&text).map_err(|e| format!("{name}: {e}"))?
    } else {
        match args.seed {
            Some(seed) => named_with_seed(name, seed),
            None => named(name),
        }
        .ok_or_else(|| format!("no spec named `{name}` (see --list)"))?
    };
    if let Some(seed) = args.seed {
        spec.seed = seed;
    }
    if args.print_spec {
        println!(
            "{}",
            serde_json::to_string_pretty(&spec).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    let dir = args.dir.as_ref().ok_or("give the folder to write")?;
    let table = write_table(&spec, dir)?;
    eprintln!(
        "wrote `{}` (seed {}): {} files, version {}, into {}",
        spec.name,
        spec.seed,
        table.files.len(),
        table.version,
        dir.display()
    );
    Ok(())
}
