//! The tightness report: for each guard, the files kept by the kernel (asked the predicate as
//! written), by explain-core (default and `--strict`), optionally by an earlier build of
//! `delta-explain` (`--before BIN`), and the files that really match, over the shared fixtures'
//! corpora and predicates sampled from every catalog table.
//!
//! ```text
//! cargo run --release -p harness --bin tightness -- --out reports/tightness-20261130 [--before OLD-BIN] [--per-table 120]
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Parser;
use generators::catalog::{NAMES, named};
use generators::predicates::{Pools, sample_predicates};
use generators::writer::write_table;
use harness::corpus::{corpus_path, read_corpus};
use harness::page::bar_chart;
use harness::subject::Subject;
use harness::tightness::{Measured, measure};
use serde::Serialize;

#[derive(Parser)]
struct Args {
    /// Where the report goes.
    #[arg(long)]
    out: PathBuf,
    /// An earlier `delta-explain` binary: its final file counts become the "before" column.
    #[arg(long)]
    before: Option<PathBuf>,
    /// Predicates sampled from each catalog table.
    #[arg(long, default_value_t = 120)]
    per_table: usize,
}

#[derive(Serialize)]
struct Row {
    #[serde(flatten)]
    measured: Measured,
    /// The earlier build's final counts (default, `--strict`), when it explains the predicate.
    before: Option<(u64, u64)>,
}

#[derive(Default, Serialize)]
struct Totals {
    predicates: usize,
    kernel: usize,
    before_default: u64,
    before_strict: u64,
    /// Predicates the earlier build explained (the before sums cover only these).
    before_predicates: usize,
    default: usize,
    strict: usize,
    matching: usize,
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(&args) {
        eprintln!("tightness: {e}");
        std::process::exit(2);
    }
}

/// The earlier build's final counts for one predicate, default and strict.
fn before_counts(bin: &Path, location: &str, predicate: &str) -> Option<(u64, u64)> {
    let count = |strict: bool| -> Option<u64> {
        let mut args = vec![location, "-w", predicate, "--format", "json"];
        if strict {
            args.push("--strict");
        }
        let out = std::process::Command::new(bin).args(&args).output().ok()?;
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        doc["final_files"].as_u64()
    };
    Some((count(false)?, count(true)?))
}

/// A table to measure: its name, location, predicates, and the folder a generated one lives in.
type ToMeasure = (String, String, Vec<String>, Option<tempfile::TempDir>);

/// The shared fixtures with their corpora, and every catalog table with `per_table` sampled
/// predicates.
fn tables(per_table: usize) -> Result<Vec<ToMeasure>, String> {
    let mut tables: Vec<ToMeasure> = Vec::new();
    for table in testkit::all_tables() {
        let location = table.to_string_lossy().into_owned();
        let name = location
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&location)
            .to_string();
        let corpus = read_corpus(&corpus_path(&name))?;
        tables.push((name, location, corpus, None));
    }
    for name in NAMES {
        let spec = named(name).ok_or("unknown catalog table")?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let written = write_table(&spec, dir.path())?;
        let pools = Pools::from_table(&spec, &written);
        let predicates = sample_predicates(&pools, 2, 20_261_130, per_table)
            .iter()
            .map(|p| p.to_string())
            .collect();
        tables.push((
            format!("gen/{name}"),
            dir.path().to_string_lossy().into_owned(),
            predicates,
            Some(dir),
        ));
    }
    Ok(tables)
}

