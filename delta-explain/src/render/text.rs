//! The human page, rendered from the same [`Report`] the JSON comes from, so the two can never
//! disagree.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use explain_core::report::assertions::{Assertion, Outcome};
use explain_core::report::layers::{Layers, TreeNode};
use explain_core::report::{PhaseReport, Report};

/// Diagnoses of one code shown on the page before the rest are counted.
const DIAGNOSES_SHOWN_PER_CODE: usize = 10;

pub(super) fn write(report: &Report, out: &mut String) -> std::fmt::Result {
    write_header(report, out)?;
    write_phases(report, out)?;
    write_files(report, out)?;
    if let Some(layers) = &report.layers {
        write_layers(layers, out)?;
    }
    write_diagnoses(report, out)?;
    if let Some(funnel) = &report.verify {
        write_funnel(funnel, out)?;
    }
    for column in report.ranges.iter().flatten() {
        write_ranges(column, out)?;
    }
    write_gates(report, out)?;
    write_features(report, out)?;
    Ok(())
}

/// The table, the version, the predicate as given and as normalized, and its analysis.
fn write_header(report: &Report, out: &mut String) -> std::fmt::Result {
    writeln!(out, "Delta table: {}", report.table)?;
    writeln!(out, "Version:     {}", report.version)?;
    writeln!(
        out,
        "Predicate:   {}",
        report.predicate.as_deref().unwrap_or("-")
    )?;
    for b in &report.bindings {
        writeln!(out, "Bound:       {} = {}", b.function, b.value)?;
    }
    if let (Some(given), Some(normalized)) = (&report.predicate, &report.normalized_predicate)
        && given.trim() != normalized
    {
        writeln!(out, "Normalized:  {normalized}")?;
    }
    if let Some(a) = &report.analysis {
        writeln!(out)?;
        writeln!(out, "Predicate analysis:")?;
        let list = |items: &[String]| {
            if items.is_empty() {
                "-".to_string()
            } else {
                items.join("; ")
            }
        };
        writeln!(
            out,
            "  partition-safe:  {}",
            list(&a.fragments.partition_safe)
        )?;
        writeln!(
            out,
            "  partition-exact: {}",
            list(&a.fragments.partition_exact)
        )?;
        writeln!(out, "  stats-safe:      {}", list(&a.fragments.stats_safe))?;
        writeln!(
            out,
            "  unsplittable:    {}",
            list(&a.fragments.unsplittable)
        )?;
        writeln!(out, "  confidence:      {}", a.confidence.label())?;
        write_coverage(a.stats_coverage.as_deref().unwrap_or_default(), out)?;
        for (column, values) in a.partition_values_accepted.iter() {
            if let Some(values) = values {
                let shown: Vec<String> = values
                    .iter()
                    .map(|v| {
                        v.as_deref().map_or("NULL".to_string(), |t| {
                            format!("'{}'", t.replace('\'', "''"))
                        })
                    })
                    .collect();
                writeln!(
                    out,
                    "  accepted values: {column} in {{{}}}",
                    shown.join(", ")
                )?;
            }
        }
        for n in &a.notes {
            writeln!(out, "  note [{}]: {}", n.code, n.message)?;
        }
        // A hazard is said once: under --explain-why its diagnosis (with what to do) says it.
        let diagnosed = |code: &str| report.diagnoses.iter().flatten().any(|d| d.code == code);
        for h in a.hazards.iter().filter(|h| !diagnosed(h.code)) {
            writeln!(out, "  hazard [{}] ({}): {}", h.code, h.effect, h.message)?;
        }
    }
    Ok(())
}

