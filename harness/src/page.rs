//! The campaign's human page: markdown with SVG bar charts, rendered from the same report the
//! JSON holds.

use std::fmt::Write as _;

use crate::campaign::CampaignReport;

/// A horizontal bar chart: one row per label, segments of (value, colour, legend).
pub fn bar_chart(title: &str, rows: &[(String, Vec<(f64, &'static str)>)], legend: &[(&str, &str)]) -> String {
    let width = 720.0;
    let label_w = 230.0;
    let bar_w = width - label_w - 20.0;
    let row_h = 22.0;
    let height = 40.0 + row_h * rows.len() as f64 + 30.0;
    let max = rows.iter().map(|(_, segs)| segs.iter().map(|s| s.0).sum::<f64>()).fold(0.0, f64::max).max(1.0);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{title}</text>\n"
    );
    for (i, (label, segs)) in rows.iter().enumerate() {
        let y = 35.0 + row_h * i as f64;
        let _ = writeln!(svg, "<text x=\"10\" y=\"{}\">{}</text>", y + 14.0, escape(label));
        let mut x = label_w;
        for (value, colour) in segs {
            let w = bar_w * value / max;
            let _ = writeln!(svg, "<rect x=\"{x:.1}\" y=\"{y}\" width=\"{w:.1}\" height=\"16\" fill=\"{colour}\"/>");
            x += w;
        }
        let total: f64 = segs.iter().map(|s| s.0).sum();
        let _ = writeln!(svg, "<text x=\"{:.1}\" y=\"{}\">{}</text>", x + 4.0, y + 13.0, total);
    }
    let mut x = 10.0;
    let y = height - 12.0;
    for (name, colour) in legend {
        let _ = writeln!(svg, "<rect x=\"{x}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{colour}\"/><text x=\"{}\" y=\"{y}\">{name}</text>", y - 9.0, x + 14.0);
        x += 24.0 + 7.0 * name.len() as f64;
    }
    svg.push_str("</svg>\n");
    svg
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

const PASS: &str = "#4caf50";
const ANNOUNCED: &str = "#ffb300";
const SKIPPED: &str = "#9e9e9e";
const FAIL: &str = "#e53935";

/// The charts of a report: (file name, SVG).
pub fn charts(report: &CampaignReport) -> Vec<(&'static str, String)> {
    let legend = [("pass", PASS), ("announced", ANNOUNCED), ("skipped", SKIPPED), ("fail", FAIL)];
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
        .map(|(k, t)| (k.clone(), vec![(t.matching as f64, PASS), ((t.kept - t.matching.min(t.kept)) as f64, ANNOUNCED), ((t.files - t.kept.min(t.files)) as f64, SKIPPED)]))
        .collect();
    vec![
        ("invariants.svg", bar_chart("Cases per invariant", &rows(&report.per_invariant), &legend)),
        ("constructs.svg", bar_chart("Soundness cases per construct", &rows(&report.per_construct), &legend)),
        (
            "tightness.svg",
            bar_chart("Files per table: matching, kept without a match, pruned", &tight, &[("matching", PASS), ("kept, no match", ANNOUNCED), ("pruned", SKIPPED)]),
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
    let _ = writeln!(md, "## Cases per invariant\n\n![](invariants.svg)\n\n| invariant | pass | announced | skipped | fail |\n|---|---|---|---|---|");
    for (k, c) in &report.per_invariant {
        let _ = writeln!(md, "| {k} | {} | {} | {} | {} |", c.pass, c.announced, c.skipped, c.fail);
    }
    let _ = writeln!(md, "\n## Soundness cases per construct\n\n![](constructs.svg)\n\n| construct | pass | announced | skipped | fail |\n|---|---|---|---|---|");
    for (k, c) in &report.per_construct {
        let _ = writeln!(md, "| {k} | {} | {} | {} | {} |", c.pass, c.announced, c.skipped, c.fail);
    }
    let _ = writeln!(md, "\n## Tightness\n\n![](tightness.svg)\n\nSummed over the soundness cases of each table: files, files kept by explain-core, files that really match; and where DataFusion's statistics pruning over the oracle's replay disagrees with explain-core.\n\n| table | cases | files | kept | matching | kept/matching | explain-core tighter | oracle tighter |\n|---|---|---|---|---|---|---|---|");
    for (k, t) in &report.tightness {
        let ratio = if t.matching > 0 { format!("{:.2}", t.kept as f64 / t.matching as f64) } else { "-".into() };
        let _ = writeln!(md, "| {k} | {} | {} | {} | {} | {ratio} | {} | {} |", t.cases, t.files, t.kept, t.matching, t.explain_tighter, t.oracle_tighter);
    }
    let _ = writeln!(md, "\nBy construct (a case counts for every construct its predicate uses):\n\n| construct | cases | files | kept | matching | kept/matching |\n|---|---|---|---|---|---|");
    for (k, t) in &report.tightness_per_construct {
        let ratio = if t.matching > 0 { format!("{:.2}", t.kept as f64 / t.matching as f64) } else { "-".into() };
        let _ = writeln!(md, "| {k} | {} | {} | {} | {} | {ratio} |", t.cases, t.files, t.kept, t.matching);
    }
    let _ = writeln!(md, "\n## NaN (pitfall 2)\n\n{} default-mode violation(s) found on tables whose float bounds leave NaN out, every one announced by `NAN_UNGUARDED_BOUNDS` (an unannounced one is a failure; under `--strict` any violation is a failure).", report.nan_announced);
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
    md
}
