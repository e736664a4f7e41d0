//! Damaged logs, seeded: a truncation, flipped bits, a deleted line or an emptied file in one
//! commit, checkpoint part, `_last_checkpoint` or deletion vector of a real table
//! (`testkit::damage`). `delta-oracle` answers (the damage left a readable table) or exits 3
//! with one line naming what is wrong (it also reads the deletion vectors); it never panics, hangs, or exits any
//! other way. Every case prints its seed, so a failure replays.

use testkit::damage::{DamagedRun, damaged_copy, run_on_damaged_tables};

use testkit::fixtures;

#[test]
fn a_damaged_log_is_answered_or_refused_with_exit_3() {
    run_on_damaged_tables(
        &fixtures(),
        &DamagedRun {
            binary: env!("CARGO_BIN_EXE_delta-oracle"),
            args: &["-w", "true"],
            error_prefix: "delta-oracle: ",
            answer: &|stdout| {
                if stdout.contains("Live files:") {
                    Ok(())
                } else {
                    Err("no live-file count".into())
                }
            },
        },
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
