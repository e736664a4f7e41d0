//! `scaling`: the scaling report of the performance claims.
//!
//! `scaling report --out reports/scaling-DATE` writes metadata-only tables of every shape at
//! each size, measures (a) one kernel scan, (b) three independent kernel scans and (c)
//! delta-explain on each, every measurement in a child process of its own so its peak memory
//! is its own; then the `--predicates` throughput on taxi and the oracle against a plain
//! DataFusion count. It writes `report.json`, `README.md` and SVG plots. Build it in release:
//! `cargo run --release -p benchmarks --bin scaling -- report --out DIR`.
//!
//! `scaling measure` is that child: one mode, once, one JSON line on stdout.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use clap::{Parser, Subcommand, ValueEnum};
use explain_core::replay::ReplayedTable;
use explain_core::request::ExplainRequest;
use explain_core::stream::report_many_streaming;
use harness::corpus::{corpus_path, read_corpus};
use harness::one_core::OneCore;
use harness::page::{Series, Stroke, log_log_chart};
use harness::scaling::{
    ParquetCount, Partitioning, PredicateClass, TableShape, cpu_ms, delta_explain,
    delta_explain_with, final_files, floor_scan, log_log_slope, measure_child, median, memory_mib,
    naive_explain, oracle_subject, resident_kib, round2 as round, scan_predicates,
};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

#[derive(Parser)]
#[command(
    name = "scaling",
    about = "Measures delta-explain against plain kernel scans as tables grow"
)]
struct Cli {
    #[command(subcommand)]
    command: Step,
}

#[derive(Subcommand)]
enum Step {
    /// Write the tables, measure everything, write the report.
    Report(ReportArgs),
    /// Render the page and plots again from a report's `report.json`, without measuring.
    Render {
        /// The report folder (holds `report.json`).
        #[arg(long)]
        out: PathBuf,
    },
    /// One measurement (run by `report` in a child process).
    Measure {
        #[arg(long, value_enum)]
        mode: Mode,
        #[arg(long)]
        table: String,
        /// The predicate; none measures the baseline.
        #[arg(long = "where")]
        predicate: Option<String>,
    },
}

#[derive(clap::Args)]
struct ReportArgs {
    /// Folder of the report.
    #[arg(long)]
    out: PathBuf,
    /// Table sizes, in files.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1000,10000,100000,1000000"
    )]
    sizes: Vec<usize>,
    /// Measurements per (shape, mode) at 1M files and up; twice as many at 100k files, four
    /// times below (see `runs_for`).
    #[arg(long, default_value_t = 6)]
    repeats: usize,
    /// Where the generated tables go (kept between runs); a temporary folder when absent.
    #[arg(long)]
    work: Option<PathBuf>,
    /// Predicates explained after one replay of taxi.
    #[arg(long, default_value_t = 5000)]
    predicates: usize,
    /// Of those, how many are also explained each in a run of its own (replay included).
    #[arg(long, default_value_t = 200)]
    separate_runs: usize,
    /// The taxi table (default: the fixtures folder).
    #[arg(long)]
    taxi: Option<PathBuf>,
    /// Table sizes of the predicate-class measurements (every class against one kernel scan
    /// of the same predicate), in files.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1000,10000,100000,1000000"
    )]
    class_sizes: Vec<usize>,
    /// Table sizes of the high-cardinality shapes in the predicate-class measurements: both
    /// layouts, a partition per file.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1000,10000,100000,1000000"
    )]
    high_cardinality_sizes: Vec<usize>,
    /// Add a 10M-file point to the predicate-class measurements (checkpoint shapes; writing
    /// the tables takes minutes and a few GB).
    #[arg(long)]
    ten_million: bool,
    /// Measurements per (shape, class, mode) at 1M files and up; more below (`runs_for`).
    #[arg(long, default_value_t = 3)]
    class_repeats: usize,
    /// A `delta-explain` 0.8.1 binary (the peer): measured beside (a) and (c) on every class
    /// it can run, once per point (it takes seconds where (c) takes milliseconds).
    #[arg(long)]
    peer: Option<PathBuf>,
    /// The largest table the peer is run on (it took 124 s and 11.7 GB at 10M files on 16
    /// cores).
    #[arg(long, default_value_t = 1_000_000)]
    peer_up_to: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Mode {
    /// (a) one kernel scan with the full predicate.
    Floor,
    /// (b) three independent kernel scans.
    Naive,
    /// (c) delta-explain.
    Explain,
    /// The replay alone (`ReplayedTable::open`): the working set every phase shares.
    Replay,
    /// One kernel scan without a predicate: what the kernel alone pays to list every file,
    /// which any explanation must (the baseline), and a pruning scan need not.
    Unpruned,
}

const MODES: [Mode; 5] = [
    Mode::Floor,
    Mode::Naive,
    Mode::Explain,
    Mode::Replay,
    Mode::Unpruned,
];

/// One child's measurement.
#[derive(Debug, Serialize, Deserialize)]
struct Sample {
    wall_ms: f64,
    /// Peak resident set of the child (VmHWM), KiB: the process, its runtime and the work.
    peak_kib: u64,
    /// Resident set before the work started, KiB.
    start_kib: u64,
    /// CPU time of the work, every thread, user and system, ms (the process CPU clock).
    #[serde(default)]
    cpu_ms: f64,
    /// Files kept by the full predicate (the three explaining modes must agree); the replay
    /// mode reports the live files.
    survivors: usize,
}

fn main() {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Step::Measure {
            mode,
            table,
            predicate,
        } => measure(mode, &table, predicate.as_deref()).map(|s| {
            println!("{}", serde_json::to_string(&s).unwrap_or_default());
        }),
        Step::Report(args) => report(&args),
        Step::Render { out } => std::fs::read_to_string(out.join("report.json"))
            .map_err(|e| format!("{}: {e}", out.join("report.json").display()))
            .and_then(|text| {
                serde_json::from_str::<ScalingReport>(&text).map_err(|e| e.to_string())
            })
            .and_then(|mut report| {
                // The claims are read off the measurements again: a report renders with the
                // claims as this build states them.
                report.claims = all_claims(&report);
                write_report(&out, &report)
            }),
    };
    if let Err(e) = outcome {
        eprintln!("scaling: {e}");
        std::process::exit(1);
    }
}

