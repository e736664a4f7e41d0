//! What an object store's latency does to an explanation: metadata-only tables of the scaling
//! shapes uploaded to the S3-compatible test server (`testkit::s3`) on 127.0.0.1, every request
//! delayed; requests issued and wall time of one plain kernel scan and of `delta-explain` (in
//! process), and of another `delta-explain` binary given with `--peer` (run as a process with
//! the same endpoint options).
//!
//! ```text
//! cargo run --release -p benchmarks --bin remote_bench -- --out reports/remote-20261201 [--files 100000] [--delay-ms 20] [--runs 3] [--peer BIN]
//! ```

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use harness::page::bar_chart;
use harness::scaling::{
    TableShape, delta_explain_with, final_files, floor_scan_with, median, scan_predicates,
};
use serde::Serialize;
use storage::StorageOptions;
use testkit::s3::S3Server;

#[derive(Parser)]
struct Args {
    /// Where the report goes.
    #[arg(long)]
    out: PathBuf,
    /// Files per table.
    #[arg(long, default_value_t = 100_000)]
    files: usize,
    /// Delay added to every request, in milliseconds.
    #[arg(long, default_value_t = 20)]
    delay_ms: u64,
    /// Runs per measurement (the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Another `delta-explain` binary to measure beside (it gets `--option KEY=VALUE` pairs).
    #[arg(long)]
    peer: Option<PathBuf>,
}

#[derive(Serialize)]
struct Measured {
    requests: u64,
    wall_ms: f64,
}

#[derive(Serialize)]
struct Row {
    table: String,
    predicate: String,
    kept: usize,
    kernel_scan: Measured,
    delta_explain: Measured,
    peer: Option<Measured>,
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(&args) {
        eprintln!("remote_bench: {e}");
        std::process::exit(1);
    }
}

/// The median wall time of `runs` runs of `f`, and the requests of one run.
fn measure(
    server: &S3Server,
    runs: usize,
    mut f: impl FnMut() -> Result<(), String>,
) -> Result<Measured, String> {
    let mut walls = Vec::new();
    let mut requests = 0;
    for _ in 0..runs.max(1) {
        let before = server.requests();
        let started = Instant::now();
        f()?;
        walls.push(started.elapsed().as_secs_f64() * 1000.0);
        requests = server.requests() - before;
    }
    Ok(Measured {
        requests,
        wall_ms: median(&walls),
    })
}