/// The chart of the files kept per guard.
fn write_chart(out: &std::path::Path, per_guard: &BTreeMap<&str, Totals>) -> Result<(), String> {
    let chart_rows: Vec<(String, Vec<(f64, &'static str)>)> = per_guard
        .iter()
        .filter(|(k, _)| **k != "(no guard)")
        .flat_map(|(k, t)| {
            [
                (format!("{k}: kernel"), vec![(t.kernel as f64, "#9e9e9e")]),
                (format!("{k}: default"), vec![(t.default as f64, "#1f77b4")]),
                (format!("{k}: --strict"), vec![(t.strict as f64, "#ff7f0e")]),
                (
                    format!("{k}: matching"),
                    vec![(t.matching as f64, "#2ca02c")],
                ),
            ]
        })
        .collect();
    let legend = [
        ("kernel", "#9e9e9e"),
        ("default", "#1f77b4"),
        ("--strict", "#ff7f0e"),
        ("matching", "#2ca02c"),
    ];
    std::fs::write(
        out.join("tightness.svg"),
        bar_chart(
            "Files kept, summed over the predicates each guard fired on",
            &chart_rows,
            &legend,
        ),
    )
    .map_err(|e| e.to_string())?;
    Ok(())
}

fn run(args: &Args) -> Result<(), String> {
    let tables = tables(args.per_table)?;
    let mut rows = Vec::new();
    for (i, (name, location, predicates, _)) in tables.iter().enumerate() {
        eprintln!(
            "[{}/{}] {name}: {} predicates",
            i + 1,
            tables.len(),
            predicates.len()
        );
        let subject = Subject::load(name, location)?;
        for predicate in predicates {
            let Ok(measured) = measure(&subject, predicate) else {
                continue;
            };
            let before = args.before.as_deref().and_then(|bin| {
                // Only where a guard fired: elsewhere the earlier build scans the same predicate.
                (!measured.guards.is_empty())
                    .then(|| before_counts(bin, location, predicate))
                    .flatten()
            });
            rows.push(Row { measured, before });
        }
    }
    let mut per_guard: BTreeMap<&str, Totals> = BTreeMap::new();
    for row in &rows {
        let m = &row.measured;
        let keys: Vec<&str> = if m.guards.is_empty() {
            vec!["(no guard)"]
        } else {
            m.guards.clone()
        };
        for key in keys {
            let t = per_guard.entry(key).or_default();
            t.predicates += 1;
            t.kernel += m.kernel;
            t.default += m.default;
            t.strict += m.strict;
            t.matching += m.matching;
            if let Some((d, s)) = row.before {
                t.before_predicates += 1;
                t.before_default += d;
                t.before_strict += s;
            }
        }
    }
    let unexplained: usize = rows.iter().map(|r| r.measured.unexplained).sum();
    std::fs::create_dir_all(&args.out).map_err(|e| e.to_string())?;
    // The rows a guard fired on (or with looseness nothing documents); the others are in the
    // totals of `(no guard)`.
    let guarded: Vec<&Row> = rows
        .iter()
        .filter(|r| !r.measured.guards.is_empty() || r.measured.unexplained > 0)
        .collect();
    let json = serde_json::json!({ "per_guard": per_guard, "unexplained_files": unexplained, "guarded_rows": guarded });
    std::fs::write(
        args.out.join("report.json"),
        serde_json::to_string_pretty(&json).unwrap_or_default(),
    )
    .map_err(|e| e.to_string())?;
    write_chart(&args.out, &per_guard)?;
    let mut md = String::from("# Tightness of the guards\n\n");
    md.push_str(&format!(
        "{} predicates over {} tables (the shared fixtures' corpora, {} sampled from each catalog table). For each guard: the predicates it fired on, and the files kept, summed over them, by the kernel asked the predicate as written (no guard), by explain-core (default and `--strict`){}, and the files that really match (the oracle). A predicate on which several guards fire counts under each.\n\n",
        rows.len(),
        tables.len(),
        args.per_table,
        if args.before.is_some() { ", by the build before the guards of this round (`before`, over the predicates it explains)" } else { "" }
    ));
    md.push_str("| guard | predicates | kernel | before default | before --strict | default | --strict | matching |\n|---|---|---|---|---|---|---|---|\n");
    for (k, t) in &per_guard {
        let before = |v: u64| {
            if t.before_predicates > 0 {
                format!("{v} ({} preds)", t.before_predicates)
            } else {
                "-".into()
            }
        };
        md.push_str(&format!(
            "| `{k}` | {} | {} | {} | {} | {} | {} | {} |\n",
            t.predicates,
            t.kernel,
            before(t.before_default),
            before(t.before_strict),
            t.default,
            t.strict,
            t.matching
        ));
    }
    md.push_str(&format!(
        "\nFiles kept beyond the kernel with no guard fired (looseness nothing documents): **{unexplained}**.\n\n![files kept](tightness.svg)\n\nReproduce: `cargo run --release -p harness --bin tightness -- --out {} --per-table {}{}`\n",
        args.out.display(),
        args.per_table,
        if args.before.is_some() { " --before <old delta-explain>" } else { "" }
    ));
    std::fs::write(args.out.join("README.md"), md).map_err(|e| e.to_string())?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}
