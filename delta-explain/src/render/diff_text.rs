//! The text page of `delta-explain diff`.

use std::fmt::Write as _;

use explain_core::diff::{Counts, Diff};

use super::text::{human_bytes, thousands};

/// Both sides, each phase's survivors side by side, and the change of the share pruned.
pub fn to_text(diff: &Diff) -> String {
    let mut out = String::new();
    let (a, b) = (&diff.from, &diff.to);
    let _ = writeln!(
        out,
        "Predicate: {}\n",
        diff.predicate.as_deref().unwrap_or("(none)")
    );
    let _ = writeln!(out, "  from: {} at version {}", a.table, a.version);
    let _ = writeln!(out, "  to:   {} at version {}\n", b.table, b.version);
    let counts = |c: Option<&Counts>| {
        c.map_or("-".to_string(), |c| {
            format!(
                "{} files, {}, {} records",
                thousands(c.files as u64),
                human_bytes(c.bytes),
                thousands(c.records)
            )
        })
    };
    let _ = writeln!(out, "  {:<36} {:<40} to", "", "from");
    let _ = writeln!(
        out,
        "  {:<36} {:<40} {}",
        "snapshot",
        counts(Some(&a.snapshot)),
        counts(Some(&b.snapshot))
    );
    for p in &diff.phases {
        let _ = writeln!(
            out,
            "  {:<36} {:<40} {}",
            p.phase,
            counts(p.from.as_ref()),
            counts(p.to.as_ref())
        );
    }
    let _ = writeln!(
        out,
        "  {:<36} {:<40} {}",
        "kept",
        counts(Some(&a.kept)),
        counts(Some(&b.kept))
    );
    let _ = writeln!(
        out,
        "\nPruned: files {:.1}% -> {:.1}% ({:+.1} points), bytes {:.1}% -> {:.1}% ({:+.1} points); confidence {} -> {}",
        a.pruned_files_pct,
        b.pruned_files_pct,
        diff.pruned_files_pct_change,
        a.pruned_bytes_pct,
        b.pruned_bytes_pct,
        diff.pruned_bytes_pct_change,
        a.confidence,
        b.confidence
    );
    let _ = writeln!(
        out,
        "{}",
        if diff.worse {
            format!(
                "Skipping got worse: the share of bytes pruned fell by more than {} point(s).",
                diff.tolerance_pct
            )
        } else {
            "Skipping did not get worse.".to_string()
        }
    );
    out
}
