//! The conformance report: `report.json`, `README.md` and a plot of the verdicts per reader.

use std::path::Path;

use super::{ConformanceReport, Verdict};
use crate::page::{bar_chart, write_file, write_json};

const COLOURS: [(Verdict, &str); 10] = [
    (Verdict::Correct, "#43a047"),
    (Verdict::MissingRows, "#e53935"),
    (Verdict::ExtraRows, "#fb8c00"),
    (Verdict::Refused, "#8e24aa"),
    (Verdict::Unsupported, "#f8bbd0"),
    (Verdict::Error, "#000000"),
    (Verdict::VariantsDiffer, "#1e88e5"),
    (Verdict::BothRefused, "#bdbdbd"),
    (Verdict::TruthRefused, "#757575"),
    (Verdict::PlanDependent, "#9e9d24"),
];

pub fn write(out: &Path, report: &ConformanceReport, command: &str) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let write = |name: &str, text: &str| write_file(out, name, text);
    write_json(out, "report.json", report)?;
    let rows: Vec<(String, Vec<(f64, &'static str)>)> = report
        .engines
        .iter()
        .map(|(engine, tally)| {
            (
                engine.clone(),
                COLOURS
                    .iter()
                    .map(|(v, c)| {
                        (
                            tally.verdicts.get(v.name()).copied().unwrap_or(0) as f64,
                            *c,
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    let legend: Vec<(&str, &str)> = COLOURS.iter().map(|(v, c)| (v.name(), *c)).collect();
    write(
        "verdicts.svg",
        &bar_chart("Cases per reader, by verdict", &rows, &legend),
    )?;

    let mut md = String::from("# Conformance: the Delta readers users run\n\n");
    md.push_str(&format!(
        "Command: `{command}`. Seed {}, {:.0} s, {} generated tables, {} predicates.\n\n",
        report.seed, report.seconds, report.tables, report.predicates
    ));
    if report.versions > 0 {
        let ops: Vec<String> = report
            .history_ops
            .iter()
            .map(|(op, n)| format!("{n} {op}"))
            .collect();
        md.push_str(&format!(
            "Histories: each generated table's log evolved after it was written (operations appended: {}), and every reader read every version from the first that adds files as the table's latest (a copy whose log stops there): {} versions in all, named `table@version` in the tallies.\n\n",
            if ops.is_empty() { "none".to_string() } else { ops.join(", ") },
            report.versions
        ));
    }
    md.push_str("Each reader reads every generated table itself (log, pruning, data); its truth is the same engine's reading of the predicate over the table's live rows read without Delta (the oracle's replay), so a difference is the reader's. `missing-rows`: fewer rows than match, or a matching file not kept (unsound skipping); `extra-rows`: rows that do not match; `refused`: the reader refused a predicate its own engine runs over plain rows; `unsupported`: it refused saying that it does not support the table's feature (its documented limit, not a finding); `error`: the reader failed; `variants-differ`: two equivalent spellings gave different rows. `both-refused` and `truth-refused` are not findings: the engine itself does not run the predicate over plain rows; nor is `plan-dependent`: the reader raised an arithmetic error (an overflow) its engine does not raise over plain rows, where whether an engine evaluates the expression on the overflowing row depends on its plan. `invalid-table`: the table's log contradicts its own files, so no reader is asked. A reader that is unavailable is listed as such, never as passed.\n\n![verdicts](verdicts.svg)\n\n");
    md.push_str("| reader | version | cases | cases per second | correct | missing rows | extra rows | refused | unsupported | errors | variants differ | both refused | truth refused | plan-dependent | skipped (table unreadable by the reader) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    readers_section(&mut md, report);
    bugs_section(&mut md, report);
    findings_section(&mut md, report);
    // The reproductions' tables, packed into one archive (the tree keeps the scripts).
    let packed = super::pack::pack_tables(out)?;
    if packed > 0 {
        md.push_str(&format!(
            "\nThe {packed} reproductions' tables are in `{}`: `tar -xzf {}` in this folder puts each back as `repro/NNN-.../table/`, beside its script.\n",
            super::pack::ARCHIVE,
            super::pack::ARCHIVE
        ));
    }
    write("README.md", &md)
}

/// The table of readers and their verdicts, each reader's skipped tables, the invalid tables.
fn readers_section(md: &mut String, report: &ConformanceReport) {
    for (engine, tally) in &report.engines {
        let n = |v: Verdict| tally.verdicts.get(v.name()).copied().unwrap_or(0);
        md.push_str(&format!(
            "| {engine} | {} | {} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            tally.version,
            tally.cases,
            tally.cases_per_second(),
            n(Verdict::Correct),
            n(Verdict::MissingRows),
            n(Verdict::ExtraRows),
            n(Verdict::Refused),
            n(Verdict::Unsupported),
            n(Verdict::Error),
            n(Verdict::VariantsDiffer),
            n(Verdict::BothRefused),
            n(Verdict::TruthRefused),
            n(Verdict::PlanDependent),
            tally.skipped.values().sum::<u64>(),
        ));
    }
    for (engine, tally) in &report.engines {
        if !tally.skipped.is_empty() {
            md.push_str(&format!("\n{engine} skipped: "));
            md.push_str(
                &tally
                    .skipped
                    .iter()
                    .map(|(why, n)| format!("{n} case(s): {why}"))
                    .collect::<Vec<_>>()
                    .join("; "),
            );
            md.push('\n');
        }
    }
    if !report.invalid_tables.is_empty() {
        md.push_str("\n## Tables no reader was blamed for\n\nTheir log contradicts their own files (a partition value that does not parse in its type, a recorded bound that does not bound the file's values, a null count that is not the file's), so every reader's cases on them are `invalid-table`, not findings: ours to fix, or a writer bug the knob reproduces.\n\n");
        for t in &report.invalid_tables {
            md.push_str(&format!("- `{}` (seed {}):\n", t.table, t.seed));
            for p in &t.problems {
                md.push_str(&format!("  - {p}\n"));
            }
        }
    }
    md.push_str("\nCases per second: the reader's own time and its truth's (both engine calls of a case, and the variant's), on the catalog's small tables.\n\n");
}

/// The distinct bugs: each placed in its component and layer, with every reader it reaches.
fn bugs_section(md: &mut String, report: &ConformanceReport) {
    md.push_str(&format!(
        "## Bugs\n\n{} cause(s) hold {} distinct bug(s). Each cause's minimized case was localized before it was listed: the reader's engine over the plain rows in every spelling compared (a difference there is the engine's expressions, whichever reader met it); the table copied without its Delta statistics, without its Parquet statistics, without both, with its partition values written as columns (the first copy on which the failure goes names the layer); the component the reader embeds (delta_kernel, DataFusion) alone on the same case (where it fails the same way the bug is its, listing every reader it reaches).\n\n",
        report.findings.len(),
        report.bugs.len()
    ));
    if report.bugs.is_empty() {
        return;
    }
    md.push_str("| component | layer | fault | readers | causes | cases | upstream |\n|---|---|---|---|---|---:|---|\n");
    for b in &report.bugs {
        let fault = b.bug.splitn(3, " | ").nth(2).unwrap_or_default();
        let causes: Vec<String> = b.findings.iter().map(|n| format!("#{n}")).collect();
        md.push_str(&format!(
            "| {} | {} | `{}` | {} | {} | {} | {} |\n",
            b.component,
            b.layer,
            fault.replace('|', "\\|"),
            b.readers.join(", "),
            causes.join(" "),
            b.seen,
            b.upstream.as_deref().unwrap_or("none known"),
        ));
    }
    md.push('\n');
}

/// The findings by cause, each with its reproduction, and the case lists.
fn findings_section(md: &mut String, report: &ConformanceReport) {
    md.push_str("## Findings\n\n");
    if report.findings.is_empty() {
        md.push_str("None.\n");
    }
    if !report.findings.is_empty() {
        md.push_str(&format!(
            "{} failing case(s) of {} cause(s). A cause is the reader, the verdict, the minimized predicate's shape (operators, column kinds, literal classes) and the table's features; for an error or a refusal, its words with their values abstracted in place of the shape; `(the table)` where the reader fails the table whatever the predicate (a probe that selects by no value fails). Each is listed once, with how many cases it explains and its first case.\n\n",
            report.failing_cases,
            report.findings.len()
        ));
    }
    for (n, f) in report.findings.iter().enumerate() {
        md.push_str(&format!(
            "- #{} **{}** {} `{}`, seen {} time(s), first on `{}` (seed {}): `{}`\n  - minimized: `{}`\n  - {}\n",
            n + 1,
            f.engine,
            f.version,
            f.verdict.name(),
            f.seen,
            f.table,
            f.seed,
            f.predicate,
            f.minimized,
            f.detail
        ));
        if !f.cause.is_empty() {
            md.push_str(&format!("  - cause: `{}`\n", f.cause));
        }
        if let Some(u) = &f.upstream {
            md.push_str(&format!("  - upstream: {u}\n"));
        }
        if let Some(l) = &f.localization {
            let experiments: Vec<String> = l
                .experiments
                .iter()
                .map(|e| format!("{}: {}", e.name, e.outcome))
                .collect();
            md.push_str(&format!(
                "  - at fault: {}, {} ({})\n",
                l.component,
                l.layer,
                experiments.join("; ")
            ));
        }
        if let Some(r) = &f.reproduction {
            md.push_str(&format!("  - reproduction: [{r}]({r}/README.md)\n"));
        }
        if let Some(why) = &f.unreproduced {
            md.push_str(&format!("  - no reproduction could be written: {why}\n"));
        }
    }
    for (title, pick) in [
        ("By writer knob (the catalog table)", true),
        ("By predicate construct", false),
    ] {
        md.push_str(&format!(
            "\n## {title}\n\n| reader | {} | cases | findings |\n|---|---|---:|---:|\n",
            if pick { "table" } else { "construct" }
        ));
        for (engine, tally) in &report.engines {
            let groups = if pick {
                &tally.by_table
            } else {
                &tally.by_construct
            };
            for (group, verdicts) in groups {
                let cases: u64 = verdicts.values().sum();
                let findings: u64 = Verdict::ALL
                    .iter()
                    .filter(|v| v.is_finding())
                    .map(|v| verdicts.get(v.name()).copied().unwrap_or(0))
                    .sum();
                md.push_str(&format!("| {engine} | {group} | {cases} | {findings} |\n"));
            }
        }
    }
}
