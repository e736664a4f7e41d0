//! The campaign's human page: markdown with SVG bar charts, rendered from the same report the
//! JSON holds.

use std::fmt::Write as _;

use pictures::{Shape, Svg, circle, line, polyline, rect, text};

use crate::campaign::CampaignReport;

/// A horizontal bar chart: one row per label, segments of (value, colour, legend).
pub fn bar_chart(
    title: &str,
    rows: &[(String, Vec<(f64, &'static str)>)],
    legend: &[(&str, &str)],
) -> String {
    let width = 720.0;
    let label_w = 230.0;
    let bar_w = width - label_w - 20.0;
    let row_h = 22.0;
    let height = 40.0 + row_h * rows.len() as f64 + 30.0;
    let max = rows
        .iter()
        .map(|(_, segs)| segs.iter().map(|s| s.0).sum::<f64>())
        .fold(0.0, f64::max)
        .max(1.0);
    let mut svg = Svg::file(width, height);
    svg.push(heading(title));
    for (i, (label, segs)) in rows.iter().enumerate() {
        let y = 35.0 + row_h * i as f64;
        svg.push(text(10.0, y + 14.0, label));
        let mut x = label_w;
        for (value, colour) in segs {
            let w = bar_w * value / max;
            svg.push(rect(x, y, w, 16.0).fill(colour));
            x += w;
        }
        let total: f64 = segs.iter().map(|s| s.0).sum();
        svg.push(text(x + 4.0, y + 13.0, &total.to_string()));
    }
    let mut x = 10.0;
    let y = height - 12.0;
    for (name, colour) in legend {
        svg.push(rect(x, y - 9.0, 10.0, 10.0).fill(colour));
        svg.push(text(x + 14.0, y, name));
        x += 24.0 + 7.0 * name.len() as f64;
    }
    svg.finish()
}

/// A chart's title, top left.
fn heading(title: &str) -> Shape {
    text(10.0, 20.0, title)
        .attr("font-size", 14)
        .attr("font-weight", "bold")
}

const PASS: &str = "#4caf50";
const ANNOUNCED: &str = "#ffb300";
const SKIPPED: &str = "#9e9e9e";
const FAIL: &str = "#e53935";

/// The charts of a report: (file name, SVG).
pub fn charts(report: &CampaignReport) -> Vec<(&'static str, String)> {
    let legend = [
        ("pass", PASS),
        ("announced", ANNOUNCED),
        ("skipped", SKIPPED),
        ("fail", FAIL),
    ];
    let rows = |map: &std::collections::BTreeMap<String, crate::campaign::Counts>| -> Vec<(String, Vec<(f64, &'static str)>)> {
        map.iter()
            .map(|(k, c)| {
                (k.clone(), vec![(c.pass as f64, PASS), (c.announced as f64, ANNOUNCED), (c.skipped as f64, SKIPPED), (c.fail as f64, FAIL)])
            })
            .collect()
    };
    let tight: Vec<(String, Vec<(f64, &'static str)>)> = report
        .tightness
        .iter()
        .map(|(k, t)| {
            (
                k.clone(),
                vec![
                    (t.matching as f64, PASS),
                    ((t.kept - t.matching.min(t.kept)) as f64, ANNOUNCED),
                    ((t.files - t.kept.min(t.files)) as f64, SKIPPED),
                ],
            )
        })
        .collect();
    vec![
        (
            "invariants.svg",
            bar_chart("Cases per invariant", &rows(&report.per_invariant), &legend),
        ),
        (
            "constructs.svg",
            bar_chart(
                "Soundness cases per construct",
                &rows(&report.per_construct),
                &legend,
            ),
        ),
        (
            "tightness.svg",
            bar_chart(
                "Files per table: matching, kept without a match, pruned",
                &tight,
                &[
                    ("matching", PASS),
                    ("kept, no match", ANNOUNCED),
                    ("pruned", SKIPPED),
                ],
            ),
        ),
    ]
}

/// The markdown page.
pub fn markdown(report: &CampaignReport, command: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Fuzz campaign, seed {}\n", report.seed);
    let _ = writeln!(md, "Reproduce: `{command}`\n");
    let _ = writeln!(
        md,
        "{:.0} s on {} job(s): {} generated tables, {} predicates, {} cases ({:.1} cases/s). Failures: {}.\n",
        report.seconds,
        report.jobs,
        report.tables,
        report.predicates,
        report.cases,
        report.cases_per_second,
        report.failures.len()
    );
    if report.tables_refused > 0 {
        let _ = writeln!(
            md,
            "Tables the protocol refuses (a recorded type change outside its list): {} drawn, each refused by both readers at every version from the change on and read at the version before; none explained.\n",
            report.tables_refused
        );
    }
    if !report.history_ops.is_empty() {
        let ops: Vec<String> = report
            .history_ops
            .iter()
            .map(|(op, n)| format!("{op} {n}"))
            .collect();
        let _ = writeln!(
            md,
            "Histories: operations appended to the rounds' tables (each version checked): {}.\n",
            ops.join(", ")
        );
    }
    let _ = writeln!(
        md,
        "Oracle engine (DataFusion matching): `{}`{}; the row-wise interpreter, the second evaluator, ran locally.\n",
        report.oracle_engine,
        if report.cluster_jobs > 0 {
            format!(
                " ({} predicates matched on the cluster)",
                report.cluster_jobs
            )
        } else {
            String::new()
        }
    );
    if let Some(e) = &report.engine_error {
        let _ = writeln!(
            md,
            "**Stopped: the oracle's engine failed**, and the cases it could not answer checked nothing: {e}\n"
        );
    }
    invariants_section(&mut md, report);
    semantics_section(&mut md, report);
    constructs_section(&mut md, report);
    failures_section(&mut md, report);
    md
}

/// Cases per invariant and the skipped cases by reason.
fn invariants_section(md: &mut String, report: &CampaignReport) {
    let _ = writeln!(
        md,
        "## Cases per invariant\n\n![](invariants.svg)\n\n| invariant | pass | announced | skipped | fail |\n|---|---|---|---|---|"
    );
    for (k, c) in &report.per_invariant {
        let _ = writeln!(
            md,
            "| {k} | {} | {} | {} | {} |",
            c.pass, c.announced, c.skipped, c.fail
        );
    }
    let skipped: u64 = report.skipped_reasons.values().sum();
    let all: u64 = report.per_invariant.values().map(|c| c.total()).sum();
    let _ = writeln!(
        md,
        "\n## Skipped cases\n\n{skipped} of {all} case(s) skipped ({:.3}%), by reason:\n",
        if all > 0 {
            100.0 * skipped as f64 / all as f64
        } else {
            0.0
        }
    );
    if report.skipped_reasons.is_empty() {
        let _ = writeln!(md, "None.");
    }
    for (reason, n) in &report.skipped_reasons {
        let _ = writeln!(md, "- {n}: {}", reason.replace('|', "\\|"));
    }
}

/// Soundness per engine semantics, the engines, the rejections and the unknown reasons.
fn semantics_section(md: &mut String, report: &CampaignReport) {
    let _ = writeln!(
        md,
        "\n## Soundness per engine semantics\n\nEach soundness case is checked under every engine's semantics: DataFusion's matching files come from DataFusion itself and are checked row by row against the oracle's interpreter; Spark's and DuckDB's come from the interpreter alone; `engine:<name>` rows come from the engine itself running the predicate as written (`--semantics`). `unknown`: the interpreter does not evaluate a construct of the predicate, or the engine is unavailable; `refused`: the engine refuses the predicate (it matches no file). A default-mode drop is announced (or a soundness failure); a `--strict` drop is always a failure.\n\n{} case(s) where the oracle's two evaluators disagree.\n\n| semantics | checked | refused | unknown | default-mode drops | strict drops |\n|---|---|---|---|---|---|",
        report.evaluator_disagreements
    );
    for (k, c) in &report.per_semantics {
        let _ = writeln!(
            md,
            "| {k} | {} | {} | {} | {} | {} |",
            c.checked, c.refused, c.unknown, c.default_dropped, c.strict_dropped
        );
    }
    if !report.engine_versions.is_empty() {
        let _ = writeln!(md, "\nEngines:\n");
        for (engine, version) in &report.engine_versions {
            let _ = writeln!(md, "- {engine}: {}", version.replace('|', "\\|"));
        }
    }
    let rejected: u64 = report.rejections.values().map(|r| r.cases).sum();
    let run: u64 = report.rejections.values().map(|r| r.run_by_an_engine).sum();
    let _ = writeln!(
        md,
        "\n## Rejections (exit 2)\n\n{rejected} predicate(s) explain-core rejected; {run} of them an engine runs (each a soundness failure).\n"
    );
    if !report.rejections.is_empty() {
        let _ = writeln!(
            md,
            "| reason | cases | run by an engine | example |\n|---|---|---|---|"
        );
        for (reason, r) in &report.rejections {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} |",
                reason.replace('|', "\\|"),
                r.cases,
                r.run_by_an_engine,
                r.example.replace('|', "\\|")
            );
        }
    }
    for (k, c) in &report.per_semantics {
        for (reason, n) in &c.unknown_reasons {
            let _ = writeln!(
                md,
                "\n- {k}, unknown in {n} case(s): {}",
                reason.replace('|', "\\|")
            );
        }
    }
}

/// Soundness per construct and tightness per table and per construct.
fn constructs_section(md: &mut String, report: &CampaignReport) {
    let _ = writeln!(
        md,
        "\n## Soundness cases per construct\n\n![](constructs.svg)\n\n| construct | pass | announced | skipped | fail |\n|---|---|---|---|---|"
    );
    for (k, c) in &report.per_construct {
        let _ = writeln!(
            md,
            "| {k} | {} | {} | {} | {} |",
            c.pass, c.announced, c.skipped, c.fail
        );
    }
    let _ = writeln!(
        md,
        "\n## Tightness\n\n![](tightness.svg)\n\nSummed over the soundness cases of each table: files, files kept by explain-core, files that really match; and where DataFusion's statistics pruning over the oracle's replay disagrees with explain-core.\n\n| table | cases | files | kept | matching | kept/matching | explain-core tighter | oracle tighter |\n|---|---|---|---|---|---|---|---|"
    );
    for (k, t) in &report.tightness {
        let ratio = if t.matching > 0 {
            format!("{:.2}", t.kept as f64 / t.matching as f64)
        } else {
            "-".into()
        };
        let _ = writeln!(
            md,
            "| {k} | {} | {} | {} | {} | {ratio} | {} | {} |",
            t.cases, t.files, t.kept, t.matching, t.explain_tighter, t.oracle_tighter
        );
    }
    let _ = writeln!(
        md,
        "\nBy construct (a case counts for every construct its predicate uses):\n\n| construct | cases | files | kept | matching | kept/matching |\n|---|---|---|---|---|---|"
    );
    for (k, t) in &report.tightness_per_construct {
        let ratio = if t.matching > 0 {
            format!("{:.2}", t.kept as f64 / t.matching as f64)
        } else {
            "-".into()
        };
        let _ = writeln!(
            md,
            "| {k} | {} | {} | {} | {} | {ratio} |",
            t.cases, t.files, t.kept, t.matching
        );
    }
}

/// The NaN violations found and announced, and the failures.
fn failures_section(md: &mut String, report: &CampaignReport) {
    let _ = writeln!(
        md,
        "\n## NaN (pitfall 2)\n\n{} default-mode violation(s) found on tables whose float bounds leave NaN out, every one announced by `NAN_UNGUARDED_BOUNDS` (an unannounced one is a failure; under `--strict` any violation is a failure).",
        report.nan_announced
    );
    if let Some(example) = &report.nan_example {
        let _ = writeln!(md, "\nExample: {}", example.replace('|', "\\|"));
    }
    let _ = writeln!(md, "\n## Failures\n");
    if report.failures.is_empty() {
        let _ = writeln!(md, "None.");
    }
    for f in &report.failures {
        let _ = writeln!(
            md,
            "- **{}** on `{}` (seed {}): `{}`\n  - minimized: `{}`\n  - {}\n  - reproduce: `{}`",
            f.invariant.name(),
            f.table,
            f.seed,
            f.predicate,
            f.minimized,
            f.message,
            f.reproduce
        );
    }
}

/// One line of a [`log_log_chart`]: a name, a colour, a stroke, and its (x, y) points.
pub struct Series {
    pub name: String,
    pub colour: &'static str,
    pub stroke: Stroke,
    pub points: Vec<(f64, f64)>,
}

/// How a line is drawn: lines of one colour tell their variants apart by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stroke {
    Solid,
    Dashed,
    Dotted,
}

impl Stroke {
    /// `shape` drawn with this stroke.
    fn on(self, shape: Shape) -> Shape {
        match self {
            Stroke::Solid => shape,
            Stroke::Dashed => shape.attr("stroke-dasharray", "6 4"),
            Stroke::Dotted => shape.attr("stroke-dasharray", "2 3"),
        }
    }
}

/// A line chart with both axes logarithmic (decades marked), so a straight line of slope 1 is
/// linear growth and the gap between two lines is their ratio.
pub fn log_log_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let (width, height) = (900.0, 420.0);
    let (left, right, top, bottom) = (70.0, 290.0, 40.0, 50.0);
    let points = || {
        series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|(x, y)| *x > 0.0 && *y > 0.0)
    };
    let decade = |v: f64, up: bool| {
        if up {
            v.log10().ceil()
        } else {
            v.log10().floor()
        }
    };
    let x_lo = points().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x_hi = points().map(|p| p.0).fold(0.0, f64::max);
    let y_lo = points().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let y_hi = points().map(|p| p.1).fold(0.0, f64::max);
    let mut svg = Svg::file(width, height);
    svg.push(heading(title));
    if !x_lo.is_finite() || !y_lo.is_finite() {
        svg.push(text(10.0, 60.0, "no data"));
        return svg.finish();
    }
    let (x0, x1) = (
        decade(x_lo, false),
        decade(x_hi, true).max(decade(x_lo, false) + 1.0),
    );
    let (y0, y1) = (
        decade(y_lo, false),
        decade(y_hi, true).max(decade(y_lo, false) + 1.0),
    );
    let plot_w = width - left - right;
    let plot_h = height - top - bottom;
    let sx = |x: f64| left + (x.log10() - x0) / (x1 - x0) * plot_w;
    let sy = |y: f64| top + plot_h - (y.log10() - y0) / (y1 - y0) * plot_h;
    for d in (x0 as i32)..=(x1 as i32) {
        let x = sx(10f64.powi(d));
        svg.push(line(x, top, x, top + plot_h).attr("stroke", "#ddd"));
        svg.push(text(x, top + plot_h + 16.0, &decade_label(d)).attr("text-anchor", "middle"));
    }
    for d in (y0 as i32)..=(y1 as i32) {
        let y = sy(10f64.powi(d));
        svg.push(line(left, y, left + plot_w, y).attr("stroke", "#ddd"));
        svg.push(text(left - 6.0, y + 4.0, &decade_label(d)).attr("text-anchor", "end"));
    }
    svg.push(text(left + plot_w / 2.0, height - 12.0, x_label).attr("text-anchor", "middle"));
    let mid = top + plot_h / 2.0;
    svg.push(
        text(14.0, mid, y_label)
            .attr(
                "transform",
                format!("rotate(-90 14 {})", pictures::number(mid)),
            )
            .attr("text-anchor", "middle"),
    );
    for (i, s) in series.iter().enumerate() {
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|(x, y)| *x > 0.0 && *y > 0.0)
            .map(|(x, y)| (sx(*x), sy(*y)))
            .collect();
        svg.push(
            s.stroke.on(polyline(&points)
                .attr("stroke", s.colour)
                .attr("stroke-width", 2)),
        );
        for (x, y) in &points {
            svg.push(circle(*x, *y, 3.0).fill(s.colour));
        }
        let ly = top + 10.0 + 18.0 * i as f64;
        let lx = left + plot_w + 12.0;
        svg.push(
            s.stroke.on(line(lx, ly, lx + 24.0, ly)
                .attr("stroke", s.colour)
                .attr("stroke-width", 2)),
        );
        svg.push(text(lx + 30.0, ly + 4.0, &s.name));
    }
    svg.finish()
}

/// `10^d` as people write it: 1, 10, 100, 1k, 10k, 100k, 1M, ...
fn decade_label(d: i32) -> String {
    match d {
        i32::MIN..=-1 => format!("1e{d}"),
        0..=2 => format!("{}", 10i64.pow(d as u32)),
        3..=5 => format!("{}k", 10i64.pow(d as u32 - 3)),
        6..=8 => format!("{}M", 10i64.pow(d as u32 - 6)),
        _ => format!("1e{d}"),
    }
}

/// Writes `text` to `out/name`; the error names the file.
pub fn write_file(out: &std::path::Path, name: &str, text: &str) -> Result<(), String> {
    std::fs::write(out.join(name), text).map_err(|e| format!("{}: {e}", out.join(name).display()))
}

/// Writes `value` as pretty JSON, with a final newline, to `out/name`.
pub fn write_json<T: serde::Serialize>(
    out: &std::path::Path,
    name: &str,
    value: &T,
) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    write_file(out, name, &(text + "\n"))
}
