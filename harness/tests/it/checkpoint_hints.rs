//! Checkpoints and their hints as writers leave them, read by both binaries' libraries alike
//! (docs/semantics.md, *Checkpoint hints*):
//! - a V2 checkpoint whose adds live in sidecars is read as its commits say;
//! - `_last_checkpoint` naming a checkpoint past the log is read past by listing, with the
//!   `LAST_CHECKPOINT_IGNORED` note; a hint that is not JSON, or none, is listed past with no
//!   note (the state is the same);
//! - a V2 checkpoint one of whose sidecars is missing (a torn checkpoint) is refused by both
//!   (exit 3), naming the sidecar: the manifest vouches for files that are not there, as a
//!   multi-part checkpoint with a missing part does.
//!
//! The same tables are catalog names (`checkpoint-v2-sidecars`, `checkpoint-hint-ahead`,
//! `checkpoint-hint-unreadable`, `hint-ahead-no-checkpoint`), so the soundness suites and the
//! campaigns run every predicate over them too.

use std::collections::BTreeSet;

use explain_core::request::{Answer, ExplainRequest, Progress, explain_one};
use generators::catalog::named_with_seed;
use generators::writer::write_table;
use oracle::log::Snapshot;

const PREDICATE: &str = "i64 > 0";

fn write(name: &str, seed: u64) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let spec = named_with_seed(name, seed).unwrap();
    write_table(&spec, dir.path()).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    (dir, location)
}

fn explained(location: &str) -> Result<Answer, explain_compiler::ExplainError> {
    let request = ExplainRequest::new(location).predicate(Some(PREDICATE.to_string()));
    Progress::silent(|progress| explain_one(&request, progress))
}

/// The live files of both readers, which must agree; the explainer's note codes.
fn read_alike(name: &str, location: &str) -> Vec<String> {
    let answer = explained(location).unwrap_or_else(|e| panic!("{name}: delta-explain: {e}"));
    let oracle = Snapshot::open(location, None).unwrap_or_else(|e| panic!("{name}: oracle: {e}"));
    let oracle_files: BTreeSet<String> = oracle.files.iter().map(|f| f.path.clone()).collect();
    assert_eq!(
        answer.report.total_files,
        oracle_files.len(),
        "{name}: both readers list the same live files"
    );
    assert_eq!(
        answer.report.version, oracle.version,
        "{name}: the same version"
    );
    assert!(answer.report.total_files > 0, "{name}: files were listed");
    answer
        .report
        .table_features
        .notes
        .iter()
        .map(|n| n.code.to_string())
        .collect()
}

#[test]
fn checkpoints_and_hints_as_writers_leave_them_read_alike_in_both() {
    for seed in [1, 2, 3] {
        for (name, noted) in [
            ("checkpoint-v2-sidecars", false),
            ("checkpoint-hint-ahead", true),
            ("hint-ahead-no-checkpoint", true),
            ("checkpoint-hint-unreadable", false),
        ] {
            let (_dir, location) = write(name, seed);
            let notes = read_alike(name, &location);
            assert_eq!(
                notes.iter().any(|c| c == "LAST_CHECKPOINT_IGNORED"),
                noted,
                "{name} (seed {seed}): the hint's note ({notes:?})"
            );
        }
    }
}

#[test]
fn a_v2_checkpoint_with_a_missing_sidecar_is_refused_by_both_naming_it() {
    let (_dir, location) = write("checkpoint-v2-sidecars", 7);
    let sidecars = std::path::Path::new(&location).join("_delta_log/_sidecars");
    let mut names: Vec<String> = std::fs::read_dir(&sidecars)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "two sidecars written: {names:?}");
    // Read whole first: the sidecars hold every add.
    read_alike("checkpoint-v2-sidecars", &location);
    std::fs::remove_file(sidecars.join(&names[1])).unwrap();

    let refused = match explained(&location) {
        Err(e) => e,
        Ok(answer) => panic!(
            "delta-explain read a torn checkpoint: {} files",
            answer.report.total_files
        ),
    };
    assert_eq!(refused.exit_code(), 3, "delta-explain: {refused}");
    assert!(
        refused.to_string().contains(&names[1]),
        "delta-explain names the sidecar: {refused}"
    );
    assert_eq!(
        refused.to_string().lines().count(),
        1,
        "one line: {refused}"
    );

    let refused = match Snapshot::open(&location, None) {
        Err(e) => e,
        Ok(s) => panic!("the oracle read a torn checkpoint: {} files", s.files.len()),
    };
    assert_eq!(refused.exit_code(), 3, "oracle: {refused}");
    assert!(
        refused.to_string().contains(&names[1]),
        "the oracle names the sidecar: {refused}"
    );
}
