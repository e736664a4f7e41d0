//! The text page of `delta-explain check`.

use std::fmt::Write as _;

use explain_core::check::{CheckReport, Verdict};

/// One line per check and mode, the offending files under a failure, and the outcome.
pub fn to_text(report: &CheckReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Checked `{}` on {} (version {}, {} files), reading no row:\n",
        report.predicate, report.table, report.version, report.files
    );
    for c in &report.checks {
        let verdict = match c.verdict {
            Verdict::Pass => "pass",
            Verdict::Announced => "announced",
            Verdict::Fail => "FAIL",
            Verdict::NotApplicable => "n/a",
        };
        let _ = writeln!(
            out,
            "  {:<9} {:<18} {:<8} {}",
            verdict, c.check, c.mode, c.message
        );
        for path in &c.offending {
            let _ = writeln!(out, "            {path}");
        }
        if c.offending_count > c.offending.len() {
            let _ = writeln!(
                out,
                "            ({} more)",
                c.offending_count - c.offending.len()
            );
        }
    }
    let _ = writeln!(
        out,
        "\n{}",
        if report.passed {
            "Every applicable check holds."
        } else {
            "A check failed: the explainer's kept sets contradict each other (a bug; please report it with this page)."
        }
    );
    out
}
