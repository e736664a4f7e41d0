//! The doctor as one self-contained HTML page (no network; `--format html`): a bar per data
//! column of the files recording its min/max against the live files (indexed columns blue,
//! the others grey), the workload's predicates with what each keeps, and the text page itself,
//! so the two cannot disagree.

use std::fmt::Write as _;

use explain_core::doctor::Doctor;
use pictures::{Svg, rect, text};

use super::html::{close_page, esc, open_page};

/// Records what was drawn on `<body>`, for the browser test.
const SCRIPT: &str = "(function(){var b=document.body;\
b.dataset.errors=String(window.dxErrors||0);\
b.dataset.columnBars=String(document.querySelectorAll('svg.columns rect.column-bar').length);\
b.dataset.partitionBars=String(document.querySelectorAll('svg.partitions rect.partition-bar').length);\
b.dataset.tinyBars=String(document.querySelectorAll('svg.partitions rect.tiny-bar').length);\
b.dataset.reasons=String(document.querySelectorAll('li.reason').length);\
b.dataset.rendered='ok';})();";

const INDEXED: &str = "#2b6cb0";
const TINY: &str = "#dd6b20";
const PARTITION: &str = "#718096";
/// The partitions the page draws (the JSON lists all).
const PARTITIONS_DRAWN: usize = 20;
const NOT_INDEXED: &str = "#c4c9d0";

/// The page: the columns' chart, the workload, and `text` (the text page).
pub fn to_html(d: &Doctor, text_page: &str) -> String {
    let mut out = String::new();
    let _ = write_page(d, text_page, &mut out);
    out
}

fn write_page(d: &Doctor, text_page: &str, out: &mut String) -> std::fmt::Result {
    open_page(&format!("Doctor: {}", d.table), out)?;
    write!(
        out,
        "<h1>Why the table skips as it does</h1><p class=\"meta\">{} (version {}): {} live files.</p>",
        esc(&d.table),
        d.version,
        d.layout.files
    )?;
    if let Some(fix) = &d.fix {
        write!(
            out,
            "<h2>Fix</h2><p class=\"meta\">{} get no statistics; {} live file(s) record none for them. {}</p><pre class=\"statement\">{}</pre>",
            esc(&fix.columns.join(", ")),
            fix.files_without_their_stats,
            esc(&fix.caveat),
            esc(&fix.statement)
        )?;
    }
    write!(
        out,
        "<h2>Files recording each column's min/max</h2><p class=\"meta\">Blue: a column writers collect statistics for under the settings; grey: one they leave out.</p>"
    )?;
    columns_chart(d, out);
    if !d.layout.per_partition.is_empty() {
        write!(
            out,
            "<h2>Files per partition</h2><p class=\"meta\">{:.0}% of the files are tiny (under 16 MiB); the {} partition(s) with the most tiny files, tiny files in orange.</p>",
            d.layout.tiny_share * 100.0,
            d.layout.per_partition.len().min(PARTITIONS_DRAWN)
        )?;
        partitions_chart(d, out);
    }
    if !d.workload.is_empty() {
        write!(out, "<h2>Workload</h2><ul>")?;
        for w in &d.workload {
            let kept = match (&w.error, w.final_files, w.total_files) {
                (Some(e), _, _) => format!("refused: {e}"),
                (None, Some(kept), Some(total)) => format!("keeps {kept} of {total} files"),
                (None, _, _) => String::new(),
            };
            write!(
                out,
                "<li><code>{}</code>: {}",
                esc(&w.predicate),
                esc(&kept)
            )?;
            if !w.reasons.is_empty() {
                write!(out, "<ul>")?;
                for r in &w.reasons {
                    write!(
                        out,
                        "<li class=\"reason\"><b>{}</b> {}</li>",
                        esc(r.code),
                        esc(&r.message)
                    )?;
                }
                write!(out, "</ul>")?;
            }
            write!(out, "</li>")?;
        }
        write!(out, "</ul>")?;
    }
    close_page(text_page, SCRIPT, out)
}

/// A bar per column: the files recording its min/max, out of the live files.
fn columns_chart(d: &Doctor, out: &mut String) {
    let (label, bar, row) = (260.0, 400.0, 18.0);
    let files = d.layout.files.max(1) as f64;
    let height = row * d.columns.len() as f64 + 10.0;
    let mut svg = Svg::in_page(
        "columns",
        "files recording each column's min/max",
        label + bar + 120.0,
        height,
    );
    for (i, c) in d.columns.iter().enumerate() {
        let y = i as f64 * row + 4.0;
        let w = (c.files_with_min_max as f64 / files * bar).max(1.0);
        svg.push(text(0.0, y + 12.0, &c.column));
        svg.push(
            rect(label, y, w, row - 4.0)
                .class("column-bar")
                .fill(if c.indexed { INDEXED } else { NOT_INDEXED })
                .title(&format!(
                    "{}: {} of {} files",
                    c.column, c.files_with_min_max, d.layout.files
                )),
        );
        svg.push(text(
            label + w + 6.0,
            y + 12.0,
            &format!("{} of {}", c.files_with_min_max, d.layout.files),
        ));
    }
    out.push_str(&svg.finish());
}

/// A bar per partition (the most tiny files first): its files, the tiny ones drawn over them.
fn partitions_chart(d: &Doctor, out: &mut String) {
    let (label, bar, row) = (260.0, 400.0, 18.0);
    let shown: Vec<_> = d
        .layout
        .per_partition
        .iter()
        .take(PARTITIONS_DRAWN)
        .collect();
    let most = shown.iter().map(|p| p.files).max().unwrap_or(1).max(1) as f64;
    let height = row * shown.len() as f64 + 10.0;
    let mut svg = Svg::in_page(
        "partitions",
        "files per partition, tiny ones in orange",
        label + bar + 160.0,
        height,
    );
    for (i, p) in shown.iter().enumerate() {
        let y = i as f64 * row + 4.0;
        let w = (p.files as f64 / most * bar).max(1.0);
        svg.push(text(0.0, y + 12.0, &p.partition));
        svg.push(
            rect(label, y, w, row - 4.0)
                .class("partition-bar")
                .fill(PARTITION)
                .title(&format!("{}: {} files", p.partition, p.files)),
        );
        if p.tiny_files > 0 {
            svg.push(
                rect(
                    label,
                    y,
                    (p.tiny_files as f64 / most * bar).max(1.0),
                    row - 4.0,
                )
                .class("tiny-bar")
                .fill(TINY)
                .title(&format!("{}: {} tiny", p.partition, p.tiny_files)),
            );
        }
        svg.push(text(
            label + w + 6.0,
            y + 12.0,
            &format!("{} files, {} tiny", p.files, p.tiny_files),
        ));
    }
    out.push_str(&svg.finish());
}
