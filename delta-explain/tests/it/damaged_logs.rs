//! Damaged logs, seeded: a truncation, flipped bits, a deleted line or an emptied file in one
//! commit, checkpoint part, `_last_checkpoint` or deletion vector of a real table
//! (`testkit::damage`). `delta-explain` answers (the damage left a readable table) or exits 3
//! with one line naming the table and what is wrong; it never panics, hangs, or exits any
//! other way. Every case prints its seed, so a failure replays.

use testkit::damage::{DamagedRun, damaged_copy, run_on_damaged_tables};

use crate::support::fixtures;

#[test]
fn a_damaged_log_is_answered_or_refused_with_exit_3() {
    run_on_damaged_tables(
        &fixtures(),
        &DamagedRun {
            binary: env!("CARGO_BIN_EXE_delta-explain"),
            args: &["-v", "--format", "json"],
            error_prefix: "delta-explain: cannot read table",
            answer: &|stdout| {
                let doc: serde_json::Value =
                    serde_json::from_str(stdout).map_err(|e| format!("a report: {e}"))?;
                if doc["total_files"].is_u64() {
                    Ok(())
                } else {
                    Err("no total_files".into())
                }
            },
        },
    );
}

/// The checkpoint part whose flipped bits made the oracle's Parquet reader panic: the kernel
/// reads only the columns it needs, past the damaged page, or reports the damage.
#[test]
fn a_checkpoint_with_flipped_bits_is_read_or_refused() {
    let d = damaged_copy(&fixtures().join("real/multi-part-checkpoint"), 198);
    let location = d.table.to_string_lossy().into_owned();
    for args in [
        vec![location.as_str(), "-w", "true"],
        vec![location.as_str(), "-v"],
    ] {
        let run = crate::support::run(&args);
        assert!(
            matches!(run.code, 0 | 3),
            "{args:?}: exit {}: {}",
            run.code,
            run.stderr
        );
        assert!(!run.stderr.contains("panicked") && !run.stderr.contains("internal error"));
    }
}
