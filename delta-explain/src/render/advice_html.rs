//! The advice as one self-contained HTML page (no network; `--format html`): the ranking as a
//! bar chart of the bytes each layout would read, a chart per layout of the files each
//! predicate reads under it beside the current layout, and the text page itself, so the two
//! cannot disagree.

use std::fmt::Write as _;

use explain_advise::layout::Layout;
use explain_advise::{Advice, LayoutResult};
use pictures::{Svg, rect, text};

use super::html::{ERRORS, STYLE, esc};
use super::text::human_bytes;

/// Layouts drawn with a chart of their own (the best first; the current layout always).
pub const CHARTS: usize = 12;

/// Records what was drawn on `<body>`, for the browser test.
const SCRIPT: &str = "(function(){var b=document.body;\
b.dataset.errors=String(window.dxErrors||0);\
b.dataset.layoutBars=String(document.querySelectorAll('svg.ranking rect.layout-bar').length);\
b.dataset.layoutCharts=String(document.querySelectorAll('svg.layout').length);\
b.dataset.predicateBars=String(document.querySelectorAll('svg.layout rect.predicate-bar').length);\
b.dataset.rendered='ok';})();";

const NOW: &str = "#c4c9d0";
const THEN: &str = "#2b6cb0";

pub fn to_html(advice: &Advice, text: &str) -> String {
    let mut out = String::new();
    let _ = write_page(advice, text, &mut out);
    out
}

fn write_page(advice: &Advice, text: &str, out: &mut String) -> std::fmt::Result {
    write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Layout advice: {}</title><style>{STYLE}</style><script>{ERRORS}</script></head><body>",
        esc(&advice.table)
    )?;
    write!(
        out,
        "<h1>Layout advice</h1><p class=\"meta\">{} (version {}): {} predicate(s), {} of {} live rows read.</p>",
        esc(&advice.table),
        advice.version,
        advice.predicates.len(),
        advice.rows_read,
        advice.live_rows
    )?;
    write!(out, "<h2>Recommended: {}</h2>", esc(&advice.recommended))?;
    write!(out, "<h2>Bytes the workload reads, per layout</h2>")?;
    ranking_chart(&advice.layouts, out)?;
    let current = advice.layouts.iter().find(|l| l.layout == Layout::Current);
    write!(
        out,
        "<h2>Files read per predicate</h2><p class=\"meta\">Each chart: per predicate, the files read under the layout (blue) against the current layout (grey), out of the layout's files.</p>"
    )?;
    let drawn = advice
        .layouts
        .iter()
        .filter(|l| l.layout != Layout::Current)
        .take(CHARTS)
        .chain(current);
    for layout in drawn {
        layout_chart(advice, layout, current, out)?;
    }
    write!(out, "<h2>The page as text</h2><pre>{}</pre>", esc(text))?;
    write!(out, "<script>{SCRIPT}</script></body></html>")
}

/// A bar per layout, its length the bytes read, best first.
fn ranking_chart(layouts: &[LayoutResult], out: &mut String) -> std::fmt::Result {
    let most = layouts
        .iter()
        .map(|l| l.bytes_read)
        .max()
        .unwrap_or(0)
        .max(1);
    let (label, bar, row) = (440.0, 400.0, 18.0);
    let height = row * layouts.len() as f64 + 10.0;
    let mut svg = Svg::in_page(
        "ranking",
        "bytes read per layout",
        label + bar + 120.0,
        height,
    );
    for (i, l) in layouts.iter().enumerate() {
        let y = i as f64 * row + 4.0;
        let w = (l.bytes_read as f64 / most as f64 * bar).max(1.0);
        let color = if l.layout == Layout::Current {
            NOW
        } else {
            THEN
        };
        svg.push(text(0.0, y + 12.0, &format!("{}. {}", i + 1, l.name)));
        svg.push(
            rect(label, y, w, row - 4.0)
                .class("layout-bar")
                .fill(color)
                .title(&format!(
                    "{}: {} in {} files",
                    l.name,
                    human_bytes(l.bytes_read),
                    l.files_read
                )),
        );
        svg.push(text(
            label + w + 6.0,
            y + 12.0,
            &format!(
                "{} ({:+.1}%)",
                human_bytes(l.bytes_read),
                l.bytes_read_vs_current_pct
            ),
        ));
    }
    out.push_str(&svg.finish());
    Ok(())
}

/// Per predicate, the files `layout` reads beside those the current layout reads.
fn layout_chart(
    advice: &Advice,
    layout: &LayoutResult,
    current: Option<&LayoutResult>,
    out: &mut String,
) -> std::fmt::Result {
    let (label, bar, row) = (400.0, 360.0, 14.0);
    let n = advice.predicates.len();
    let height = row * 2.0 * n as f64 + 30.0;
    write!(out, "<h3>{}</h3>", esc(&layout.name))?;
    let mut svg = Svg::in_page(
        "layout",
        &format!("files read per predicate under {}", layout.name),
        label + bar + 120.0,
        height,
    );
    for (i, predicate) in advice.predicates.iter().enumerate() {
        let y = i as f64 * row * 2.0 + 4.0;
        let shown: String = predicate.chars().take(48).collect();
        svg.push(text(0.0, y + 11.0, &shown).title(predicate));
        let bars = [
            (current.and_then(|c| c.per_predicate[i].as_ref()), NOW, 0.0),
            (layout.per_predicate[i].as_ref(), THEN, row - 2.0),
        ];
        for (cost, color, dy) in bars {
            let Some(cost) = cost else { continue };
            let w = cost.files_read as f64 / cost.total_files.max(1) as f64 * bar;
            svg.push(
                rect(label, y + dy, w.max(1.0), row - 3.0)
                    .class("predicate-bar")
                    .fill(color)
                    .title(&format!(
                        "{} of {} files, {}",
                        cost.files_read,
                        cost.total_files,
                        human_bytes(cost.bytes_read)
                    )),
            );
        }
    }
    out.push_str(&svg.finish());
    Ok(())
}