/// The baseline, each phase with what it kept, and the total reduction.
fn write_phases(report: &Report, out: &mut String) -> std::fmt::Result {
    writeln!(out)?;
    writeln!(
        out,
        "Files in snapshot: {}  ({}, {})",
        thousands(report.total_files as u64),
        human_bytes(report.total_bytes),
        records(report.total_records, report.files_without_record_count)
    )?;
    if let Some(live) = report.total_live_records {
        writeln!(
            out,
            "  records after deletion vectors: {} (numRecords less each vector's cardinality)",
            thousands(live)
        )?;
    }
    for (i, p) in report.phases.iter().enumerate() {
        writeln!(out)?;
        writeln!(
            out,
            "Phase {}: {} [{}]",
            i + 1,
            p.name,
            p.confidence.label()
        )?;
        writeln!(out, "  predicate:       {}", render_phase_predicate(p))?;
        writeln!(
            out,
            "  files remaining: {}  (-{}, {} pruned)",
            thousands(p.output_files as u64),
            thousands(p.pruned_files as u64),
            format_pct(p.pruning_pct)
        )?;
        writeln!(
            out,
            "  bytes remaining: {}  (-{}); records: {}{}",
            human_bytes(p.output_bytes),
            human_bytes(p.pruned_bytes),
            thousands(p.output_records),
            after_deletion_vectors(p.output_live_records)
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Total reduction: {} -> {} files ({} pruned)",
        thousands(report.total_files as u64),
        thousands(report.final_files as u64),
        format_pct(report.total_pruning_pct)
    )?;
    writeln!(
        out,
        "                 {} -> {}; {} -> {} records",
        human_bytes(report.total_bytes),
        human_bytes(report.final_bytes),
        thousands(report.total_records),
        thousands(report.final_records)
    )?;
    if let (Some(total), Some(kept)) = (report.total_live_records, report.final_live_records) {
        writeln!(
            out,
            "                 {} -> {} records after deletion vectors",
            thousands(total),
            thousands(kept)
        )?;
    }
    Ok(())
}

/// ` (N after deletion vectors)` where the table has deletion vectors.
fn after_deletion_vectors(live: Option<u64>) -> String {
    live.map(|n| format!(" ({} after deletion vectors)", thousands(n)))
        .unwrap_or_default()
}

/// The per-file view (`--verbose`).
fn write_files(report: &Report, out: &mut String) -> std::fmt::Result {
    if let Some(files) = &report.files {
        writeln!(out)?;
        writeln!(out, "Files:")?;
        for f in files {
            let status = match f.pruned_by {
                None => "KEPT".to_string(),
                Some(phase) => format!("PRUNED by {phase}"),
            };
            let partition: Vec<String> = f
                .partition_values
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_deref().unwrap_or("NULL")))
                .collect();
            let ranges: Vec<String> = f
                .min_values
                .keys()
                .chain(f.max_values.keys())
                .collect::<BTreeSet<_>>()
                .into_iter()
                .map(|k| {
                    let show = |m: &BTreeMap<String, serde_json::Value>| {
                        m.get(k).map_or("?".to_string(), |v| v.to_string())
                    };
                    format!("{k}: {}..{}", show(&f.min_values), show(&f.max_values))
                })
                .collect();
            writeln!(
                out,
                "  [{status}] {}  ({} bytes, {} records){}{}",
                f.path,
                f.size_bytes,
                f.num_records.map_or("?".to_string(), |n| n.to_string()),
                if partition.is_empty() {
                    String::new()
                } else {
                    format!("  partition({})", partition.join(", "))
                },
                if !f.has_stats {
                    "  [no stats]".to_string()
                } else if ranges.is_empty() {
                    String::new()
                } else {
                    format!("  stats({})", ranges.join(", "))
                }
            )?;
        }
        if report.files_truncated == Some(true) {
            writeln!(
                out,
                "  ... {} more file(s) not shown (--limit)",
                report.total_files - files.len()
            )?;
        }
    }
    Ok(())
}

/// The diagnoses (`--explain-why`), the first few of each code.
fn write_diagnoses(report: &Report, out: &mut String) -> std::fmt::Result {
    if let Some(diagnoses) = &report.diagnoses {
        writeln!(out)?;
        writeln!(out, "Why (--explain-why):")?;
        if diagnoses.is_empty() {
            writeln!(
                out,
                "  nothing to improve: every fragment prunes through a phase"
            )?;
        }
        // A predicate of thousands of conjuncts can have a diagnosis each: the page shows the
        // first few of each code and counts the rest (the JSON has them all).
        let mut shown: BTreeMap<&str, usize> = BTreeMap::new();
        for d in diagnoses {
            let n = shown.entry(d.code).or_default();
            *n += 1;
            if *n > DIAGNOSES_SHOWN_PER_CODE {
                continue;
            }
            let severity = match d.severity {
                explain_core::report::diagnoses::Severity::Info => "info",
                explain_core::report::diagnoses::Severity::Warning => "warning",
            };
            writeln!(out, "  [{severity}] {}: {}", d.code, d.message)?;
            writeln!(out, "      suggestion: {}", d.suggestion)?;
        }
        for (code, n) in &shown {
            if *n > DIAGNOSES_SHOWN_PER_CODE {
                writeln!(
                    out,
                    "  ... {} more {code} diagnoses (every one is in the JSON report)",
                    n - DIAGNOSES_SHOWN_PER_CODE
                )?;
            }
        }
    }
    Ok(())
}

