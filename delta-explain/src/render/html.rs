//! The HTML page (`--format html`): one self-contained file, no network. Its figures are SVG
//! drawn here from the report (no script draws them):
//! - the funnel: files, bytes and rows at each stage, each bar against the snapshot's;
//! - per column of `ranges`: each file's `[min, max]` as a bar against the predicate's
//!   interval (a band), kept and pruned in two colours, sorted by low bound;
//! - per column, the clustering figures and the overlap-depth histogram;
//! - the text page itself (analysis, notes, hazards, diagnoses), so the two cannot disagree.
//!
//! A small inline script counts what was drawn and records any script error in
//! `data-` attributes of `<body>`: what the headless-browser test reads.

use std::fmt::Write;

use explain_core::report::Report;
use explain_core::report::funnel::{Stage, log_stages};
use explain_core::report::ranges::ColumnRanges;
use pictures::{Svg, rect, text};

use super::text::{human_bytes, thousands};

/// Bars drawn per column at most; beyond, files are drawn evenly spaced in sorted order.
pub const MAX_BARS: usize = 2_000;

const KEPT: &str = "#2b6cb0";
const PRUNED: &str = "#c4c9d0";
const BAND: &str = "#f6e05e";

pub(super) fn page(report: &Report) -> String {
    let mut out = String::new();
    let _ = write_page(report, &mut out);
    out
}

fn write_page(report: &Report, out: &mut String) -> std::fmt::Result {
    let title = format!(
        "delta-explain: {}",
        report.predicate.as_deref().unwrap_or("(no predicate)")
    );
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style><script>{ERRORS}</script></head>\n<body>\n",
        esc(&title)
    )?;
    writeln!(out, "<h1>{}</h1>", esc(&title))?;
    writeln!(
        out,
        "<p class=\"meta\">{} at version {} &middot; {} files &middot; {} ms</p>",
        esc(&report.table),
        report.version,
        thousands(report.total_files as u64),
        report.elapsed_ms
    )?;
    if let Some(normalized) = &report.normalized_predicate {
        writeln!(
            out,
            "<p class=\"meta\">normalized: <code>{}</code></p>",
            esc(normalized)
        )?;
    }
    let stages = match &report.verify {
        Some(funnel) => funnel.stages.clone(),
        None => log_stages(report),
    };
    writeln!(out, "<h2>Funnel</h2>")?;
    if stages.iter().any(|s| s.row_groups.is_some()) {
        writeln!(
            out,
            "<p class=\"meta\" id=\"bytes-note\">Bytes: the files' sizes for the log's stages; from the footers on, the compressed bytes of the row groups an engine reads (a file's footer and metadata aside).</p>"
        )?;
    }
    funnel_chart(&stages, out)?;
    if let Some(funnel) = &report.verify {
        writeln!(out, "<p>Row groups: {}.</p>", esc(funnel.row_group_rules))?;
        writeln!(out, "<ul>")?;
        for (what, waste) in [
            ("kept files hold no match", &funnel.false_positive_files),
            (
                "row groups read hold no match",
                &funnel.false_positive_row_groups,
            ),
        ] {
            writeln!(
                out,
                "<li><b>{}</b> {what} ({}, {}% of the bytes){}</li>",
                thousands(waste.count as u64),
                human_bytes(waste.bytes),
                waste.bytes_pct,
                examples(&waste.examples)
            )?;
        }
        writeln!(
            out,
            "<li class=\"{}\"><b>{}</b> dropped files hold a match</li>",
            if funnel.dropped_matching_files.is_empty() {
                "ok"
            } else {
                "bad"
            },
            funnel.dropped_matching_files.len()
        )?;
        writeln!(
            out,
            "<li><b>{}</b> row groups the footer rules drop hold a match</li></ul>",
            funnel.dropped_matching_row_groups.len()
        )?;
        if !funnel.remedies.is_empty() {
            writeln!(out, "<p>What would remove them:</p><ul>")?;
            for remedy in &funnel.remedies {
                writeln!(out, "<li>{}</li>", esc(remedy))?;
            }
            writeln!(out, "</ul>")?;
        }
    }
    for column in report.ranges.iter().flatten() {
        ranges_chart(column, out)?;
    }
    writeln!(
        out,
        "<h2>Report</h2>\n<pre>{}</pre>",
        esc(&super::report_text(report))
    )?;
    writeln!(out, "<script>{SCRIPT}</script>\n</body></html>")
}

