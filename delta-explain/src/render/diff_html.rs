//! The diff as one self-contained HTML page (no network; `--format html`): per phase, two bars
//! of the files it keeps, the version before and the version after, on one scale; the same
//! for the bytes; and the text page itself, so the two cannot disagree.

use std::fmt::Write as _;

use explain_core::diff::{Counts, Diff};
use pictures::{Svg, rect, text};

use super::html::{close_page, esc, open_page};

/// Records what was drawn on `<body>`, for the browser test.
const SCRIPT: &str = "(function(){var b=document.body;\
b.dataset.errors=String(window.dxErrors||0);\
b.dataset.fromBars=String(document.querySelectorAll('svg.diff rect.from-bar').length);\
b.dataset.toBars=String(document.querySelectorAll('svg.diff rect.to-bar').length);\
b.dataset.charts=String(document.querySelectorAll('svg.diff').length);\
b.dataset.rendered='ok';})();";

const FROM: &str = "#a0aec0";
const TO: &str = "#2b6cb0";

/// The page: a chart of files and one of bytes kept per phase, and `text` (the text page).
pub fn to_html(d: &Diff, text_page: &str) -> String {
    let mut out = String::new();
    let _ = write_page(d, text_page, &mut out);
    out
}

fn write_page(d: &Diff, text_page: &str, out: &mut String) -> std::fmt::Result {
    open_page(&format!("Diff: {}", d.from.table), out)?;
    write!(
        out,
        "<h1>Skipping before and after</h1><p class=\"meta\"><code>{}</code>: {} version {} (grey) against {} version {} (blue). Files pruned {:+.1} points, bytes pruned {:+.1} points{}.</p>",
        esc(d.predicate.as_deref().unwrap_or("(no predicate)")),
        esc(&d.from.table),
        d.from.version,
        esc(&d.to.table),
        d.to.version,
        d.pruned_files_pct_change,
        d.pruned_bytes_pct_change,
        if d.worse { ": worse" } else { "" }
    )?;
    write!(out, "<h2>Files kept, per phase</h2>")?;
    chart(d, "files", |c| c.files as f64, out);
    write!(out, "<h2>Bytes kept, per phase</h2>")?;
    chart(d, "bytes", |c| c.bytes as f64, out);
    close_page(text_page, SCRIPT, out)
}

/// Two bars per phase (and for the snapshot): `value` of the side before and after.
fn chart(d: &Diff, what: &str, value: fn(&Counts) -> f64, out: &mut String) {
    let (label, bar, row) = (200.0, 420.0, 16.0);
    let rows: Vec<(&str, Option<&Counts>, Option<&Counts>)> =
        std::iter::once(("snapshot", Some(&d.from.snapshot), Some(&d.to.snapshot)))
            .chain(
                d.phases
                    .iter()
                    .map(|p| (p.phase, p.from.as_ref(), p.to.as_ref())),
            )
            .collect();
    let most = rows
        .iter()
        .flat_map(|(_, a, b)| [a, b])
        .filter_map(|c| c.map(value))
        .fold(1.0_f64, f64::max);
    let height = rows.len() as f64 * (2.0 * row + 8.0) + 10.0;
    let mut svg = Svg::in_page(
        "diff",
        &format!("{what} kept per phase, before and after"),
        label + bar + 140.0,
        height,
    );
    for (i, (phase, from, to)) in rows.iter().enumerate() {
        let y = i as f64 * (2.0 * row + 8.0) + 4.0;
        svg.push(text(0.0, y + row, phase));
        for (k, (side, class, fill)) in [(from, "from-bar", FROM), (to, "to-bar", TO)]
            .into_iter()
            .enumerate()
        {
            let Some(counts) = side else { continue };
            let v = value(counts);
            let top = y + k as f64 * row;
            let w = (v / most * bar).max(1.0);
            svg.push(
                rect(label, top, w, row - 3.0)
                    .class(class)
                    .fill(fill)
                    .title(&format!("{phase}: {v} {what}")),
            );
            svg.push(text(label + w + 6.0, top + row - 5.0, &format!("{v}")));
        }
    }
    out.push_str(&svg.finish());
}