/// The warnings, the gates' outcomes and the result.
fn write_gates(report: &Report, out: &mut String) -> std::fmt::Result {
    if !report.warnings.is_empty() {
        writeln!(out)?;
        for w in &report.warnings {
            writeln!(out, "Warning: {w}")?;
        }
    }
    if !report.assertions.is_empty() {
        writeln!(out)?;
        writeln!(out, "Assertions:")?;
        for a in &report.assertions {
            match a {
                Assertion::MinPruning {
                    threshold,
                    actual,
                    result,
                } => writeln!(
                    out,
                    "  min_pruning: {actual}% pruned, required {threshold}%: {}",
                    outcome_label(*result)
                )?,
                Assertion::MinFiles {
                    threshold,
                    actual,
                    result,
                } => writeln!(
                    out,
                    "  min_files: {actual} file(s) kept, required {threshold}: {}",
                    outcome_label(*result)
                )?,
                Assertion::StatsComplete {
                    missing_count,
                    result,
                    ..
                } => writeln!(
                    out,
                    "  stats_complete: {missing_count} file(s) missing statistics: {}",
                    outcome_label(*result)
                )?,
            }
        }
        writeln!(
            out,
            "Result: {}",
            outcome_label(report.result.unwrap_or(Outcome::Pass))
        )?;
    }
    Ok(())
}

/// The table's features that bear on the numbers.
fn write_features(report: &Report, out: &mut String) -> std::fmt::Result {
    let mut features: BTreeMap<&str, String> = BTreeMap::new();
    if report
        .table_features
        .deletion_vectors
        .files_with_deletion_vectors
        > 0
    {
        features.insert(
            "deletion vectors",
            format!(
                "{} file(s)",
                report
                    .table_features
                    .deletion_vectors
                    .files_with_deletion_vectors
            ),
        );
    }
    if let Some(mode) = &report.table_features.column_mapping_mode {
        features.insert("column mapping", mode.clone());
    }
    if let Some(columns) = &report.table_features.clustering_columns {
        features.insert(
            "clustering",
            if columns.is_empty() {
                "-".to_string()
            } else {
                columns.join(", ")
            },
        );
    }
    if report.table_features.in_commit_timestamps {
        features.insert("in-commit timestamps", "on".to_string());
    }
    let protocol = &report.table_features.protocol;
    let unknown: Vec<&str> = protocol
        .unknown_reader_features
        .iter()
        .chain(&protocol.unknown_writer_features)
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        features.insert("unknown features", unknown.join(", "));
    }
    if report.stats.mode != "exact" {
        features.insert(
            "statistics",
            format!(
                "{} ({} of {} files)",
                report.stats.mode, report.stats.files_with_stats, report.total_files
            ),
        );
    }
    for (k, v) in features {
        writeln!(out, "Table: {k}: {v}")?;
    }
    Ok(())
}

/// `trip_distance > 8 (+1 fragment left out, keeps all files)`: a fragment is left out when no
/// phase can evaluate it or a guard distrusts its bounds; the notes say which and why.
fn render_honoured(predicate: &str, stripped: &[String]) -> String {
    let base = if predicate == "TRUE" && !stripped.is_empty() {
        "none"
    } else {
        predicate
    };
    match stripped.len() {
        0 => base.to_string(),
        1 => format!("{base} (+1 fragment left out, keeps all files)"),
        n => format!("{base} (+{n} fragments left out, keep all files)"),
    }
}

fn render_phase_predicate(p: &PhaseReport) -> String {
    let mut text = render_honoured(&p.predicate, &p.stripped);
    if !p.nan_excluded.is_empty() {
        if text == "TRUE" {
            text = "none".into();
        }
        text.push_str(&format!(
            " (--strict left out: {})",
            p.nan_excluded.join(", ")
        ));
    }
    text
}

