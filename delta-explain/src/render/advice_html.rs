//! The advice as one self-contained HTML page (no network; `--format html`): the ranking as a
//! bar chart of the bytes each layout would read, a chart per layout of the files each
//! predicate reads under it beside the current layout, and the text page itself, so the two
//! cannot disagree.

use std::fmt::Write as _;

use explain_advise::layout::Layout;
use explain_advise::{Advice, LayoutResult};
use pictures::{Svg, rect, text};

use super::html::{close_page, esc, open_page};
use super::text::human_bytes;

/// Layouts drawn with a chart of their own (the best first; the current layout always).
pub const CHARTS: usize = 12;

/// Records what was drawn on `<body>`, for the browser test.
const SCRIPT: &str = "(function(){var b=document.body;\
b.dataset.errors=String(window.dxErrors||0);\
b.dataset.layoutBars=String(document.querySelectorAll('svg.ranking rect.layout-bar').length);\
b.dataset.layoutCharts=String(document.querySelectorAll('svg.layout').length);\
b.dataset.predicateBars=String(document.querySelectorAll('svg.layout rect.predicate-bar').length);\
b.dataset.predicateCounts=String(document.querySelectorAll('svg.layout text.predicate-count').length);\
b.dataset.axisTitles=String(document.querySelectorAll('svg.layout text.axis-title').length);\
b.dataset.rendered='ok';})();";

const NOW: &str = "#c4c9d0";
const THEN: &str = "#2b6cb0";

/// The page, the best `top` layouts drawn (and the current layout, wherever it ranks).
pub fn to_html(advice: &Advice, text: &str, top: usize) -> String {
    let mut out = String::new();
    let _ = write_page(advice, text, top.clamp(1, CHARTS), &mut out);
    out
}

fn write_page(advice: &Advice, text: &str, top: usize, out: &mut String) -> std::fmt::Result {
    open_page(&format!("Layout advice: {}", advice.table), out)?;
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
    match &advice.statement {
        Some(statement) => write!(
            out,
            "<p class=\"meta\">It saves {:.1}% of the bytes the workload reads. To make it:</p><pre class=\"statement\">{}</pre>",
            advice.saving_pct,
            esc(statement)
        )?,
        None => write!(
            out,
            "<p class=\"meta\">No layout saves {}% of the bytes the workload reads; keep the current one.</p>",
            advice.min_saving_pct
        )?,
    }
    let shown = advice.shown_layouts(top);
    write!(
        out,
        "<h2>Bytes the workload reads, per layout</h2><p class=\"meta\">The best {} of {} layouts and the current one; the JSON has every one.</p>",
        shown.len().min(top),
        advice.layouts.len()
    )?;
    ranking_chart(&shown, out)?;
    let current = advice.layouts.iter().find(|l| l.layout == Layout::Current);
    write!(
        out,
        "<h2>Files read per predicate</h2><p class=\"meta\">Each chart: per predicate, the files read under the layout (blue) against the current layout (grey), out of the layout's files.</p>"
    )?;
    let drawn = shown
        .iter()
        .copied()
        .filter(|l| l.layout != Layout::Current)
        .chain(current);
    for layout in drawn {
        layout_chart(advice, layout, current, out)?;
    }
    close_page(text, SCRIPT, out)
}

/// A bar per layout, its length the bytes read, best first.
fn ranking_chart(layouts: &[&LayoutResult], out: &mut String) -> std::fmt::Result {
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
        // A name longer than its column is cut with an ellipsis, the whole name its title.
        svg.push(
            text(
                0.0,
                y + 12.0,
                &fit(&format!("{}. {}", i + 1, l.name), LABEL_CHARS),
            )
            .title(&l.name),
        );
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
    let axis = 34.0;
    let height = row * 2.0 * n as f64 + 10.0 + axis;
    write!(out, "<h3>{}</h3>", esc(&layout.name))?;
    let mut svg = Svg::in_page(
        "layout",
        &format!("files read per predicate under {}", layout.name),
        label + bar + 120.0,
        height,
    );
    for (i, predicate) in advice.predicates.iter().enumerate() {
        let y = i as f64 * row * 2.0 + 4.0;
        svg.push(text(0.0, y + 11.0, &fit(predicate, 60)).title(predicate));
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
            svg.push(
                text(
                    label + w.max(1.0) + 4.0,
                    y + dy + row - 5.0,
                    &format!("{} of {}", cost.files_read, cost.total_files),
                )
                .class("predicate-count"),
            );
        }
    }
    // The axis: the share of the layout's files read.
    let base = row * 2.0 * n as f64 + 8.0;
    svg.push(rect(label, base, bar, 1.0).fill("#555"));
    for (share, at) in [("0%", 0.0), ("50%", 0.5), ("100%", 1.0)] {
        svg.push(rect(label + bar * at, base, 1.0, 5.0).fill("#555"));
        svg.push(text(label + bar * at - 8.0, base + 17.0, share));
    }
    svg.push(
        text(
            label,
            base + 30.0,
            "files read, share of the layout's files (grey: now, blue: this layout)",
        )
        .class("axis-title"),
    );
    out.push_str(&svg.finish());
    Ok(())
}

/// The characters of a ranking label that fit beside its bar.
const LABEL_CHARS: usize = 62;

/// `text` cut to `chars` characters, the cut marked with an ellipsis.
fn fit(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
