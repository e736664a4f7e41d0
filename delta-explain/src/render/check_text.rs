//! The text page of `delta-explain check`.

use std::fmt::Write as _;

use explain_core::check::{CheckReport, Subject, Verdict};

/// One line per check and mode, the offending files under a failure, and the outcome.
pub fn to_text(report: &CheckReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Checked {}'s kept sets for `{}` on {} (version {}, {} files), reading no row:\n",
        subject(report.subject),
        report.predicate,
        report.table,
        report.version,
        report.files
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
            match report.subject {
                Subject::Explainer => {
                    "A check failed: the explainer's kept sets contradict each other (a bug; please report it with this page)."
                }
                Subject::Kernel => {
                    "A check failed: delta_kernel's kept sets contradict each other (a bug of the kernel's data skipping, given the predicate as written)."
                }
            }
        }
    );
    out
}

fn subject(subject: Subject) -> &'static str {
    match subject {
        Subject::Explainer => "the explainer",
        Subject::Kernel => "delta_kernel (no guard)",
    }
}