/// `--verify`: the funnel, stage by stage, and what each stage keeps in vain.
fn write_funnel(
    funnel: &explain_core::report::funnel::Funnel,
    out: &mut String,
) -> std::fmt::Result {
    writeln!(out)?;
    writeln!(out, "Verified against the data (--verify):")?;
    for stage in &funnel.stages {
        let groups = stage
            .row_groups
            .map(|g| format!(", {} row groups", thousands(g as u64)))
            .unwrap_or_default();
        writeln!(
            out,
            "  {:<18} {:>10} files  {:>10}  {:>12} rows{groups}",
            stage.name,
            thousands(stage.files as u64),
            human_bytes(stage.bytes),
            thousands(stage.rows)
        )?;
    }
    writeln!(out, "  row groups: {}", funnel.row_group_rules)?;
    let files = &funnel.false_positive_files;
    writeln!(
        out,
        "  false positives: {} kept file(s) hold no match ({}, {}% of the kept bytes)",
        thousands(files.count as u64),
        human_bytes(files.bytes),
        files.bytes_pct
    )?;
    let groups = &funnel.false_positive_row_groups;
    writeln!(
        out,
        "                   {} row group(s) read hold no match ({}, {}% of the bytes read)",
        thousands(groups.count as u64),
        human_bytes(groups.bytes),
        groups.bytes_pct
    )?;
    match funnel.dropped_matching_files.len() {
        0 => writeln!(out, "  sound: no dropped file holds a match")?,
        n => writeln!(
            out,
            "  UNSOUND: {n} dropped file(s) hold a match: {}",
            funnel.dropped_matching_files.join(", ")
        )?,
    }
    if !funnel.dropped_matching_row_groups.is_empty() {
        writeln!(
            out,
            "  the footer rules drop {} row group(s) holding a match: {}",
            funnel.dropped_matching_row_groups.len(),
            funnel.dropped_matching_row_groups.join(", ")
        )?;
    }
    for remedy in &funnel.remedies {
        writeln!(out, "  would help: {remedy}")?;
    }
    Ok(())
}

/// Rows of the terminal's range picture at most; beyond, files evenly spaced in order.
const RANGE_ROWS: usize = 40;
const RANGE_WIDTH: usize = 50;

/// `--ranges COLUMN`: each file's `[min, max]` as a bar under the predicate's interval.
fn write_ranges(
    column: &explain_core::report::ranges::ColumnRanges,
    out: &mut String,
) -> std::fmt::Result {
    writeln!(out)?;
    let c = &column.clustering;
    writeln!(
        out,
        "Ranges of {} ({} files with bounds, {} without, {} axis): average overlap depth {}, average overlaps {}",
        column.column,
        thousands(column.files.len() as u64),
        thousands(column.files_without_bounds as u64),
        column.axis,
        c.average_depth,
        c.average_overlaps
    )?;
    let files = &column.files;
    if files.is_empty() {
        return Ok(());
    }
    let rows = column.sampled(RANGE_ROWS);
    let (lo, hi) = column.extent();
    let span = hi - lo;
    let cell = |v: f64| (((v - lo) / span) * (RANGE_WIDTH - 1) as f64).round() as usize;
    if let Some(i) = &column.interval {
        let from = i.low.as_ref().map_or(0, |(_, at)| cell(*at));
        let to = i.high.as_ref().map_or(RANGE_WIDTH - 1, |(_, at)| cell(*at));
        let line: String = (0..RANGE_WIDTH)
            .map(|k| if (from..=to).contains(&k) { '=' } else { ' ' })
            .collect();
        let shown = |end: &Option<(String, f64)>, open: &str| {
            end.as_ref().map_or(open.to_string(), |(t, _)| t.clone())
        };
        writeln!(
            out,
            "  predicate |{line}| {} .. {}",
            shown(&i.low, "-inf"),
            shown(&i.high, "+inf")
        )?;
    }
    for file in &rows {
        let (a, b) = (cell(file.low), cell(file.high));
        let mark = if file.kept { '#' } else { '-' };
        let line: String = (0..RANGE_WIDTH)
            .map(|k| if (a..=b).contains(&k) { mark } else { ' ' })
            .collect();
        writeln!(
            out,
            "  {:<9} |{line}| {} .. {}  {}",
            if file.kept { "kept" } else { "pruned" },
            file.min,
            file.max,
            file.path
        )?;
    }
    if rows.len() < files.len() {
        writeln!(
            out,
            "  ({} of {} files shown, evenly spaced in order; every one is in the JSON report)",
            rows.len(),
            thousands(files.len() as u64)
        )?;
    }
    let labels = c.depth_labels(files.len());
    let histogram: Vec<String> = c
        .depth_histogram
        .iter()
        .zip(&labels)
        .filter(|((_, n), _)| *n > 0)
        .map(|((_, n), depth)| format!("depth {depth}: {n} file(s)"))
        .collect();
    writeln!(out, "  files by overlap depth: {}", histogram.join(", "))
}

