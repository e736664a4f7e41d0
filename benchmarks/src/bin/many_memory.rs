//! `many_memory`: the memory of `--predicates` (many predicates against one streamed replay)
//! beside one kernel scan, on metadata-only tables of up to millions of files.
//!
//! `many_memory report --out reports/many-memory-DATE --sizes 100000,1000000 --predicates 1000`
//! writes the tables, measures each mode in a child process of its own (so each peak resident
//! set is that mode's alone) and writes `report.json`, `README.md` and a plot:
//!
//! - `floor`: one delta_kernel scan with one predicate, as a reader runs it;
//! - `unpruned`: one kernel scan without a predicate (the kernel listing every file, which
//!   every report's baseline needs);
//! - `one`: `delta-explain TABLE --where P --format json`, streamed;
//! - `many`: `explain_many` (the entry point `--predicates` and `--budget` use) with every
//!   predicate of the set, each report built and serialized as the command writes it.
//!
//! Build it in release: `cargo run --release -p benchmarks --bin many_memory -- report ...`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use explain_core::request::{ExplainRequest, Options, explain_many};
use harness::page::{bar_chart, write_file, write_json};
use harness::scaling::{
    LogLayout, Partitioning, TableShape, cpu_ms, delta_explain, final_files, floor_scan,
    measure_child, median, memory_mib, resident_kib, round2 as round, scan_predicates,
};
use serde::{Deserialize, Serialize};

#[derive(Parser)]
#[command(
    name = "many_memory",
    about = "Measures the memory of many predicates against one streamed replay"
)]
struct Cli {
    #[command(subcommand)]
    command: Step,
}

#[derive(Subcommand)]
enum Step {
    /// Write the tables, measure every mode, write the report.
    Report(ReportArgs),
    /// One measurement (run by `report` in a child process).
    Measure {
        #[arg(long, value_enum)]
        mode: Mode,
        #[arg(long)]
        table: String,
        /// A file of predicates, one per line: `many` explains them all, the other modes
        /// the first.
        #[arg(long)]
        predicates: PathBuf,
    },
}

#[derive(clap::Args)]
struct ReportArgs {
    #[arg(long)]
    out: PathBuf,
    /// Table sizes, in files.
    #[arg(long, value_delimiter = ',', default_value = "100000,1000000")]
    sizes: Vec<usize>,
    /// Predicates explained by `many`.
    #[arg(long, default_value_t = 1000)]
    predicates: usize,
    /// Runs per mode and size (the modes take turns).
    #[arg(long, default_value_t = 2)]
    repeats: usize,
    /// Where the tables go (kept between runs); a temporary folder when absent.
    #[arg(long)]
    work: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Mode {
    Floor,
    Unpruned,
    One,
    Many,
}

const MODES: [(Mode, &str, &str); 4] = [
    (Mode::Floor, "#1e88e5", "one kernel scan with the predicate"),
    (Mode::Unpruned, "#757575", "one kernel scan, no predicate"),
    (Mode::One, "#43a047", "delta-explain, one predicate"),
    (Mode::Many, "#e53935", "explain_many, every predicate"),
];

/// One child's measurement.
#[derive(Debug, Serialize, Deserialize)]
struct Sample {
    wall_ms: f64,
    cpu_ms: f64,
    /// Peak resident set (VmHWM), KiB.
    peak_kib: u64,
    /// Resident set before the work, KiB.
    start_kib: u64,
    /// Files kept, summed over the predicates explained.
    kept: usize,
    /// Predicates explained.
    explained: usize,
}

#[derive(Debug, Serialize, Deserialize)]
struct ModeRow {
    mode: Mode,
    runs: usize,
    median_ms: f64,
    median_cpu_ms: f64,
    peak_mib: f64,
    working_set_mib: f64,
    kept: usize,
    explained: usize,
}

#[derive(Debug, Serialize, Deserialize)]
struct SizeRow {
    shape: TableShape,
    first_predicate: String,
    modes: Vec<ModeRow>,
    /// `many`'s peak over `floor`'s.
    many_over_floor: f64,
    /// `many`'s peak over `unpruned`'s.
    many_over_unpruned: f64,
}

#[derive(Debug, Serialize, Deserialize)]
struct ManyReport {
    command: String,
    cpus: usize,
    predicates: usize,
    sizes: Vec<SizeRow>,
}

fn main() {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Step::Measure {
            mode,
            table,
            predicates,
        } => measure(mode, &table, &predicates).map(|s| {
            println!("{}", serde_json::to_string(&s).unwrap_or_default());
        }),
        Step::Report(args) => report(&args),
    };
    if let Err(e) = outcome {
        eprintln!("many_memory: {e}");
        std::process::exit(1);
    }
}

