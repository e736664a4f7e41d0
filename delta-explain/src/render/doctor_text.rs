//! The text page of `delta-explain doctor`.

use std::fmt::Write as _;

use explain_core::doctor::Doctor;

use super::text::{human_bytes, thousands};

/// The settings, the columns, the layout, the workload and the fix, a section each.
pub fn to_text(d: &Doctor) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Table: {} (version {})\n", d.table, d.version);
    settings_section(&mut out, d);
    history_section(&mut out, d);
    workload_section(&mut out, d);
    out
}

/// The statistics settings and each column's statistics.
fn settings_section(out: &mut String, d: &Doctor) {
    let s = &d.statistics;
    let _ = writeln!(out, "Statistics settings:");
    let _ = writeln!(
        out,
        "  delta.dataSkippingNumIndexedCols: {}",
        match s.num_indexed_cols {
            -1 => "every column".to_string(),
            n => n.to_string(),
        }
    );
    let _ = writeln!(
        out,
        "  delta.dataSkippingStatsColumns:   {}",
        s.stats_columns
            .as_ref()
            .map_or("(unset)".to_string(), |c| c.join(", "))
    );
    let _ = writeln!(out, "  columns with statistics:    {}", list(&s.indexed));
    let _ = writeln!(
        out,
        "  columns without statistics: {}",
        list(&s.not_indexed)
    );
    let _ = writeln!(
        out,
        "\nColumns (files recording min/max, null count; the files a lookup of one value reads on average):"
    );
    for c in &d.columns {
        let _ = writeln!(
            out,
            "  {:<32} {:>6} {:>6} {:>8}{}",
            c.column,
            c.files_with_min_max,
            c.files_with_null_count,
            c.average_depth
                .map_or("-".to_string(), |d| format!("{d:.1}")),
            if c.indexed { "" } else { "  (not indexed)" }
        );
    }
    let l = &d.layout;
    let _ = writeln!(
        out,
        "\nLayout: {} files, {}; sizes {} / {} / {} (smallest / median / largest); {} tiny (under {}); {} partition(s), {} of one file; {} file(s) without statistics",
        thousands(l.files as u64),
        human_bytes(l.bytes),
        human_bytes(l.smallest_bytes),
        human_bytes(l.median_bytes),
        human_bytes(l.largest_bytes),
        thousands(l.tiny_files as u64),
        human_bytes(explain_core::doctor::TINY_FILE_BYTES),
        thousands(l.partitions as u64),
        thousands(l.partitions_of_one_file as u64),
        thousands(l.files_without_stats as u64)
    );
    if !l.per_partition.is_empty() {
        let _ = writeln!(
            out,
            "  tiny files: {:.0}% of the files; per partition (the {} with the most tiny files; files, median size, tiny):",
            l.tiny_share * 100.0,
            l.per_partition.len().min(PARTITIONS_SHOWN)
        );
    }
    for p in l.per_partition.iter().take(PARTITIONS_SHOWN) {
        let _ = writeln!(
            out,
            "    {:<40} {:>6} {:>10} {:>6} ({:.0}%)",
            p.partition,
            thousands(p.files as u64),
            human_bytes(p.median_bytes),
            thousands(p.tiny_files as u64),
            p.tiny_share * 100.0
        );
    }
}

/// The partitions the text page lists (the JSON lists all).
const PARTITIONS_SHOWN: usize = 10;

/// The writers, the settings over the versions, cut string bounds and hazards.
fn history_section(out: &mut String, d: &Doctor) {
    let _ = writeln!(out, "\nWriters (the last commits up to the version read):");
    for w in &d.writers {
        let _ = writeln!(
            out,
            "  versions {}-{}: {}",
            w.from_version, w.to_version, w.writer
        );
    }
    let _ = writeln!(out, "\nStatistics settings over those versions:");
    for h in &d.settings_history {
        let _ = writeln!(
            out,
            "  versions {}-{}: delta.dataSkippingNumIndexedCols {}{}",
            h.from_version,
            h.to_version,
            h.num_indexed_cols,
            h.stats_columns.as_ref().map_or(String::new(), |c| format!(
                ", delta.dataSkippingStatsColumns {}",
                c.join(",")
            ))
        );
    }
    for b in d.string_bounds.iter().filter(|b| b.truncated_maxima > 0) {
        let _ = writeln!(
            out,
            "\nString bounds of `{}`: {} maxima cut to a prefix of {} character(s) (a tie-breaker after it); the longest bound is {} character(s)",
            b.column,
            b.truncated_maxima,
            b.prefix_length.unwrap_or(0),
            b.longest_bound
        );
    }
    if !d.hazards.is_empty() {
        let _ = writeln!(out, "\nHazards:");
    }
    for h in &d.hazards {
        let _ = writeln!(out, "  [{}] {}", h.code, h.message);
    }
    if !d.writer_hazards.is_empty() {
        let _ = writeln!(out, "\nKnown hazards of the writers (docs/doctor.md):");
    }
    for h in &d.writer_hazards {
        let versions: Vec<String> = h
            .versions
            .iter()
            .map(|[from, to]| format!("{from}-{to}"))
            .collect();
        let _ = writeln!(
            out,
            "  [{}] {} (versions {}): {}; see {}",
            h.id,
            h.writer,
            versions.join(", "),
            h.summary,
            h.trackers.join(", ")
        );
    }
}

/// The workload and the fix.
fn workload_section(out: &mut String, d: &Doctor) {
    if !d.workload.is_empty() {
        let _ = writeln!(out, "\nWorkload:");
    }
    for w in &d.workload {
        match (&w.error, w.total_files, w.final_files) {
            (Some(e), _, _) => {
                let _ = writeln!(out, "  `{}`: refused: {e}", w.predicate);
            }
            (None, Some(total), Some(kept)) => {
                let _ = writeln!(out, "  `{}`: keeps {kept} of {total} files", w.predicate);
            }
            (None, _, _) => {
                let _ = writeln!(out, "  `{}`", w.predicate);
            }
        }
        if !w.columns_without_stats.is_empty() {
            let _ = writeln!(
                out,
                "    uses columns without statistics: {}",
                w.columns_without_stats.join(", ")
            );
        }
        for r in &w.reasons {
            let _ = writeln!(out, "    [{}] {}", r.code, r.message);
        }
    }
    if let Some(fix) = &d.fix {
        let _ = writeln!(
            out,
            "\nFix: give {} statistics ({} live file(s) record none for them):\n  {}\n  ({})",
            fix.columns.join(", "),
            fix.files_without_their_stats,
            fix.statement,
            fix.caveat
        );
    }
}

fn list(columns: &[String]) -> String {
    if columns.is_empty() {
        "-".to_string()
    } else {
        columns.join(", ")
    }
}