fn examples(paths: &[String]) -> String {
    if paths.is_empty() {
        return String::new();
    }
    let shown: Vec<String> = paths
        .iter()
        .map(|p| format!("<code>{}</code>", esc(p)))
        .collect();
    format!(": {}", shown.join(", "))
}

/// A funnel metric: its name, its value at a stage, and how a value is shown.
type Metric = (&'static str, fn(&Stage) -> u64, fn(u64) -> String);

/// Three bar charts side by side (files, bytes, rows), one row per stage.
fn funnel_chart(stages: &[Stage], out: &mut String) -> std::fmt::Result {
    const LABEL: f64 = 150.0;
    const BAR: f64 = 170.0;
    // Room right of a full bar for its label.
    const GAP: f64 = 90.0;
    const ROW: f64 = 30.0;
    let height = ROW * stages.len() as f64 + 30.0;
    let width = LABEL + 3.0 * (BAR + GAP);
    let mut svg = Svg::in_page("funnel", "funnel", width, height);
    let first = stages.first();
    let metrics: [Metric; 3] = [
        ("files", |s| s.files as u64, thousands),
        ("bytes", |s| s.bytes, human_bytes),
        ("rows", |s| s.rows, thousands),
    ];
    for (m, (name, value, shown)) in metrics.iter().enumerate() {
        let x0 = LABEL + m as f64 * (BAR + GAP);
        svg.push(text(x0, 16.0, name).class("head"));
        let full = first.map_or(0, value).max(1) as f64;
        for (i, stage) in stages.iter().enumerate() {
            let y = 24.0 + ROW * i as f64;
            let v = value(stage);
            // A stage may exceed the snapshot's scale (row-group bytes are not file bytes).
            let w = (v as f64 / full * BAR).clamp(0.0, BAR);
            svg.push(
                rect(x0, y, w, ROW - 8.0)
                    .class("funnel-bar")
                    .attr("data-stage", stage.name)
                    .fill(KEPT),
            );
            // From the footers' stage on, the bytes are the row groups' (compressed column
            // chunks), not the files'.
            let unit = if *name == "bytes" && stage.row_groups.is_some() {
                " in row groups"
            } else {
                ""
            };
            svg.push(
                text(x0 + w + 4.0, y + ROW / 2.0, &format!("{}{unit}", shown(v)))
                    .class("funnel-value"),
            );
        }
    }
    for (i, stage) in stages.iter().enumerate() {
        let y = 24.0 + ROW * i as f64 + ROW / 2.0;
        let groups = stage
            .row_groups
            .map(|g| format!(" ({} rg)", thousands(g as u64)))
            .unwrap_or_default();
        svg.push(text(
            4.0,
            y,
            &format!("{}{groups}", stage.name.replace('_', " ")),
        ));
    }
    out.push_str(&svg.finish());
    Ok(())
}

/// One column: the files' ranges against the predicate's band, then the depth histogram.
fn ranges_chart(column: &ColumnRanges, out: &mut String) -> std::fmt::Result {
    const LEFT: f64 = 10.0;
    const WIDTH: f64 = 760.0;
    writeln!(
        out,
        "<h2>Ranges of <code>{}</code></h2>",
        esc(&column.column)
    )?;
    let c = &column.clustering;
    writeln!(
        out,
        "<p class=\"axis\" data-axis=\"{}\">{} files with bounds ({} axis), {} without. Clustering: average overlap depth \
         <b>{}</b>, average overlaps {}.</p>",
        column.axis,
        thousands(column.files.len() as u64),
        column.axis,
        thousands(column.files_without_bounds as u64),
        c.average_depth,
        c.average_overlaps
    )?;
    let drawn = column.sampled(MAX_BARS);
    if drawn.len() < column.files.len() {
        writeln!(
            out,
            "<p class=\"meta\">{} of {} files drawn, evenly spaced in order.</p>",
            thousands(drawn.len() as u64),
            thousands(column.files.len() as u64)
        )?;
    }
    let band = column.interval.as_ref();
    let (lo, hi) = column.extent();
    let x = |v: f64| LEFT + (v - lo) / (hi - lo) * WIDTH;
    // Rows of 12 px for a few files, down to 2 px for many: the figure stays on a screen or two.
    let bar = (1_200.0 / drawn.len().max(1) as f64).clamp(2.0, 12.0);
    let height = (drawn.len() as f64 * bar).max(bar) + 40.0;
    let mut svg = Svg::in_page(
        "ranges",
        &format!("ranges of {}", column.column),
        WIDTH + 2.0 * LEFT,
        height,
    );
    if let Some(interval) = band {
        let from = interval.low.as_ref().map_or(LEFT, |(_, at)| x(*at));
        let to = interval
            .high
            .as_ref()
            .map_or(LEFT + WIDTH, |(_, at)| x(*at));
        svg.push(
            rect(from, 0.0, (to - from).max(3.0), height - 30.0)
                .class("interval")
                .fill(BAND)
                .attr("stroke", "#b7791f")
                .attr("opacity", "0.6"),
        );
    }
    for (i, file) in drawn.iter().enumerate() {
        let (a, b) = (x(file.low), x(file.high));
        svg.push(
            rect(a, i as f64 * bar, (b - a).max(3.0), (bar * 0.8).max(1.5))
                .class("range-bar")
                .attr("data-kept", file.kept)
                .fill(if file.kept { KEPT } else { PRUNED })
                .title(&format!("{}: {} .. {}", file.path, file.min, file.max)),
        );
    }
    let axis_y = height - 18.0;
    let label = |v: f64| {
        column
            .files
            .iter()
            .find(|f| f.low == v)
            .map(|f| f.min.clone())
            .or_else(|| {
                column
                    .files
                    .iter()
                    .find(|f| f.high == v)
                    .map(|f| f.max.clone())
            })
            .unwrap_or_else(|| format!("{v}"))
    };
    svg.push(text(LEFT, axis_y, &label(lo)));
    svg.push(text(LEFT + WIDTH, axis_y, &label(hi)).attr("text-anchor", "end"));
    svg.push(
        text(LEFT, height - 2.0, "")
            .class("legend")
            .span(KEPT, "\u{25a0} kept ")
            .span(PRUNED, "\u{25a0} pruned ")
            .span("#b7791f", "\u{25a0} predicate"),
    );
    out.push_str(&svg.finish());
    histogram(&c.depth_histogram, &c.depth_labels(column.files.len()), out)
}

/// Files per overlap depth: a bar per bucket, its depths under it and its files above it.
fn histogram(buckets: &[(usize, usize)], labels: &[String], out: &mut String) -> std::fmt::Result {
    const BAR: f64 = 40.0;
    const TOP: f64 = 16.0;
    const HEIGHT: f64 = 120.0;
    let most = buckets.iter().map(|b| b.1).max().unwrap_or(0).max(1) as f64;
    let width = (BAR * buckets.len().max(1) as f64 + 20.0).max(260.0);
    let mut svg = Svg::in_page(
        "histogram",
        "overlap depth histogram",
        width,
        TOP + HEIGHT + 34.0,
    );
    for (i, ((_, files), depth)) in buckets.iter().zip(labels).enumerate() {
        let h = *files as f64 / most * HEIGHT;
        let x = 10.0 + BAR * i as f64;
        let middle = x + (BAR - 4.0) / 2.0;
        svg.push(
            rect(x, TOP + HEIGHT - h, BAR - 4.0, h)
                .class("depth-bar")
                .fill(KEPT)
                .title(&format!("depth {depth}: {files} file(s)")),
        );
        svg.push(
            text(middle, TOP + HEIGHT - h - 3.0, &files.to_string())
                .class("depth-count")
                .attr("text-anchor", "middle"),
        );
        svg.push(
            text(middle, TOP + HEIGHT + 14.0, depth)
                .class("depth-label")
                .attr("text-anchor", "middle"),
        );
    }
    svg.push(
        text(
            10.0,
            TOP + HEIGHT + 30.0,
            "files (bar height) by overlap depth (under each bar)",
        )
        .class("legend"),
    );
    out.push_str(&svg.finish());
    Ok(())
}

/// Text for HTML content and attribute values: the one escaping function of every page.
pub(crate) use pictures::esc;

pub(crate) const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:24px;color:#1a202c;max-width:1000px}\
code,pre{font-family:ui-monospace,monospace}pre{background:#f7fafc;padding:12px;overflow-x:auto;font-size:12px}\
.meta{color:#4a5568}svg{display:block;margin:8px 0;font-size:12px}svg text{fill:#1a202c}\
svg text.head{font-weight:bold}.ok{color:#276749}.bad{color:#c53030}";

/// Counts script errors from the start of the page (in `<head>`).
pub(crate) const ERRORS: &str = "window.dxErrors=0;window.addEventListener('error',function(){window.dxErrors++;\
if(document.body){document.body.dataset.errors=String(window.dxErrors);}});";

/// The opening of a page of one command's result (the diff, the doctor, the advice): the
/// document's head, titled `title`, with the shared style and the script-error counter.
pub(crate) fn open_page(title: &str, out: &mut String) -> std::fmt::Result {
    write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style><script>{ERRORS}</script></head><body>",
        esc(title)
    )
}

/// The close of such a page: the text page itself (so the figures and the text cannot
/// disagree), then `script`, which records on `<body>` what was drawn for the browser test.
pub(crate) fn close_page(text_page: &str, script: &str, out: &mut String) -> std::fmt::Result {
    write!(
        out,
        "<h2>The page as text</h2><pre>{}</pre><script>{script}</script></body></html>",
        esc(text_page)
    )
}

/// Records what was drawn and the script errors so far on `<body>`, for the browser test.
const SCRIPT: &str = "(function(){var b=document.body;\
b.dataset.errors=String(window.dxErrors||0);\
b.dataset.funnelBars=String(document.querySelectorAll('svg.funnel rect.funnel-bar').length);\
b.dataset.rangeBars=String(document.querySelectorAll('svg.ranges rect.range-bar').length);\
b.dataset.depthBars=String(document.querySelectorAll('svg.histogram rect.depth-bar').length);\
b.dataset.depthLabels=Array.prototype.map.call(document.querySelectorAll('svg.histogram text.depth-label'),function(t){return t.textContent;}).join(',');\
b.dataset.axis=Array.prototype.map.call(document.querySelectorAll('h2 + p.axis'),function(p){return p.dataset.axis;}).join(',');\
b.dataset.rowGroupBytes=String(Array.prototype.filter.call(document.querySelectorAll('svg.funnel text.funnel-value'),function(t){return t.textContent.indexOf(' in row groups')>0;}).length);\
b.dataset.bytesNote=String(document.querySelectorAll('#bytes-note').length);\
b.dataset.rendered='ok';})();";

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn text_is_escaped_for_content_and_attributes() {
        assert_eq!(
            esc(r#"a < b & "c" > 'd'"#),
            "a &lt; b &amp; &quot;c&quot; &gt; &#39;d&#39;"
        );
    }
}