/// `count` distinct predicates on a partitioned shape, every class the pruning language has:
/// both, data-only, partition-only, a conjunct outside the language, an OR across phases, and
/// IN lists, each with literals that keep a different share of the files.
fn predicates(shape: &TableShape, count: usize) -> Vec<String> {
    let ids = |k: usize| shape.files * 10 * (k % 97 + 1);
    (0..count)
        .map(|k| {
            let p = k % 10;
            match k % 6 {
                0 => format!("p = 'p{p}' AND id < {} AND value >= 0", ids(k)),
                1 => format!("id < {} AND value >= 0", ids(k)),
                2 => format!("p = 'p{p}'"),
                3 => format!("id < {} AND id % 7 = {}", ids(k), k % 7),
                4 => format!("p = 'p{p}' OR id < {}", ids(k)),
                _ => format!(
                    "p IN ('p{p}', 'p{}') AND id >= {}",
                    (p + 3) % 10,
                    ids(k) / 2
                ),
            }
        })
        .collect()
}

fn measure(mode: Mode, table: &str, predicates_file: &Path) -> Result<Sample, String> {
    let text = std::fs::read_to_string(predicates_file)
        .map_err(|e| format!("{}: {e}", predicates_file.display()))?;
    let all: Vec<String> = text.lines().map(str::to_string).collect();
    let first = all.first().ok_or("no predicates")?.clone();
    // Lowering the SQL reads the schema only; it is not the floor's cost.
    let scans = scan_predicates(table, &first)?;
    let start_kib = resident_kib().map_or(0, |r| r.1);
    let cpu_before = cpu_ms().unwrap_or(0.0);
    let started = Instant::now();
    let (kept, explained) = match mode {
        Mode::Floor => (floor_scan(table, scans.full.clone())?, 1),
        Mode::Unpruned => (floor_scan(table, None)?, 0),
        Mode::One => (final_files(&delta_explain(table, &first)?)?, 1),
        Mode::Many => {
            let entries: Vec<(String, Options)> = all
                .iter()
                .map(|p| (p.clone(), Options::default()))
                .collect();
            let request = ExplainRequest::new(table).predicates(entries);
            let streamed = explain_many(&request, &mut |_| {}).map_err(|e| e.to_string())?;
            let mut kept = 0;
            for (outcome, predicate) in streamed.reports.into_iter().zip(&all) {
                let (report, _) = outcome.map_err(|e| format!("{predicate}: {e}"))?;
                // Serialized as `--predicates` writes it, then dropped.
                kept += final_files(&report.to_json())?;
            }
            (kept, all.len())
        }
    };
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(Sample {
        wall_ms,
        cpu_ms: cpu_ms().map_or(0.0, |after| after - cpu_before),
        peak_kib: resident_kib().map_or(0, |r| r.0),
        start_kib,
        kept,
        explained,
    })
}

fn report(args: &ReportArgs) -> Result<(), String> {
    let temp;
    let work = match &args.work {
        Some(w) => w.clone(),
        None => {
            temp = tempfile::tempdir().map_err(|e| e.to_string())?;
            temp.path().to_path_buf()
        }
    };
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut sizes = Vec::new();
    for &files in &args.sizes {
        let shape = TableShape {
            files,
            partitioning: Partitioning::Partitioned,
            layout: LogLayout::Checkpoint,
        };
        eprintln!("many_memory: writing {}", shape.name());
        let table = shape.write(&work)?.to_string_lossy().to_string();
        let set = predicates(&shape, args.predicates);
        let file = work.join(format!("predicates-{files}-{}.txt", args.predicates));
        std::fs::write(&file, set.join("\n")).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut samples: Vec<Vec<Sample>> = MODES.iter().map(|_| Vec::new()).collect();
        for run in 0..args.repeats.max(1) {
            for (m, (mode, _, _)) in MODES.iter().enumerate() {
                eprintln!(
                    "many_memory: {} run {}/{} {mode:?}",
                    shape.name(),
                    run + 1,
                    args.repeats.max(1)
                );
                samples[m].push(child(&exe, *mode, &table, &file)?);
            }
        }
        let modes: Vec<ModeRow> = MODES
            .iter()
            .zip(&samples)
            .map(|((mode, _, _), s)| figures(*mode, s))
            .collect::<Result<_, _>>()?;
        // The first predicate's answer is one answer: the kernel and the tool must agree.
        if modes[0].kept != modes[2].kept {
            return Err(format!(
                "{}: the kernel keeps {} files, delta-explain {}",
                shape.name(),
                modes[0].kept,
                modes[2].kept
            ));
        }
        let peak = |mode: Mode| {
            modes
                .iter()
                .find(|r| r.mode == mode)
                .map_or(f64::NAN, |r| r.peak_mib)
        };
        sizes.push(SizeRow {
            shape,
            first_predicate: set[0].clone(),
            many_over_floor: round(peak(Mode::Many) / peak(Mode::Floor)),
            many_over_unpruned: round(peak(Mode::Many) / peak(Mode::Unpruned)),
            modes,
        });
    }
    let report = ManyReport {
        command: std::env::args().collect::<Vec<_>>().join(" "),
        cpus: explain_core::cores(),
        predicates: args.predicates,
        sizes,
    };
    write_report(&args.out, &report)
}

