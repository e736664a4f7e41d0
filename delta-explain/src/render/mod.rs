//! The pages people read, rendered from the documents the libraries build: the report's text
//! and HTML pages and its one-line summary, the advice's text and HTML pages. The JSON documents
//! are the libraries' own (`Report::to_json`); every page here is drawn from the same values, so
//! a page and the JSON cannot disagree.

mod abbreviate;
#[cfg(feature = "verify")]
pub mod advice_html;
#[cfg(feature = "verify")]
pub mod advice_text;
pub mod check_text;
pub mod diff_html;
pub mod diff_text;
pub mod doctor_html;
pub mod doctor_text;
pub mod html;
pub mod text;

use explain_core::report::Report;

/// One line for a list of predicates: the counts of each phase, the confidence, the notes.
pub fn summary_line(report: &Report) -> String {
    let mut counts = vec![report.total_files.to_string()];
    counts.extend(report.phases.iter().map(|p| p.output_files.to_string()));
    if report.phases.is_empty() {
        counts.push(report.final_files.to_string());
    }
    let confidence = report
        .analysis
        .as_ref()
        .map_or("exact", |a| a.confidence.label());
    let notes: Vec<&str> = report
        .analysis
        .iter()
        .flat_map(|a| a.notes.iter().map(|n| n.code))
        .collect();
    format!(
        "{} files ({} pruned) [{confidence}]{}  {}",
        counts.join(" -> "),
        text::format_pct(report.total_pruning_pct),
        if notes.is_empty() {
            String::new()
        } else {
            format!(" {}", notes.join(","))
        },
        abbreviate::abbreviate(report.predicate.as_deref().unwrap_or("-"))
    )
}

/// The page for a browser: one self-contained HTML file.
pub fn report_html(report: &Report) -> String {
    html::page(report)
}

/// The human page.
pub fn report_text(report: &Report) -> String {
    let mut out = String::new();
    let _ = text::write(report, &mut out);
    // Long lists shortened line by line; the JSON keeps them whole.
    out.split_inclusive('\n')
        .map(abbreviate::abbreviate)
        .collect()
}
