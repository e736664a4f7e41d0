//! Damaged logs, seeded: a truncation, flipped bits, a deleted line or an emptied file in one
//! commit, checkpoint part, `_last_checkpoint` or deletion vector of a real table
//! (`testkit::damage`). `delta-explain` answers (the damage left a readable table) or exits 3
//! with one line naming the table and what is wrong; it never panics, hangs, or exits any
//! other way. Every case prints its seed, so a failure replays.

use std::time::Duration;

use testkit::damage::{DAMAGED_TABLES, cases_per_table, damaged_copy};

use crate::support::fixtures;

#[test]
fn a_damaged_log_is_answered_or_refused_with_exit_3() {
    let (mut answered, mut refused) = (0usize, 0usize);
    for table in DAMAGED_TABLES {
        for seed in 0..cases_per_table(12) {
            let d = damaged_copy(&fixtures().join(table), seed);
            let location = d.table.to_string_lossy().into_owned();
            let case = format!("{table} seed {seed}: {} {}", d.file, d.what);
            let run = testkit::run_binary_within(
                env!("CARGO_BIN_EXE_delta-explain"),
                &[&location, "-v", "--format", "json"],
                Duration::from_secs(60),
            )
            .unwrap_or_else(|| panic!("{case}: still running after 60 s"));
            match run.code {
                0 => {
                    let doc: serde_json::Value = serde_json::from_str(&run.stdout)
                        .unwrap_or_else(|e| panic!("{case}: a report ({e})"));
                    assert!(doc["total_files"].is_u64(), "{case}: {}", run.stdout);
                    answered += 1;
                }
                3 => {
                    assert!(run.stdout.is_empty(), "{case}: stdout on error");
                    let line = run.stderr.trim_end();
                    assert!(!line.contains('\n'), "{case}: one line: {}", run.stderr);
                    assert!(
                        line.starts_with("delta-explain: cannot read table"),
                        "{case}: {line}"
                    );
                    assert!(!line.contains("panicked"), "{case}: {line}");
                    refused += 1;
                }
                other => panic!("{case}: exit {other}: {}", run.stderr),
            }
        }
    }
    eprintln!("damaged logs: {answered} answered, {refused} refused with exit 3");
    assert!(
        refused > 0,
        "no damage was refused: the damage does not reach the reader"
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