fn child(exe: &Path, mode: Mode, table: &str, predicates: &Path) -> Result<Sample, String> {
    let name = format!("{mode:?}").to_lowercase();
    let args: [&std::ffi::OsStr; 6] = [
        "--mode".as_ref(),
        name.as_ref(),
        "--table".as_ref(),
        table.as_ref(),
        "--predicates".as_ref(),
        predicates.as_os_str(),
    ];
    measure_child(exe, &args, &format!("{name} on {table}"))
}

fn figures(mode: Mode, samples: &[Sample]) -> Result<ModeRow, String> {
    let first = samples.first().ok_or("no runs")?;
    if samples.iter().any(|s| s.kept != first.kept) {
        return Err(format!("{mode:?}: the runs kept different files"));
    }
    let wall: Vec<f64> = samples.iter().map(|s| s.wall_ms).collect();
    let cpu: Vec<f64> = samples.iter().map(|s| s.cpu_ms).collect();
    let (peak_mib, working_set_mib) = memory_mib(samples.iter().map(|s| (s.peak_kib, s.start_kib)));
    Ok(ModeRow {
        mode,
        runs: samples.len(),
        median_ms: round(median(&wall)),
        median_cpu_ms: round(median(&cpu)),
        peak_mib,
        working_set_mib,
        kept: first.kept,
        explained: first.explained,
    })
}

fn write_report(out: &Path, report: &ManyReport) -> Result<(), String> {
    let write = |name: &str, text: &str| write_file(out, name, text);
    write_json(out, "report.json", report)?;
    let rows: Vec<(String, Vec<(f64, &'static str)>)> = report
        .sizes
        .iter()
        .flat_map(|size| {
            size.modes.iter().map(move |row| {
                let colour = MODES
                    .iter()
                    .find(|(m, _, _)| *m == row.mode)
                    .map_or("#000000", |(_, c, _)| *c);
                (
                    format!("{} files, {:?}", size.shape.files, row.mode).to_lowercase(),
                    vec![(row.peak_mib, colour)],
                )
            })
        })
        .collect();
    let legend: Vec<(&str, &str)> = MODES.iter().map(|(_, c, l)| (*l, *c)).collect();
    write(
        "peak-memory.svg",
        &bar_chart("Peak resident set, MiB", &rows, &legend),
    )?;

    let mut md = String::from("# Many predicates against one streamed replay: memory\n\n");
    md.push_str(&format!(
        "Regenerate: `cargo run --release -p benchmarks --bin many_memory -- report --out <this folder>`.\n\nCommand: `{}`. CPUs: {}.\n\n",
        report.command, report.cpus
    ));
    md.push_str(&format!(
        "Metadata-only tables (checkpoint/partitioned: ten partitions, one checkpoint holding every add). `many` is `explain_core::request::explain_many`, the entry point of `--predicates` and `--budget`, with {} predicates of every class (both, data-only, partition-only, a conjunct outside the pruning language, an OR across the phases, IN lists), each report serialized as the command writes it. `floor` is one delta_kernel scan with the first predicate, as a reader runs it; `unpruned` one kernel scan without a predicate, the kernel listing every file; `one` delta-explain with the first predicate. Each run is a child process of its own; peak is the child's largest resident set (VmHWM), working set that peak minus the resident set before the work.\n\n",
        report.predicates
    ));
    md.push_str("![peak memory](peak-memory.svg)\n\n## Claims\n\n| claim | measured | holds |\n|---|---|---|\n");
    for size in &report.sizes {
        if size.shape.files >= 1_000_000 {
            md.push_str(&format!(
                "| {} predicates on {} files: peak at most 1.5x one kernel scan's | {:.2}x | {} |\n",
                report.predicates,
                size.shape.files,
                size.many_over_floor,
                if size.many_over_floor <= 1.5 { "yes" } else { "**no**" }
            ));
        }
    }
    md.push_str("\n## Measurements\n\n| files | mode | predicates | runs | median ms | median CPU ms | peak MiB | working set MiB | files kept (summed) |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for size in &report.sizes {
        for row in &size.modes {
            md.push_str(&format!(
                "| {} | {:?} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} | {} |\n",
                size.shape.files,
                row.mode,
                row.explained,
                row.runs,
                row.median_ms,
                row.median_cpu_ms,
                row.peak_mib,
                row.working_set_mib,
                row.kept
            ));
        }
        md.push_str(&format!(
            "| {} | many / floor | | | | | {:.2}x | | |\n| {} | many / unpruned | | | | | {:.2}x | | |\n",
            size.shape.files, size.many_over_floor, size.shape.files, size.many_over_unpruned
        ));
    }
    md.push_str(&format!(
        "\nThe first predicate, explained by every mode: `{}`.\n",
        report
            .sizes
            .first()
            .map_or("", |s| s.first_predicate.as_str())
    ));
    write("README.md", &md)
}