fn measure(mode: Mode, table: &str, predicate: Option<&str>) -> Result<Sample, String> {
    // Lowering the SQL is not part of any mode's cost: it reads the schema only.
    let scans = match predicate {
        Some(p) => scan_predicates(table, p)?,
        None => Default::default(),
    };
    let start_kib = resident_kib().map_or(0, |r| r.1);
    let cpu_before = cpu_ms().unwrap_or(0.0);
    let started = Instant::now();
    let survivors = match mode {
        Mode::Floor => floor_scan(table, scans.full.clone())?,
        Mode::Naive => naive_explain(table, &scans)?[2],
        Mode::Explain => final_files(&delta_explain_with(table, &Default::default(), predicate)?)?,
        Mode::Replay => ReplayedTable::open(table, None)
            .map_err(|e| e.to_string())?
            .files()
            .len(),
        Mode::Unpruned => floor_scan(table, None)?,
    };
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    let peak_kib = resident_kib().map_or(0, |r| r.0);
    let cpu_ms = cpu_ms().map_or(0.0, |after| after - cpu_before);
    Ok(Sample {
        wall_ms,
        peak_kib,
        start_kib,
        cpu_ms,
        survivors,
    })
}

/// The measurements of one shape: per mode, the median wall time and the largest peak.
#[derive(Debug, Serialize, Deserialize)]
struct ShapeRow {
    shape: TableShape,
    config: String,
    predicate: String,
    survivors: usize,
    floor: ModeFigures,
    naive: ModeFigures,
    explain: ModeFigures,
    replay: ModeFigures,
    unpruned: ModeFigures,
    /// (c)/(a): what explaining costs over the floor.
    explain_over_floor: f64,
    /// (b)/(c): how much faster the one-replay explain is than the naive one.
    naive_over_explain: f64,
}

