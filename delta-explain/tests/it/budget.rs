//! `--budget`: named predicates with their own gates against one replay, a baseline to catch
//! regressions, and the markdown and JUnit outputs CI systems read.

use crate::support::{assert_valid_report, run, taxi};

const BUDGET: &str = r#"
[[predicate]]
name = "one day, fast trips"
where = "pickup_date = '2024-01-03' AND trip_distance > 5"
min_pruning = 80
min_files = 1

[[predicate]]
name = "misspelt day"
where = "pickup_date = '2024-1-3'"
min_files = 1
"#;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn a_budget_gates_each_predicate_and_writes_ci_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let budget = write(&dir, "budget.toml", BUDGET);
    let summary = dir.path().join("summary.md");
    let junit = dir.path().join("junit.xml");
    let (summary_s, junit_s) = (
        summary.to_string_lossy().into_owned(),
        junit.to_string_lossy().into_owned(),
    );
    let out = run(&[
        &taxi(),
        "--budget",
        &budget,
        "--format",
        "json",
        "--summary-md",
        &summary_s,
        "--junit",
        &junit_s,
    ]);
    assert_eq!(
        out.code, 1,
        "the misspelt day keeps no file: {}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("budget failed: misspelt day: gate min_files failed: 0 file(s) kept"),
        "{}",
        out.stderr
    );
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["schema_version"], "dx-budget-1.0.0");
    assert_eq!(doc["result"], "fail");
    let entries = doc["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0]["result"], "pass");
    assert_eq!(entries[1]["result"], "fail");
    for e in entries {
        assert_valid_report(&e["report"]);
    }
    assert_eq!(entries[0]["report"]["final_files"], 2);
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("### delta-explain budget: fail"), "{md}");
    assert!(
        md.contains(
            "| one day, fast trips (`pickup_date = '2024-01-03' AND trip_distance > 5`) | 2 of 20 |"
        ),
        "{md}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(
            r#"<testsuite name="delta-explain budget" tests="2" failures="1" errors="0">"#
        ),
        "{xml}"
    );
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    assert!(xml.contains("gate min_files failed"), "{xml}");
    assert!(
        xml.contains("pickup_date = &apos;2024-1-3&apos;</failure>"),
        "the predicate, escaped: {xml}"
    );
    // The summary is appended, as GitHub's step summary file expects.
    run(&[&taxi(), "--budget", &budget, "--summary-md", &summary_s]);
    assert_eq!(
        std::fs::read_to_string(&summary)
            .unwrap()
            .matches("### delta-explain budget")
            .count(),
        2
    );
}

#[test]
fn a_baseline_turns_lost_pruning_into_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let budget = write(
        &dir,
        "budget.toml",
        "[[predicate]]\nname = \"day\"\nwhere = \"pickup_date = '2024-01-03' AND trip_distance > 5\"\n",
    );
    let first = run(&[&taxi(), "--budget", &budget, "--format", "json"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    // The same run as its own baseline: nothing regressed.
    let same = write(&dir, "same.json", &first.stdout);
    let again = run(&[&taxi(), "--budget", &budget, "--baseline", &same]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    // A baseline where the predicate kept one file and fewer bytes: now it keeps more.
    let mut better: serde_json::Value = serde_json::from_str(&first.stdout).unwrap();
    better["entries"][0]["report"]["final_files"] = 1.into();
    better["entries"][0]["report"]["final_bytes"] = 100.into();
    let better = write(&dir, "better.json", &better.to_string());
    let regressed = run(&[&taxi(), "--budget", &budget, "--baseline", &better]);
    assert_eq!(regressed.code, 1, "{}", regressed.stderr);
    assert!(
        regressed
            .stdout
            .contains("regression: 90.0% of files pruned, 95.0% in the baseline"),
        "{}",
        regressed.stdout
    );
    assert!(
        regressed
            .stdout
            .contains("% of bytes pruned, 99.9% in the baseline")
    );
    assert!(
        regressed
            .stdout
            .contains("baseline version 3: 1 of 20 files"),
        "{}",
        regressed.stdout
    );
}

#[test]
fn a_bad_budget_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    for (text, fragment) in [
        ("[[predicate]]\nname = \"a\"\n", "missing field `where`"),
        (
            "[[predicate]]\nname = \"a\"\nwhere = \"nosuch > 1\"\n",
            "`a`: unknown column `nosuch`",
        ),
    ] {
        let budget = write(&dir, "bad.toml", text);
        testkit::assert_error(&run(&[&taxi(), "--budget", &budget]), text, 2, fragment);
    }
    let budget = write(
        &dir,
        "ok.toml",
        "[[predicate]]\nname = \"a\"\nwhere = \"true\"\n",
    );
    let junk = write(&dir, "junk.json", "{}");
    testkit::assert_error(
        &run(&[&taxi(), "--budget", &budget, "--baseline", &junk]),
        "junk baseline",
        2,
        "not a budget run",
    );
}
