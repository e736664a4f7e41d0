//! The advice as a text page (JSON is the [`Advice`] serialized): the layouts ranked with a
//! bar of the bytes each would read, the recommendation with its expected pruning per
//! predicate, and the calibration.

use std::fmt::Write as _;

use explain_advise::{Advice, LayoutResult};

use super::text::human_bytes as bytes;

const BAR: usize = 30;

/// The page, the best `top` layouts ranked (and the current layout, wherever it ranks).
pub fn to_text(advice: &Advice, top: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Layout advice for {} (version {})",
        advice.table, advice.version
    );
    let columns: Vec<String> = advice
        .columns
        .iter()
        .map(|(c, n)| format!("{c} ({n})"))
        .collect();
    let failed = advice.errors.iter().filter(|e| e.is_some()).count();
    let _ = writeln!(
        out,
        "Workload:  {} predicate(s){}; columns by use: {}",
        advice.predicates.len() - failed,
        if failed > 0 {
            format!(" ({failed} left out, below)")
        } else {
            String::new()
        },
        columns.join(", ")
    );
    let _ = writeln!(
        out,
        "Rows:      {} of {} live rows read ({}); simulated files of {}",
        advice.rows_read,
        advice.live_rows,
        if advice.sample_rate < 1.0 {
            format!(
                "a sample, {:.2}%, counts scaled up",
                advice.sample_rate * 100.0
            )
        } else {
            "every row".to_string()
        },
        bytes(advice.target_file_size)
    );
    if let Some(cs) = &advice.clustering_columns {
        let _ = writeln!(
            out,
            "Clustered: the table is clustered on {} (liquid clustering); its layout after OPTIMIZE is the {} candidate",
            cs.join(", "),
            if cs.len() == 1 {
                format!("sort by {}", cs[0])
            } else {
                format!("Hilbert ({})", cs.join(", "))
            }
        );
    }
    if failed > 0 {
        let _ = writeln!(
            out,
            "Left out: {failed} predicate(s) the explainer refuses on the table:"
        );
        for (p, e) in advice.predicates.iter().zip(&advice.errors) {
            if let Some(e) = e {
                let _ = writeln!(out, "  `{p}`: {e}");
            }
        }
    }
    let _ = writeln!(out);
    layout_table(&mut out, advice, top);
    recommendation(&mut out, advice);
    calibration(&mut out, advice);
    let _ = writeln!(out, "\nAdvised in {} ms.", advice.elapsed_ms);
    out
}

/// The ranked layouts, the first `top` (and the current one) with a bar of the bytes each reads.
fn layout_table(out: &mut String, advice: &Advice, top: usize) {
    let shown = advice.shown_layouts(top.max(1));
    let widest = shown
        .iter()
        .map(|l| l.name.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let most = advice
        .layouts
        .iter()
        .map(|l| l.bytes_read)
        .max()
        .unwrap_or(0)
        .max(1);
    let _ = writeln!(
        out,
        "rank  {:<widest$}  files  files read  bytes read   vs current",
        "layout"
    );
    for l in &shown {
        let rank = advice
            .layouts
            .iter()
            .position(|x| x.layout == l.layout)
            .unwrap_or(0);
        let filled = ((l.bytes_read as f64 / most as f64) * BAR as f64).round() as usize;
        let _ = writeln!(
            out,
            "{:>4}  {:<widest$}  {:>5}  {:>10}  {:>10}  {:>+9.1}%  {}",
            rank + 1,
            l.name,
            l.files,
            l.files_read,
            bytes(l.bytes_read),
            l.bytes_read_vs_current_pct,
            "█".repeat(filled)
        );
    }
    if advice.layouts.len() > shown.len() {
        let _ = writeln!(
            out,
            "      ({} more layout(s): --top N, or --format json for every one)",
            advice.layouts.len() - shown.len()
        );
    }
    let _ = writeln!(out);
}

/// The recommendation: the layout to make and its statement, or why the current one stays.
fn recommendation(out: &mut String, advice: &Advice) {
    let best = advice.layouts.first();
    match (&advice.statement, best) {
        (Some(statement), Some(best)) => {
            let _ = writeln!(
                out,
                "Recommended: {} (cluster on {}, in this order): the workload reads {} instead of {} ({:.1}% less).",
                best.name,
                best.layout.columns().join(", "),
                bytes(best.bytes_read),
                bytes(current(advice).map_or(0, |c| c.bytes_read)),
                advice.saving_pct,
            );
            let _ = writeln!(out, "To make it:\n  {statement}");
            per_predicate(out, advice, best);
        }
        (None, Some(best)) if best.layout != explain_advise::layout::Layout::Current => {
            let _ = writeln!(
                out,
                "Recommended: keep the current layout; the best candidate ({}) saves {:.1}% of the bytes read, under the {}% a rewrite needs (--min-saving).",
                best.name, -best.bytes_read_vs_current_pct, advice.min_saving_pct
            );
        }
        (None, _) | (Some(_), None) => {
            let _ = writeln!(
                out,
                "Recommended: keep the current layout; no candidate reads less for this workload."
            );
        }
    }
}

/// How far the simulated current layout keeps the table's own files.
fn calibration(out: &mut String, advice: &Advice) {
    let c = &advice.calibration;
    let _ = writeln!(
        out,
        "\nCalibration: the current layout simulated from the table's rows keeps the table's own files for {} of {} predicate(s).",
        c.identical, c.predicates
    );
    for entry in &c.differing {
        let _ = writeln!(
            out,
            "  `{}`: the table keeps {}, the simulation {} ({} file(s) differ)",
            entry.predicate, entry.kept_by_table, entry.kept_by_simulation, entry.differing_files
        );
        for f in &entry.files {
            let _ = writeln!(
                out,
                "    {}: {} by the table, {} by the simulation: {}",
                f.path,
                if f.kept_by_table { "kept" } else { "pruned" },
                if f.kept_by_simulation {
                    "kept"
                } else {
                    "pruned"
                },
                f.reason
            );
        }
    }
}

fn current(advice: &Advice) -> Option<&LayoutResult> {
    advice
        .layouts
        .iter()
        .find(|l| l.layout == explain_advise::layout::Layout::Current)
}

/// Files and bytes each predicate reads now and under `best`.
fn per_predicate(out: &mut String, advice: &Advice, best: &LayoutResult) {
    let Some(now) = current(advice) else {
        return;
    };
    for (i, p) in advice.predicates.iter().enumerate() {
        let (Some(Some(a)), Some(Some(b))) = (now.per_predicate.get(i), best.per_predicate.get(i))
        else {
            continue;
        };
        let _ = writeln!(
            out,
            "  `{p}`: {} of {} files ({}) -> {} of {} files ({})",
            a.files_read,
            a.total_files,
            bytes(a.bytes_read),
            b.files_read,
            b.total_files,
            bytes(b.bytes_read)
        );
    }
}