fn write_layers(layers: &Layers, out: &mut String) -> std::fmt::Result {
    writeln!(out)?;
    writeln!(out, "Layers (--layers):")?;
    writeln!(
        out,
        "  1. Parsed, before normalization: {}",
        layers.parsed.sql
    )?;
    write_tree(&layers.parsed.tree, "     ", "", out)?;
    writeln!(out, "  2. Normalized: {}", layers.normalized.sql)?;
    write_tree(&layers.normalized.tree, "     ", "", out)?;
    writeln!(out, "  3. Classification:")?;
    for f in layers.classification.iter().take(TREE_CHILDREN_SHOWN) {
        let bucket = serde_json::to_value(f.bucket)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        writeln!(
            out,
            "     {bucket:<16} {}  [{}]",
            f.fragment,
            f.columns.join(", ")
        )?;
    }
    if layers.classification.len() > TREE_CHILDREN_SHOWN {
        writeln!(
            out,
            "     ... {} more fragments",
            layers.classification.len() - TREE_CHILDREN_SHOWN
        )?;
    }
    writeln!(out, "  4. Kernel predicates:")?;
    let shown = |p: &Option<String>| {
        p.clone()
            .unwrap_or_else(|| "none (keeps every file)".to_string())
    };
    writeln!(
        out,
        "     partition scan:      {}",
        shown(&layers.kernel.partition_scan)
    )?;
    writeln!(
        out,
        "     partition evaluator: {}",
        layers
            .kernel
            .partition_evaluator
            .as_deref()
            .unwrap_or("none")
    )?;
    writeln!(
        out,
        "     full scan:           {}",
        shown(&layers.kernel.full_scan)
    )?;
    writeln!(out, "  5. Survivor sets:")?;
    for set in &layers.survivors {
        writeln!(out, "     {:<9} {} file(s)", set.set, set.count)?;
        for f in &set.files {
            writeln!(out, "       {f}")?;
        }
        if set.files_truncated {
            writeln!(
                out,
                "       ... {} more (--limit)",
                set.count - set.files.len()
            )?;
        }
    }
    Ok(())
}

/// Draws `node` as an indented tree: junctions by name, leaves by their SQL.
fn write_tree(node: &TreeNode, indent: &str, branch: &str, out: &mut String) -> std::fmt::Result {
    let label = match node.kind {
        "and" | "or" | "not" => node.kind.to_ascii_uppercase(),
        kind => format!("{}  ({kind})", node.sql),
    };
    writeln!(out, "{indent}{branch}{label}")?;
    let child_indent = format!(
        "{indent}{}",
        match branch {
            "" => "",
            "└─ " => "   ",
            _ => "│  ",
        }
    );
    // A junction of thousands of items shows the first few and counts the rest.
    let shown = node.children.len().min(TREE_CHILDREN_SHOWN);
    let hidden = node.children.len() - shown;
    for (i, child) in node.children.iter().take(shown).enumerate() {
        let last = i + 1 == shown && hidden == 0;
        write_tree(child, &child_indent, if last { "└─ " } else { "├─ " }, out)?;
    }
    if hidden > 0 {
        writeln!(out, "{child_indent}└─ ... {hidden} more")?;
    }
    Ok(())
}

/// Children of one tree node shown in `--layers` before the rest are counted.
const TREE_CHILDREN_SHOWN: usize = 12;

fn outcome_label(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
    }
}

/// `1234567` as `1,234,567`.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count in binary units: `512 B`, `9.9 KiB`, `1.2 GiB`.
pub(crate) fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A record total, saying how many files have no count in their statistics.
fn records(total: u64, without: usize) -> String {
    match without {
        0 => format!("{} records", thousands(total)),
        n => format!(
            "{} records in the files that count them; {} file(s) record none",
            thousands(total),
            thousands(n as u64)
        ),
    }
}

pub(super) fn format_pct(p: f64) -> String {
    if (p - p.round()).abs() < 1e-9 {
        format!("{}%", p.round() as i64)
    } else {
        format!("{p:.1}%")
    }
}

/// `analysis.stats_coverage`: a line per column and requirement, and below 100% the writer
/// setting that would cover the rest.
fn write_coverage(
    coverage: &[explain_core::report::coverage::ColumnCoverage],
    out: &mut String,
) -> std::fmt::Result {
    for c in coverage {
        writeln!(
            out,
            "  stats coverage:  {} ({}): {} of {} file(s) data skipping sees ({}%)",
            c.column,
            c.requirement.label(),
            thousands(c.covered_files as u64),
            thousands(c.candidate_files as u64),
            c.coverage_pct
        )?;
        if c.covered_files < c.candidate_files {
            writeln!(
                out,
                "    diagnosis [STATS_ABSENT]: data skipping keeps the other {} whatever the predicate says; have writers collect `{}` (delta.dataSkippingStatsColumns, or delta.dataSkippingNumIndexedCols above its position) and rewrite or recompute those files' statistics",
                thousands((c.candidate_files - c.covered_files) as u64),
                c.column
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_sizes_read_as_people_write_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(10_000_000), "10,000,000");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(10_125), "9.9 KiB");
        assert_eq!(human_bytes(3 * 1024 * 1024 * 1024 / 2), "1.5 GiB");
    }
}