impl ShapeRow {
    fn of(&self, mode: Mode) -> &ModeFigures {
        match mode {
            Mode::Floor => &self.floor,
            Mode::Naive => &self.naive,
            Mode::Explain => &self.explain,
            Mode::Replay => &self.replay,
            Mode::Unpruned => &self.unpruned,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct ModeFigures {
    median_ms: f64,
    min_ms: f64,
    runs: Vec<f64>,
    peak_mib: f64,
    /// Peak minus the resident set before the work: the work's own memory.
    working_set_mib: f64,
    /// Median CPU time, every thread: (c) overlaps work with the replay on other cores, so
    /// its CPU time can exceed its wall time where (a)'s hardly does.
    #[serde(default)]
    median_cpu_ms: f64,
}

#[derive(Debug, Serialize, Deserialize)]
struct Slope {
    config: String,
    mode: Mode,
    from_files: usize,
    to_files: usize,
    time_slope: Option<f64>,
    memory_slope: Option<f64>,
}

#[derive(Debug, Serialize, Deserialize)]
struct PredicateThroughput {
    table: String,
    files: usize,
    replay_ms: f64,
    predicates: usize,
    explain_seconds: f64,
    per_second: f64,
    /// The same predicates explained on one core (the run's every thread pinned to one CPU):
    /// what the cores multiply. 0 where a thread cannot be pinned.
    #[serde(default)]
    one_core_per_second: f64,
    separate_runs: usize,
    separate_seconds: f64,
    separate_per_second: f64,
}

#[derive(Debug, Serialize, Deserialize)]
struct OracleThroughput {
    table: String,
    files: usize,
    live_rows: u64,
    predicates: usize,
    /// Replaying the log and decoding every live row, once.
    oracle_load_ms: f64,
    /// Per predicate, matching rows per file over the loaded rows.
    oracle_ms_per_predicate: f64,
    oracle_rows_per_second: f64,
    /// Per predicate, `SELECT count(*) FROM parquet WHERE ...` over the same files.
    datafusion_ms_per_predicate: f64,
    datafusion_rows_per_second: f64,
    /// Predicates DataFusion's Parquet read could not run (left out of both averages).
    skipped: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Claim {
    claim: String,
    measured: String,
    holds: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct ScalingReport {
    command: String,
    profile: String,
    cpus: usize,
    sizes: Vec<usize>,
    shapes: Vec<ShapeRow>,
    slopes: Vec<Slope>,
    predicates: PredicateThroughput,
    oracle: OracleThroughput,
    claims: Vec<Claim>,
    /// Every predicate class against one kernel scan of the same predicate.
    #[serde(default)]
    classes: Vec<ClassRow>,
}

/// One (shape, size, predicate class): (a) one kernel scan of the predicate, (c)
/// delta-explain, and the peer where one was given.
#[derive(Debug, Serialize, Deserialize)]
struct ClassRow {
    shape: TableShape,
    config: String,
    class: PredicateClass,
    predicate: Option<String>,
    survivors: usize,
    floor: ModeFigures,
    explain: ModeFigures,
    peer: Option<ModeFigures>,
    /// The files the peer kept, where it ran.
    #[serde(default)]
    peer_survivors: Option<usize>,
    /// (c)/(a): median wall time, median CPU time, peak resident set.
    wall_ratio: f64,
    cpu_ratio: f64,
    memory_ratio: f64,
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
    let shapes: Vec<TableShape> = args
        .sizes
        .iter()
        .flat_map(|n| TableShape::all_of(*n))
        .collect();
    let runs_of = |shape: &TableShape| runs_for(shape.files, args.repeats);
    let total: usize = shapes.iter().map(|s| runs_of(s) * MODES.len()).sum();
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );

    let mut rows = Vec::new();
    for shape in &shapes {
        bar.set_message(format!("writing {}", shape.name()));
        let dir = shape.write(&work)?;
        let table = dir.to_string_lossy().to_string();
        let predicate = shape.predicate();
        let mut samples: [Vec<Sample>; 5] = Default::default();
        // Interleaved, so a slow moment of the machine falls on every mode alike.
        for _ in 0..runs_of(shape) {
            for (m, mode) in MODES.iter().enumerate() {
                bar.set_message(format!("{} {mode:?}", shape.name()));
                samples[m].push(child(&exe, *mode, &table, Some(&predicate))?);
                bar.inc(1);
            }
        }
        let survivors = samples[0][0].survivors;
        let lists_all = |m: &Mode| matches!(m, Mode::Replay | Mode::Unpruned);
        for (m, mode) in MODES.iter().enumerate().filter(|(_, m)| !lists_all(m)) {
            if let Some(s) = samples[m].iter().find(|s| s.survivors != survivors) {
                return Err(format!(
                    "{}: {mode:?} kept {} files where one kernel scan kept {survivors}",
                    shape.name(),
                    s.survivors
                ));
            }
        }
        for (m, mode) in MODES.iter().enumerate().filter(|(_, m)| lists_all(m)) {
            if let Some(s) = samples[m].iter().find(|s| s.survivors != shape.files) {
                return Err(format!(
                    "{}: {mode:?} listed {} files of {}",
                    shape.name(),
                    s.survivors,
                    shape.files
                ));
            }
        }
        let [floor, naive, explain, replay, unpruned] = samples.map(|s| figures(&s));
        rows.push(ShapeRow {
            shape: *shape,
            config: shape.config_name(),
            predicate,
            survivors,
            explain_over_floor: explain.median_ms / floor.median_ms,
            naive_over_explain: naive.median_ms / explain.median_ms,
            floor,
            naive,
            explain,
            replay,
            unpruned,
        });
    }
    bar.finish_and_clear();

    let classes = measure_classes(args, &exe, &work)?;
    let slopes = slopes(&rows);
    let taxi = args
        .taxi
        .clone()
        .unwrap_or_else(|| testkit::fixtures_location().join("taxi-nyc"));
    let taxi = taxi.to_string_lossy().to_string();
    eprintln!("scaling: --predicates throughput on {taxi}");
    let predicates = predicate_throughput(&taxi, args.predicates, args.separate_runs)?;
    eprintln!("scaling: oracle against DataFusion on {taxi}");
    let oracle = oracle_throughput(&taxi)?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let report = ScalingReport {
        command,
        profile: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
        .to_string(),
        cpus,
        sizes: args.sizes.clone(),
        shapes: rows,
        slopes,
        predicates,
        oracle,
        claims: Vec::new(),
        classes,
    };
    let report = ScalingReport {
        claims: all_claims(&report),
        ..report
    };
    write_report(&args.out, &report)
}

/// Every predicate class on every shape and size of `--class-sizes`, the high-cardinality
/// shapes of `--high-cardinality-sizes` (and 10M files on the checkpoint shapes with
/// `--ten-million`): (a), (c) and the peer, interleaved.
fn measure_classes(args: &ReportArgs, exe: &Path, work: &Path) -> Result<Vec<ClassRow>, String> {
    let mut shapes: Vec<TableShape> = args
        .class_sizes
        .iter()
        .flat_map(|n| TableShape::all_of(*n))
        .collect();
    shapes.extend(
        args.high_cardinality_sizes
            .iter()
            .flat_map(|n| TableShape::high_cardinality(*n)),
    );
    if args.ten_million {
        shapes.extend(
            TableShape::all_of(10_000_000)
                .into_iter()
                .filter(|s| s.layout == harness::scaling::LogLayout::Checkpoint),
        );
    }
    let points: Vec<(TableShape, PredicateClass, Option<String>)> = shapes
        .iter()
        .flat_map(|shape| {
            PredicateClass::ALL
                .iter()
                .filter_map(move |class| Some((*shape, *class, shape.predicate_of(*class)?)))
        })
        .collect();
    let runs_of = |shape: &TableShape| runs_for(shape.files, args.class_repeats);
    let total: usize = points.iter().map(|(s, ..)| 2 * runs_of(s) + 1).sum();
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} classes: {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = Vec::new();
    for (shape, class, predicate) in points {
        bar.set_message(format!("writing {}", shape.name()));
        let table = shape.write(work)?.to_string_lossy().to_string();
        let predicate_ref = predicate.as_deref();
        let (mut floor, mut explain) = (Vec::new(), Vec::new());
        for _ in 0..runs_of(&shape) {
            bar.set_message(format!("{} {}", shape.name(), class.name()));
            floor.push(child(exe, Mode::Floor, &table, predicate_ref)?);
            explain.push(child(exe, Mode::Explain, &table, predicate_ref)?);
            bar.inc(2);
        }
        let survivors = floor[0].survivors;
        if let Some(s) = explain.iter().find(|s| s.survivors != survivors) {
            return Err(format!(
                "{} {}: delta-explain kept {} files where one kernel scan kept {survivors}",
                shape.name(),
                class.name(),
                s.survivors
            ));
        }
        // The peer is measured, not trusted: the files it keeps are recorded beside ours.
        let peer = match &args.peer {
            Some(peer) if shape.files <= args.peer_up_to => {
                peer_sample(peer, &table, predicate_ref)?
            }
            _ => None,
        };
        let peer_survivors = peer.as_ref().map(|s| s.survivors);
        let peer = peer.map(|sample| figures(&[sample]));
        bar.inc(1);
        let (floor, explain) = (figures(&floor), figures(&explain));
        rows.push(ClassRow {
            shape,
            config: shape.config_name(),
            class,
            predicate,
            survivors,
            wall_ratio: explain.median_ms / floor.median_ms.max(f64::MIN_POSITIVE),
            cpu_ratio: explain.median_cpu_ms / floor.median_cpu_ms.max(f64::MIN_POSITIVE),
            memory_ratio: explain.peak_mib / floor.peak_mib.max(f64::MIN_POSITIVE),
            floor,
            explain,
            peer,
            peer_survivors,
        });
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// One run of the peer binary under `/usr/bin/time`: wall time, peak resident set and CPU
/// time of the whole process, and the files its JSON report keeps. `None` where the peer
/// refuses the predicate (it has no class of its own for some of them).
fn peer_sample(
    peer: &Path,
    table: &str,
    predicate: Option<&str>,
) -> Result<Option<Sample>, String> {
    let mut command = Command::new("/usr/bin/time");
    command.args(["-f", "%e %M %U %S"]).arg(peer).arg(table);
    if let Some(p) = predicate {
        command.args(["--where", p]);
    }
    command.args(["--format", "json"]);
    let output = command
        .output()
        .map_err(|e| format!("cannot run /usr/bin/time {}: {e}", peer.display()))?;
    if !output.status.success() {
        return Ok(None);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let figures: Vec<f64> = stderr
        .lines()
        .last()
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    let [wall_s, peak_kib, user_s, system_s] = figures[..] else {
        return Err(format!("the peer's timing line is unreadable: {stderr}"));
    };
    let report = String::from_utf8_lossy(&output.stdout);
    Ok(Some(Sample {
        wall_ms: wall_s * 1000.0,
        peak_kib: peak_kib as u64,
        start_kib: 0,
        cpu_ms: (user_s + system_s) * 1000.0,
        survivors: final_files(&report)?,
    }))
}

/// What (c) may hold beyond one kernel scan at any size, for its memory to count as flat.
const FLAT_BEYOND_MIB: f64 = 64.0;

/// Every claim of a report, read off its measurements.
fn all_claims(report: &ScalingReport) -> Vec<Claim> {
    let mut claims = claims(
        &report.shapes,
        &report.slopes,
        &report.predicates,
        report.cpus,
    );
    // The high-cardinality shapes are claimed apart: what they hold per partition grows with
    // the table by design (every distinct partition is listed), so they are not folded into
    // the claims of the shapes with few partitions.
    let (per_file, standard): (Vec<&ClassRow>, Vec<&ClassRow>) = report
        .classes
        .iter()
        .partition(|r| r.shape.partitioning == Partitioning::PartitionPerFile);
    claims.extend(class_claims(&standard, ""));
    claims.extend(class_claims(&per_file, "a partition per file, "));
    claims
}

/// The predicate-class targets of one family of shapes (`family` prefixes its claims): per
/// class, (c) against (a) at most 1.10x the wall time, 1.25x the CPU time and 1.5x the peak
/// memory at every size measured, and (c)'s peak memory flat in the file count.
fn class_claims(rows: &[&ClassRow], family: &str) -> Vec<Claim> {
    let mut out = Vec::new();
    let worst = |class: PredicateClass, ratio: fn(&ClassRow) -> f64| {
        rows.iter()
            .filter(|r| r.class == class)
            .max_by(|a, b| ratio(a).total_cmp(&ratio(b)))
    };
    for class in PredicateClass::ALL {
        for (what, limit, ratio) in [
            (
                "wall time",
                1.10,
                (|r: &ClassRow| r.wall_ratio) as fn(&ClassRow) -> f64,
            ),
            ("CPU time", 1.25, |r: &ClassRow| r.cpu_ratio),
            ("peak memory", 1.5, |r: &ClassRow| r.memory_ratio),
        ] {
            if let Some(row) = worst(class, ratio) {
                out.push(Claim {
                    claim: format!(
                        "{family}{}: (c) at most {limit}x one kernel scan's {what} at every size",
                        class.name()
                    ),
                    measured: format!("worst {:.2}x ({})", ratio(row), row.shape.name()),
                    holds: ratio(row) <= limit,
                });
            }
        }
    }
    // Flat in the file count: what (c) holds beyond one kernel scan of the same predicate
    // (its window, the batches queued behind it, a byte per file and survivor set) stays
    // within a constant at every size. The kernel's own memory is not flat (it reads a
    // checkpoint's row groups whole; a predicate-less replay of JSON commits remembers every
    // file it has seen), and that part is what the ratio claims above compare against.
    for layout in ["checkpoint", "json-commits"] {
        if let Some(row) = rows
            .iter()
            .filter(|r| r.config.starts_with(layout))
            .max_by(|a, b| {
                (a.explain.peak_mib - a.floor.peak_mib)
                    .total_cmp(&(b.explain.peak_mib - b.floor.peak_mib))
            })
        {
            let beyond = row.explain.peak_mib - row.floor.peak_mib;
            out.push(Claim {
                claim: format!("{family}{layout} logs: (c)'s peak memory beyond one kernel scan's at most {FLAT_BEYOND_MIB} MiB at every size (flat in the file count)"),
                measured: format!("worst {beyond:.1} MiB ({}, {})", row.shape.name(), row.class.name()),
                holds: beyond <= FLAT_BEYOND_MIB,
            });
        }
    }
    out
}

/// Runs per (shape, mode). A run on a small table takes milliseconds, where the machine's
/// jitter (a descheduled thread, a page-cache miss) is a large share of it; there more runs
/// cost little and steady the median. A million files take seconds a run.
fn runs_for(files: usize, repeats: usize) -> usize {
    let repeats = repeats.max(1);
    match files {
        f if f >= 1_000_000 => repeats,
        f if f >= 100_000 => 2 * repeats,
        _ => 4 * repeats,
    }
}

fn child(exe: &Path, mode: Mode, table: &str, predicate: Option<&str>) -> Result<Sample, String> {
    let mode_name = format!("{mode:?}").to_lowercase();
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "--mode".as_ref(),
        mode_name.as_ref(),
        "--table".as_ref(),
        table.as_ref(),
    ];
    if let Some(p) = predicate {
        args.extend([std::ffi::OsStr::new("--where"), std::ffi::OsStr::new(p)]);
    }
    measure_child(exe, &args, &format!("{mode_name} on {table}"))
}

fn figures(samples: &[Sample]) -> ModeFigures {
    let runs: Vec<f64> = samples.iter().map(|s| round(s.wall_ms)).collect();
    let (peak_mib, working_set_mib) = memory_mib(samples.iter().map(|s| (s.peak_kib, s.start_kib)));
    let cpu: Vec<f64> = samples.iter().map(|s| s.cpu_ms).collect();
    ModeFigures {
        median_cpu_ms: round(median(&cpu)),
        median_ms: round(median(&runs)),
        min_ms: runs.iter().copied().fold(f64::INFINITY, f64::min),
        runs,
        peak_mib,
        working_set_mib,
    }
}

/// Log-log slopes of time and working set from 10k files up, per shape and mode.
fn slopes(rows: &[ShapeRow]) -> Vec<Slope> {
    let mut configs: Vec<String> = rows.iter().map(|r| r.config.clone()).collect();
    configs.dedup();
    configs.sort();
    configs.dedup();
    let mut out = Vec::new();
    for config in configs {
        let of: Vec<&ShapeRow> = rows
            .iter()
            .filter(|r| r.config == config && r.shape.files >= 10_000)
            .collect();
        if of.len() < 2 {
            continue;
        }
        for mode in MODES {
            let time: Vec<(f64, f64)> = of
                .iter()
                .map(|r| (r.shape.files as f64, r.of(mode).median_ms))
                .collect();
            let memory: Vec<(f64, f64)> = of
                .iter()
                .map(|r| (r.shape.files as f64, r.of(mode).working_set_mib))
                .collect();
            out.push(Slope {
                config: config.clone(),
                mode,
                from_files: of.iter().map(|r| r.shape.files).min().unwrap_or(0),
                to_files: of.iter().map(|r| r.shape.files).max().unwrap_or(0),
                time_slope: log_log_slope(&time).map(|s| (s * 1000.0).round() / 1000.0),
                memory_slope: log_log_slope(&memory).map(|s| (s * 1000.0).round() / 1000.0),
            });
        }
    }
    out
}

/// Explains `count` predicates (taxi's corpus, cycled) in one streamed replay, as `--predicates`
/// does; then `separate` of them each in a run of its own (replay included).
fn predicate_throughput(
    taxi: &str,
    count: usize,
    separate: usize,
) -> Result<PredicateThroughput, String> {
    let corpus = read_corpus(&corpus_path("taxi-nyc"))?;
    if corpus.is_empty() {
        return Err("the taxi corpus is empty".into());
    }
    let started = Instant::now();
    let table = ReplayedTable::open(taxi, None).map_err(|e| e.to_string())?;
    let replay_ms = started.elapsed().as_secs_f64() * 1000.0;
    let batch: Vec<&str> = corpus
        .iter()
        .cycle()
        .take(count)
        .map(String::as_str)
        .collect();
    // The path `--predicates FILE` takes: one streamed replay, each window explained for
    // every predicate on every core (the replay is counted in; it is a few ms on taxi).
    let streamed = |workers: usize| -> Result<(f64, usize), String> {
        let mut request = ExplainRequest::new(taxi).predicates(
            batch
                .iter()
                .map(|p| (p.to_string(), Default::default()))
                .collect(),
        );
        request.workers = workers;
        let started = Instant::now();
        let streamed = report_many_streaming(&request, &mut |_| {}).map_err(|e| e.to_string())?;
        let mut bytes = 0usize;
        for (outcome, predicate) in streamed.reports.into_iter().zip(&batch) {
            let (report, _) = outcome.map_err(|e| format!("{predicate}: {e}"))?;
            bytes += report.to_json().len();
        }
        Ok((started.elapsed().as_secs_f64(), bytes))
    };
    let (explain_seconds, bytes) = streamed(explain_core::cores())?;
    std::hint::black_box(bytes);
    // On one core: one predicate worker, and every thread of the run (the engine's, the
    // replay's) held to the same CPU.
    let one_core_per_second = match OneCore::pin() {
        Ok(_pinned) => {
            let (seconds, bytes) = streamed(1)?;
            std::hint::black_box(bytes);
            round(count as f64 / seconds)
        }
        Err(e) => {
            eprintln!("scaling: no one-core figure: {e}");
            0.0
        }
    };
    let started = Instant::now();
    for predicate in corpus.iter().cycle().take(separate) {
        std::hint::black_box(delta_explain(taxi, predicate)?);
    }
    let separate_seconds = started.elapsed().as_secs_f64();
    Ok(PredicateThroughput {
        table: "taxi-nyc".into(),
        files: table.files().len(),
        replay_ms: round(replay_ms),
        predicates: count,
        explain_seconds: round(explain_seconds),
        per_second: round(count as f64 / explain_seconds),
        one_core_per_second,
        separate_runs: separate,
        separate_seconds: round(separate_seconds),
        separate_per_second: round(separate as f64 / separate_seconds),
    })
}

/// The oracle's per-file matching against `SELECT count(*) ... WHERE` in plain DataFusion over
/// the same Parquet files, on the corpus predicates that use data columns only (a plain
/// Parquet read has no partition columns).
fn oracle_throughput(taxi: &str) -> Result<OracleThroughput, String> {
    let started = Instant::now();
    let (loaded, files, predicates) = oracle_subject(taxi)?;
    let oracle_load_ms = started.elapsed().as_secs_f64() * 1000.0;
    let live_rows: u64 = loaded.counts.iter().map(|c| c.live_rows).sum();
    let physical_rows: u64 = loaded.counts.iter().map(|c| c.physical_rows).sum();
    let plain = ParquetCount::new(files)?;
    let mut skipped = Vec::new();
    let mut runnable = Vec::new();
    let mut datafusion_seconds = 0.0;
    for predicate in &predicates {
        let started = Instant::now();
        match plain.count(predicate) {
            Ok(n) => {
                datafusion_seconds += started.elapsed().as_secs_f64();
                std::hint::black_box(n);
                runnable.push(predicate.clone());
            }
            Err(_) => skipped.push(predicate.clone()),
        }
    }
    let started = Instant::now();
    for predicate in &runnable {
        std::hint::black_box(
            loaded
                .matching_rows(predicate)
                .map_err(|e| format!("{predicate}: {e}"))?,
        );
    }
    let oracle_seconds = started.elapsed().as_secs_f64();
    let n = runnable.len().max(1) as f64;
    Ok(OracleThroughput {
        table: "taxi-nyc".into(),
        files: loaded.snapshot.files.len(),
        live_rows,
        predicates: runnable.len(),
        oracle_load_ms: round(oracle_load_ms),
        oracle_ms_per_predicate: round(oracle_seconds * 1000.0 / n),
        oracle_rows_per_second: (live_rows as f64 * n / oracle_seconds).round(),
        datafusion_ms_per_predicate: round(datafusion_seconds * 1000.0 / n),
        datafusion_rows_per_second: (physical_rows as f64 * n / datafusion_seconds).round(),
        skipped,
    })
}

/// The targets, each checked against this run's figures.
fn claims(
    rows: &[ShapeRow],
    slopes: &[Slope],
    predicates: &PredicateThroughput,
    cpus: usize,
) -> Vec<Claim> {
    let mut out = Vec::new();
    let worst_ratio = rows
        .iter()
        .max_by(|a, b| a.explain_over_floor.total_cmp(&b.explain_over_floor));
    if let Some(worst) = worst_ratio {
        out.push(Claim {
            claim: "(c)/(a) at most 1.25 at every size".into(),
            measured: format!(
                "worst {:.3} ({})",
                worst.explain_over_floor,
                worst.shape.name()
            ),
            holds: worst.explain_over_floor <= 1.25,
        });
    }
    let large: Vec<&ShapeRow> = rows.iter().filter(|r| r.shape.files >= 100_000).collect();
    if let Some(worst) = large
        .iter()
        .min_by(|a, b| a.naive_over_explain.total_cmp(&b.naive_over_explain))
    {
        out.push(Claim {
            claim: "(c) at least 2x faster than (b) at 100k files and up".into(),
            measured: format!(
                "worst {:.2}x ({})",
                worst.naive_over_explain,
                worst.shape.name()
            ),
            holds: worst.naive_over_explain >= 2.0,
        });
    }
    out.extend(slope_claim(slopes, "time", |s| s.time_slope));
    // Memory: explaining keeps the replay and nothing per phase, so (c)'s working set is the
    // replay's (a small margin for the report and the phase scans' transient batches).
    let memory_ratio = rows
        .iter()
        .filter(|r| r.shape.files >= 100_000)
        .map(|r| {
            (
                r.explain.working_set_mib / r.replay.working_set_mib.max(1.0),
                r,
            )
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((ratio, row)) = memory_ratio {
        out.push(Claim {
            claim: "(c)'s working set at most 1.25x the replay's at 100k files and up (no copy per phase)".into(),
            measured: format!("worst {ratio:.2}x ({})", row.shape.name()),
            holds: ratio <= 1.25,
        });
    }
    out.extend(slope_claim(slopes, "working set", |s| s.memory_slope));
    out.push(Claim {
        claim:
            "--predicates explains at least 3,000 predicates per second on taxi after one replay"
                .into(),
        measured: format!(
            "{:.0} per second ({} predicates)",
            predicates.per_second, predicates.predicates
        ),
        holds: predicates.per_second >= 3000.0,
    });
    if predicates.one_core_per_second > 0.0 && cpus > 1 {
        let gain = predicates.per_second / predicates.one_core_per_second;
        out.push(Claim {
            claim: format!(
                "--predicates on every core ({cpus}) at least {:.1}x its one-core throughput",
                0.75 * cpus as f64
            ),
            measured: format!(
                "{gain:.2}x ({:.0} against {:.0} per second)",
                predicates.per_second, predicates.one_core_per_second
            ),
            holds: gain >= 0.75 * cpus as f64,
        });
    }
    out
}

/// "(c)'s `what` grows linearly": the steepest log-log slope of (c) from 10k to 1M files at most
/// 1.1; no claim when the run did not reach 1M files.
fn slope_claim(slopes: &[Slope], what: &str, slope_of: fn(&Slope) -> Option<f64>) -> Option<Claim> {
    let worst = slopes
        .iter()
        .filter(|s| s.mode == Mode::Explain && s.to_files >= 1_000_000)
        .max_by(|a, b| {
            slope_of(a)
                .unwrap_or(0.0)
                .total_cmp(&slope_of(b).unwrap_or(0.0))
        })?;
    let slope = slope_of(worst).unwrap_or(f64::NAN);
    Some(Claim {
        claim: format!("(c) {what} log-log slope at most 1.1 from 10k to 1M files"),
        measured: format!("worst {slope:.3} ({})", worst.config),
        holds: slope <= 1.1,
    })
}

const COLOURS: [(Mode, &str, &str); 5] = [
    (Mode::Floor, "#1e88e5", "(a) one kernel scan"),
    (Mode::Naive, "#e53935", "(b) three kernel scans"),
    (Mode::Explain, "#43a047", "(c) delta-explain"),
    (Mode::Replay, "#8e24aa", "the replay alone"),
    (Mode::Unpruned, "#757575", "one scan, no predicate"),
];

fn write_report(out: &Path, report: &ScalingReport) -> Result<(), String> {
    let write = |name: &str, text: &str| {
        std::fs::write(out.join(name), text)
            .map_err(|e| format!("{}: {e}", out.join(name).display()))
    };
    write(
        "report.json",
        &(serde_json::to_string_pretty(report).map_err(|e| e.to_string())? + "\n"),
    )?;
    let mut charts = Vec::new();
    for layout in ["checkpoint", "json-commits"] {
        for (metric, unit) in [("time", "wall time, ms"), ("memory", "working set, MiB")] {
            let mut series = Vec::new();
            for (mode, colour, label) in COLOURS {
                for (partitioning, stroke) in PARTITIONINGS {
                    let config = format!("{layout}/{}", partitioning.name());
                    let points = report
                        .shapes
                        .iter()
                        .filter(|r| r.config == config)
                        .map(|r| {
                            let f = r.of(mode);
                            (
                                r.shape.files as f64,
                                if metric == "time" {
                                    f.median_ms
                                } else {
                                    f.working_set_mib
                                },
                            )
                        })
                        .collect::<Vec<_>>();
                    if points.is_empty() {
                        continue;
                    }
                    series.push(Series {
                        name: format!("{label}{}", suffix(partitioning)),
                        colour,
                        stroke,
                        points,
                    });
                }
            }
            let file = format!("{layout}-{metric}.svg");
            write(
                &file,
                &log_log_chart(
                    &format!("{layout} log: {unit} against files"),
                    "files",
                    unit,
                    &series,
                ),
            )?;
            charts.push(file);
        }
    }
    charts.extend(class_charts(report, &write)?);
    write("README.md", &markdown(report, &charts))
}

/// The partitionings a chart tells apart, each drawn in a stroke of its own.
const PARTITIONINGS: [(Partitioning, Stroke); 3] = [
    (Partitioning::Flat, Stroke::Solid),
    (Partitioning::Partitioned, Stroke::Dashed),
    (Partitioning::PartitionPerFile, Stroke::Dotted),
];

/// What a series' name adds for its partitioning: nothing for a flat table.
fn suffix(partitioning: Partitioning) -> String {
    match partitioning {
        Partitioning::Flat => String::new(),
        Partitioning::Partitioned | Partitioning::PartitionPerFile => {
            format!(", {}", partitioning.name())
        }
    }
}

const CLASS_COLOURS: [(PredicateClass, &str); 6] = [
    (PredicateClass::None, "#757575"),
    (PredicateClass::PartitionOnly, "#8e24aa"),
    (PredicateClass::DataOnly, "#1e88e5"),
    (PredicateClass::Mixed, "#43a047"),
    (PredicateClass::Unsupported, "#fb8c00"),
    (PredicateClass::MixedOr, "#e53935"),
];

/// Per log layout: (c)/(a) wall time per predicate class against files, and the peak
/// memory of (a), (c) and the peer against files. Returns the files written.
fn class_charts(
    report: &ScalingReport,
    write: &dyn Fn(&str, &str) -> Result<(), String>,
) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    if report.classes.is_empty() {
        return Ok(files);
    }
    for layout in ["checkpoint", "json-commits"] {
        let of_layout = |r: &&ClassRow| r.config.starts_with(layout);
        let mut ratios = Vec::new();
        let mut memory = Vec::new();
        for (class, colour) in CLASS_COLOURS {
            for (partitioning, stroke) in PARTITIONINGS {
                let rows: Vec<&ClassRow> = report
                    .classes
                    .iter()
                    .filter(of_layout)
                    .filter(|r| r.class == class && r.shape.partitioning == partitioning)
                    .collect();
                if rows.is_empty() {
                    continue;
                }
                let suffix = suffix(partitioning);
                ratios.push(Series {
                    name: format!("{}{suffix}", class.name()),
                    colour,
                    stroke,
                    points: rows
                        .iter()
                        .map(|r| (r.shape.files as f64, r.wall_ratio))
                        .collect(),
                });
                if class == PredicateClass::DataOnly {
                    for (who, colour, pick) in [
                        (
                            "(a) one kernel scan",
                            "#1e88e5",
                            (|r: &ClassRow| Some(r.floor.peak_mib)) as fn(&ClassRow) -> Option<f64>,
                        ),
                        ("(c) delta-explain", "#43a047", |r: &ClassRow| {
                            Some(r.explain.peak_mib)
                        }),
                        ("the peer 0.8.1", "#e53935", |r: &ClassRow| {
                            r.peer.as_ref().map(|p| p.peak_mib)
                        }),
                    ] {
                        let points: Vec<(f64, f64)> = rows
                            .iter()
                            .filter_map(|r| Some((r.shape.files as f64, pick(r)?)))
                            .collect();
                        if !points.is_empty() {
                            memory.push(Series {
                                name: format!("{who}{suffix}"),
                                colour,
                                stroke,
                                points,
                            });
                        }
                    }
                }
            }
        }
        for (name, title, unit, series) in [
            (
                format!("{layout}-classes-time-ratio.svg"),
                format!("{layout} log: (c)/(a) wall time per predicate class"),
                "(c)/(a) wall time",
                ratios,
            ),
            (
                format!("{layout}-classes-memory.svg"),
                format!("{layout} log: peak memory, data-only predicate"),
                "peak resident set, MiB",
                memory,
            ),
        ] {
            write(&name, &log_log_chart(&title, "files", unit, &series))?;
            files.push(name);
        }
    }
    Ok(files)
}

fn markdown(report: &ScalingReport, charts: &[String]) -> String {
    use std::fmt::Write as _;
    let mut md = String::from("# Scaling report\n\n");
    let _ = writeln!(
        md,
        "Regenerate: `cargo run --release -p benchmarks --bin scaling -- report --out <this folder>`.\n"
    );
    let _ = writeln!(
        md,
        "Command: `{}`. Profile: {}. CPUs: {}.\n",
        report.command, report.profile, report.cpus
    );
    md.push_str("(a) one delta_kernel scan with the full predicate; (b) three independent kernel scans (no predicate, the partition fragment, the full predicate); (c) delta-explain with a JSON report, in process (streamed: a window of rows held at once); the replay alone (the whole table's rows, as `--predicates` and `--budget` keep them), the state every phase and predicate shares; and one kernel scan without a predicate, the kernel's own cost of listing every file, which any explanation pays for its baseline and a pruning scan does not. Each measurement runs in a child process of its own, the modes taking turns; times are medians (runs per point in the table), memory is the largest peak resident set minus the resident set before the work.\n\nTimes are wall times. (c) spreads its work over the cores: each window of rows is listed and scanned on one thread while the kernel replays the next batches on others. (a) is one kernel scan as a reader runs it. The CPU columns therefore add up the time of every thread, user and system (the process CPU clock): they show what (c) costs the machine beside what it costs the person waiting.\n\n");
    md.push_str("## Claims\n\n| claim | measured | holds |\n|---|---|---|\n");
    for c in &report.claims {
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            c.claim,
            c.measured,
            if c.holds { "yes" } else { "**no**" }
        );
    }
    classes_section(&mut md, report);
    shapes_section(&mut md, report);
    md.push('\n');
    for chart in charts {
        let _ = writeln!(md, "![{chart}]({chart})\n");
    }
    let p = &report.predicates;
    let _ = writeln!(
        md,
        "## Many predicates on one replay\n\n{} ({} files): one replay in {:.1} ms, then {} predicates (the taxi corpus, cycled; all three phases and the JSON report each, on every core as `--predicates` runs them) in {:.2} s: **{:.0} predicates per second**. The same predicates each in a run of its own (replay included): {} in {:.2} s, {:.0} per second.\n",
        p.table,
        p.files,
        p.replay_ms,
        p.predicates,
        p.explain_seconds,
        p.per_second,
        p.separate_runs,
        p.separate_seconds,
        p.separate_per_second
    );
    if p.one_core_per_second > 0.0 {
        let _ = writeln!(
            md,
            "On one core (every thread of the run pinned to one CPU) the same predicates go at {:.0} per second: every core ({}) gives {:.2}x.\n",
            p.one_core_per_second,
            report.cpus,
            p.per_second / p.one_core_per_second
        );
    }
    let o = &report.oracle;
    let _ = writeln!(
        md,
        "## Oracle against plain DataFusion\n\n{} ({} files, {} live rows), {} predicates over data columns. The oracle decodes every live row once ({:.1} ms), then counts matching rows per file: {:.2} ms per predicate ({:.0} rows/s). DataFusion's `SELECT count(*) ... WHERE` over the same Parquet files: {:.2} ms per predicate ({:.0} rows/s). {} predicate(s) DataFusion's plain Parquet read could not run were left out of both.\n",
        o.table,
        o.files,
        o.live_rows,
        o.predicates,
        o.oracle_load_ms,
        o.oracle_ms_per_predicate,
        o.oracle_rows_per_second,
        o.datafusion_ms_per_predicate,
        o.datafusion_rows_per_second,
        o.skipped.len()
    );
    md
}

/// The shapes grouped by class, each class's verdict.
fn classes_section(md: &mut String, report: &ScalingReport) {
    use std::fmt::Write as _;
    if !report.classes.is_empty() {
        md.push_str("\n## Predicate classes\n\nEvery class of predicate against one kernel scan of the same predicate ((a): its snapshot, its replay, its skipping): (c) is `delta-explain TABLE [--where P] --format json` in process, streamed (a window of rows held at once). Peak memory is the whole process's largest resident set. The peer is `delta-explain` 0.8.1, one run per point, when the report was given its binary (`--peer`). A `partitioned` shape has ten partitions; a `partition-per-file` shape has a partition per file (a partition column of high cardinality), so its partition conjunct keeps one file.\n\n| shape | files | class | kept | runs | (a) ms | (c) ms | (c)/(a) | (a) CPU ms | (c) CPU ms | (c)/(a) CPU | (a) MiB | (c) MiB | (c)/(a) MiB | peer ms | peer MiB | peer kept |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for r in &report.classes {
            let peer = |f: fn(&ModeFigures) -> f64| {
                r.peer
                    .as_ref()
                    .map_or("-".to_string(), |p| format!("{:.0}", f(p)))
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.2} | {:.0} | {:.0} | {:.2} | {:.1} | {:.1} | {:.2} | {} | {} | {} |",
                r.config,
                r.shape.files,
                r.class.name(),
                r.survivors,
                r.floor.runs.len(),
                r.floor.median_ms,
                r.explain.median_ms,
                r.wall_ratio,
                r.floor.median_cpu_ms,
                r.explain.median_cpu_ms,
                r.cpu_ratio,
                r.floor.peak_mib,
                r.explain.peak_mib,
                r.memory_ratio,
                peer(|p| p.median_ms),
                peer(|p| p.peak_mib),
                r.peer_survivors.map_or("-".to_string(), |n| n.to_string()),
            );
        }
        md.push_str("\nPredicates (N is the table's file count times 100, so the data conjuncts keep the first tenth of the files): ");
        let shown: Vec<String> = PredicateClass::ALL
            .iter()
            .filter_map(|class| {
                let shape = TableShape {
                    files: 0,
                    partitioning: Partitioning::Partitioned,
                    layout: harness::scaling::LogLayout::Checkpoint,
                };
                let text = shape
                    .predicate_of(*class)?
                    .unwrap_or_else(|| "(none)".into());
                Some(format!(
                    "{}: `{}`",
                    class.name(),
                    text.replace("id < 0", "id < N")
                ))
            })
            .collect();
        md.push_str(&shown.join("; "));
        md.push_str(".\n");
    }
}

/// Time and memory per shape, where (c)'s time goes, and the log-log slopes.
fn shapes_section(md: &mut String, report: &ScalingReport) {
    use std::fmt::Write as _;
    md.push_str("\n## Time and memory per shape\n\n| shape | files | kept | runs | (a) ms | (b) ms | (c) ms | (c)/(a) | (b)/(c) | replay ms | unpruned ms | (a) MiB | (b) MiB | (c) MiB | replay MiB | (a) CPU ms | (c) CPU ms | (c)/(a) CPU |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &report.shapes {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.3} | {:.2} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.0} | {:.0} | {:.2} |",
            r.config,
            r.shape.files,
            r.survivors,
            r.floor.runs.len(),
            r.floor.median_ms,
            r.naive.median_ms,
            r.explain.median_ms,
            r.explain_over_floor,
            r.naive_over_explain,
            r.replay.median_ms,
            r.unpruned.median_ms,
            r.floor.working_set_mib,
            r.naive.working_set_mib,
            r.explain.working_set_mib,
            r.replay.working_set_mib,
            r.floor.median_cpu_ms,
            r.explain.median_cpu_ms,
            r.explain.median_cpu_ms / r.floor.median_cpu_ms.max(1.0)
        );
    }
    md.push_str("\n## Where (c)'s time goes\n\nPer shape at its largest size: the kernel listing every file (one scan without a predicate), the replay on top of it (cached rows, live files), then what (c) adds to the replay: the phase scans of its windows and the report, less what it saves by keeping no rows; each against (a).\n\n| shape | files | unpruned / (a) | replay / (a) | (c) - replay, ms | (c) / (a) |\n|---|---:|---:|---:|---:|---:|\n");
    let largest = report
        .shapes
        .iter()
        .map(|r| r.shape.files)
        .max()
        .unwrap_or(0);
    for r in report.shapes.iter().filter(|r| r.shape.files == largest) {
        let over = |v: f64| v / r.floor.median_ms.max(f64::MIN_POSITIVE);
        let _ = writeln!(
            md,
            "| {} | {} | {:.2} | {:.2} | {:.1} | {:.2} |",
            r.config,
            r.shape.files,
            over(r.unpruned.median_ms),
            over(r.replay.median_ms),
            r.explain.median_ms - r.replay.median_ms,
            r.explain_over_floor
        );
    }
    md.push_str("\n## Log-log slopes (10k files and up)\n\n| shape | mode | files | time slope | memory slope |\n|---|---|---|---:|---:|\n");
    for s in &report.slopes {
        let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
        let _ = writeln!(
            md,
            "| {} | {:?} | {}..{} | {} | {} |",
            s.config,
            s.mode,
            s.from_files,
            s.to_files,
            show(s.time_slope),
            show(s.memory_slope)
        );
    }
}