/// The peer on `url` with `predicate`, once.
fn run_peer(
    bin: &std::path::Path,
    url: &str,
    predicate: &str,
    storage: &StorageOptions,
) -> Result<(), String> {
    let mut command = std::process::Command::new(bin);
    command.args([url, "-w", predicate, "--format", "json"]);
    for (k, v) in &storage.options {
        command.args(["--option", &format!("{k}={v}")]);
    }
    let out = command.output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "{}: {}",
            bin.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// The chart of the wall times per table.
fn write_chart(args: &Args, rows: &[Row]) -> Result<(), String> {
    let chart_rows: Vec<(String, Vec<(f64, &'static str)>)> = rows
        .iter()
        .flat_map(|r| {
            let mut out = vec![
                (
                    format!("{} kernel scan", r.table),
                    vec![(r.kernel_scan.wall_ms, "#888888")],
                ),
                (
                    format!("{} delta-explain", r.table),
                    vec![(r.delta_explain.wall_ms, "#2a7fff")],
                ),
            ];
            if let Some(p) = &r.peer {
                out.push((format!("{} peer", r.table), vec![(p.wall_ms, "#ff7f2a")]));
            }
            out
        })
        .collect();
    let svg = bar_chart(
        &format!(
            "Wall time (ms), {} files, {} ms a request",
            args.files, args.delay_ms
        ),
        &chart_rows,
        &[
            ("kernel scan", "#888888"),
            ("delta-explain", "#2a7fff"),
            ("peer", "#ff7f2a"),
        ],
    );
    std::fs::write(args.out.join("wall.svg"), svg).map_err(|e| e.to_string())?;
    Ok(())
}

fn run(args: &Args) -> Result<(), String> {
    std::fs::create_dir_all(&args.out).map_err(|e| e.to_string())?;
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let server = S3Server::start();
    server.create_bucket("lake");
    let storage = StorageOptions {
        options: server.options(),
        ..Default::default()
    };
    let mut rows = Vec::new();
    for shape in TableShape::all_of(args.files) {
        let name = shape.name();
        eprintln!("remote_bench: {name}: writing and uploading");
        let dir = shape.write(work.path())?;
        server.upload("lake", &name, &dir);
        let url = format!("s3://lake/{name}");
        let predicate = shape.predicate();
        let scans = scan_predicates(&dir.to_string_lossy(), &predicate)?;
        server.set_delay(Duration::from_millis(args.delay_ms));
        let mut kept = 0;
        let kernel_scan = measure(&server, args.runs, || {
            kept = floor_scan_with(&url, &storage, scans.full.clone())?;
            Ok(())
        })?;
        let delta_explain = measure(&server, args.runs, || {
            let report = delta_explain_with(&url, &storage, Some(&predicate))?;
            if final_files(&report)? != kept {
                return Err(format!(
                    "{name}: delta-explain keeps other files than the scan"
                ));
            }
            Ok(())
        })?;
        let peer = match &args.peer {
            Some(bin) => Some(measure(&server, args.runs, || {
                run_peer(bin, &url, &predicate, &storage)
            })?),
            None => None,
        };
        server.set_delay(Duration::ZERO);
        eprintln!(
            "remote_bench: {name}: kernel scan {} requests {:.0} ms, delta-explain {} requests {:.0} ms",
            kernel_scan.requests,
            kernel_scan.wall_ms,
            delta_explain.requests,
            delta_explain.wall_ms
        );
        rows.push(Row {
            table: name,
            predicate,
            kept,
            kernel_scan,
            delta_explain,
            peer,
        });
    }
    let json = serde_json::to_string_pretty(&serde_json::json!({
        "files": args.files,
        "delay_ms": args.delay_ms,
        "runs": args.runs,
        "rows": rows,
    }))
    .map_err(|e| e.to_string())?;
    std::fs::write(args.out.join("report.json"), json + "\n").map_err(|e| e.to_string())?;
    write_chart(args, &rows)?;
    let mut page = format!(
        "# An explanation behind a slow object store\n\n{} files per table, metadata only, on the S3-compatible test server on 127.0.0.1 with {} ms added to every request; median of {} runs.\n\n```text\ncargo run --release -p benchmarks --bin remote_bench -- --out {} --files {} --delay-ms {} --runs {}\n```\n\n![wall time](wall.svg)\n\n| table | files kept | kernel scan: requests | kernel scan: wall | delta-explain: requests | delta-explain: wall | ratio |{}\n|---|---|---|---|---|---|---|{}\n",
        args.files,
        args.delay_ms,
        args.runs,
        args.out.display(),
        args.files,
        args.delay_ms,
        args.runs,
        if args.peer.is_some() {
            " peer: requests | peer: wall |"
        } else {
            ""
        },
        if args.peer.is_some() { "---|---|" } else { "" },
    );
    for r in &rows {
        page.push_str(&format!(
            "| {} | {} | {} | {:.0} ms | {} | {:.0} ms | {:.2}x |",
            r.table,
            r.kept,
            r.kernel_scan.requests,
            r.kernel_scan.wall_ms,
            r.delta_explain.requests,
            r.delta_explain.wall_ms,
            r.delta_explain.wall_ms / r.kernel_scan.wall_ms
        ));
        if let Some(p) = &r.peer {
            page.push_str(&format!(" {} | {:.0} ms |", p.requests, p.wall_ms));
        }
        page.push('\n');
    }
    std::fs::write(args.out.join("report.md"), page).map_err(|e| e.to_string())?;
    eprintln!("remote_bench: report in {}", args.out.display());
    Ok(())
}
