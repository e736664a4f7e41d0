//! `delta-explain diff`: one predicate at two versions of taxi-nyc side by side, and the gate.

const BIN: &str = env!("CARGO_BIN_EXE_delta-explain");
const PREDICATE: &str = "pickup_date = '2024-01-03' AND trip_distance > 5";

#[test]
fn the_command_compares_two_versions_and_gates_on_skipping() {
    let taxi = testkit::taxi();
    let json = testkit::run_binary(
        BIN,
        &[
            "diff",
            &taxi,
            "--from-version",
            "1",
            "--to-version",
            "3",
            "-w",
            PREDICATE,
            "--format",
            "json",
        ],
    );
    assert_eq!(json.code, 0, "no gate asked: {}", json.stderr);
    let diff: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(diff["from"]["version"], 1);
    assert_eq!(diff["to"]["version"], 3);
    assert_eq!(diff["from"]["snapshot"]["files"], 10);
    assert_eq!(diff["to"]["snapshot"]["files"], 20);
    // Version 1 holds no row of the partition past 5 miles; version 3 adds files that do.
    assert_eq!(diff["from"]["kept"]["files"], 0);
    assert_eq!(diff["to"]["kept"]["files"], 2);
    assert_eq!(diff["worse"], true, "{diff}");
    let phases = diff["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 2, "{diff}");
    let gated = testkit::run_binary(
        BIN,
        &[
            "diff",
            &taxi,
            "--from-version",
            "1",
            "--to-version",
            "3",
            "-w",
            PREDICATE,
            "--fail-if-worse",
        ],
    );
    assert_eq!(gated.code, 1, "{}", gated.stderr);
    assert!(
        gated.stdout.contains("Skipping got worse"),
        "{}",
        gated.stdout
    );
    assert!(
        gated.stdout.contains("Partition pruning"),
        "{}",
        gated.stdout
    );
    let reversed = testkit::run_binary(
        BIN,
        &[
            "diff",
            &taxi,
            "--from-version",
            "3",
            "--to-version",
            "1",
            "-w",
            PREDICATE,
            "--fail-if-worse",
        ],
    );
    assert_eq!(reversed.code, 0, "{}", reversed.stderr);
    assert!(
        reversed.stdout.contains("did not get worse"),
        "{}",
        reversed.stdout
    );
    let one_side = testkit::run_binary(BIN, &["diff", &taxi, "-w", PREDICATE]);
    testkit::assert_error(&one_side, "a diff of one side", 2, "two sides");
    let missing = testkit::run_binary(
        BIN,
        &["diff", &taxi, "--from-version", "99", "-w", PREDICATE],
    );
    assert_eq!(missing.code, 3, "{}", missing.stderr);
    assert_eq!(missing.stderr.lines().count(), 1, "{}", missing.stderr);
}

/// `--format html`: a chart of files and one of bytes, two bars per phase and for the
/// snapshot, self-contained, the text page inside.
#[test]
fn the_diff_page_draws_both_versions_per_phase() {
    let taxi = testkit::taxi();
    let run = testkit::run_binary(
        BIN,
        &[
            "diff",
            &taxi,
            "--from-version",
            "1",
            "--to-version",
            "3",
            "-w",
            PREDICATE,
            "--format",
            "html",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let page = run.stdout;
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    // The snapshot and two phases, in two charts: six bars a side.
    assert_eq!(page.matches("class=\"from-bar\"").count(), 6, "{page}");
    assert_eq!(page.matches("class=\"to-bar\"").count(), 6, "{page}");
    assert!(page.contains("version 1 (grey) against"), "{page}");
    for external in ["src=\"http", "href=\"http", "<link", "@import", "url("] {
        assert!(!page.contains(external), "the page fetches `{external}`");
    }
}
