//! Damaged logs, seeded: a truncation, flipped bits, a deleted line or an emptied file in one
//! commit, checkpoint part, `_last_checkpoint` or deletion vector of a real table
//! (`testkit::damage`). `delta-oracle` answers (the damage left a readable table) or exits 3
//! with one line naming what is wrong (it also reads the deletion vectors); it never panics, hangs, or exits any
//! other way. Every case prints its seed, so a failure replays.

use std::time::Duration;

use testkit::damage::{DAMAGED_TABLES, cases_per_table, damaged_copy};

use testkit::fixtures;

#[test]
fn a_damaged_log_is_answered_or_refused_with_exit_3() {
    let (mut answered, mut refused) = (0usize, 0usize);
    for table in DAMAGED_TABLES {
        for seed in 0..cases_per_table(12) {
            let d = damaged_copy(&fixtures().join(table), seed);
            let location = d.table.to_string_lossy().into_owned();
            let case = format!("{table} seed {seed}: {} {}", d.file, d.what);
            let run = testkit::run_binary_within(
                env!("CARGO_BIN_EXE_delta-oracle"),
                &[&location, "-w", "true"],
                Duration::from_secs(60),
            )
            .unwrap_or_else(|| panic!("{case}: still running after 60 s"));
            match run.code {
                0 => {
                    assert!(run.stdout.contains("Live files:"), "{case}: {}", run.stdout);
                    answered += 1;
                }
                3 => {
                    assert!(run.stdout.is_empty(), "{case}: stdout on error");
                    let line = run.stderr.trim_end();
                    assert!(!line.contains('\n'), "{case}: one line: {}", run.stderr);
                    assert!(line.starts_with("delta-oracle: "), "{case}: {line}");
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

/// Found by a longer run: flipped bits in a checkpoint part made the Parquet reader panic (a
/// dictionary index out of range); the read is guarded and the damage reported.
#[test]
fn a_checkpoint_that_panics_the_parquet_reader_exits_3_naming_it() {
    let d = damaged_copy(&fixtures().join("real/multi-part-checkpoint"), 198);
    assert_eq!(
        d.file,
        "_delta_log/00000000000000000001.checkpoint.0000000002.0000000002.parquet"
    );
    let location = d.table.to_string_lossy().into_owned();
    let run = testkit::run_binary(
        env!("CARGO_BIN_EXE_delta-oracle"),
        &[&location, "-w", "true"],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    let line = run.stderr.trim_end();
    assert!(!line.contains('\n') && !line.contains("panicked"), "{line}");
    assert!(
        line.contains("00000000000000000001.checkpoint.0000000002.0000000002.parquet"),
        "{line}"
    );
}
