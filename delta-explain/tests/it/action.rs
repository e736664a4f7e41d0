//! The GitHub Action's scripts (`action.yml` at the repository root), run here as a runner
//! runs them: `GITHUB_STEP_SUMMARY` and `GITHUB_OUTPUT` are files, the inputs environment
//! variables, the binary the one under test.

use std::path::Path;
use std::process::Command;

use crate::support::taxi;

const BUDGET: &str = r#"
[[predicate]]
name = "one day, fast trips"
where = "pickup_date = '2024-01-03' AND trip_distance > 5"
min_pruning = 80

[[predicate]]
name = "fares"
where = "fare_amount > 50"
"#;

struct ActionRun {
    code: i32,
    summary: String,
    outputs: Vec<(String, String)>,
    stderr: String,
}

fn run_action(dir: &Path, budget: &str, extra: &[(&str, &str)]) -> ActionRun {
    let budget_path = dir.join("budget.toml");
    std::fs::write(&budget_path, budget).unwrap();
    let summary = dir.join("summary.md");
    let outputs = dir.join("outputs");
    std::fs::write(&summary, "").unwrap();
    std::fs::write(&outputs, "").unwrap();
    let script = testkit::workspace_root().join(".github/action/run.sh");
    let out = Command::new("bash")
        .arg(&script)
        .env("DX_BIN", env!("CARGO_BIN_EXE_delta-explain"))
        .env("DX_TABLE", taxi())
        .env("DX_BUDGET", &budget_path)
        .env("DX_JUNIT", dir.join("junit.xml"))
        .env("RUNNER_TEMP", dir)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .envs(extra.iter().copied())
        .output()
        .unwrap();
    ActionRun {
        code: out.status.code().unwrap_or(-1),
        summary: std::fs::read_to_string(&summary).unwrap(),
        outputs: std::fs::read_to_string(&outputs)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn output<'a>(run: &'a ActionRun, key: &str) -> &'a str {
    run.outputs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("output {key} in {:?}", run.outputs))
}

#[test]
fn a_passing_budget_writes_the_summary_and_the_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_action(dir.path(), BUDGET, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(output(&run, "result"), "pass");
    assert_eq!(output(&run, "failed"), "0");
    assert_eq!(output(&run, "exit-code"), "0");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(output(&run, "report")).unwrap()).unwrap();
    assert_eq!(report["entries"].as_array().unwrap().len(), 2);
    assert!(
        run.summary.contains("one day, fast trips"),
        "{}",
        run.summary
    );
    assert!(
        run.summary.contains('|'),
        "a markdown table: {}",
        run.summary
    );
    assert!(dir.path().join("junit.xml").is_file());
}

#[test]
fn a_failed_gate_fails_the_job_and_counts_the_failures() {
    let dir = tempfile::tempdir().unwrap();
    let budget = format!("{BUDGET}min_pruning = 99\n");
    let run = run_action(dir.path(), &budget, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(output(&run, "result"), "fail");
    assert_eq!(output(&run, "failed"), "1");
    assert!(
        run.stderr.contains("budget failed: fares"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_regression_against_the_baseline_fails_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let first = run_action(dir.path(), BUDGET, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let baseline = dir.path().join("baseline.json");
    std::fs::copy(output(&first, "report"), &baseline).unwrap();
    // The same names, with predicates that keep more files than the baseline did.
    let wider = BUDGET
        .replace("trip_distance > 5", "trip_distance > 0")
        .replace("fare_amount > 50", "fare_amount > 0");
    let baseline_s = baseline.to_string_lossy().into_owned();
    let run = run_action(dir.path(), &wider, &[("DX_BASELINE", &baseline_s)]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(output(&run, "result"), "fail");
}

#[test]
fn bad_input_and_storage_options_reach_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let run = run_action(
        dir.path(),
        BUDGET,
        &[("DX_STORAGE_OPTIONS", "  not-a-pair  \n")],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(output(&run, "result"), "error");
    assert!(run.stderr.contains("KEY=VALUE"), "{}", run.stderr);
    assert!(run.summary.contains("could not run the budget (exit 2)"));
    // Options one per line, blank lines skipped, reach the store (a local table ignores them).
    let run = run_action(
        dir.path(),
        BUDGET,
        &[(
            "DX_STORAGE_OPTIONS",
            "aws_region=eu-west-1\n\n  allow_http=true\n",
        )],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn the_install_script_uses_a_binary_already_there() {
    let out = Command::new("bash")
        .arg(testkit::workspace_root().join(".github/action/install.sh"))
        .env("DX_BIN", env!("CARGO_BIN_EXE_delta-explain"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("using DX_BIN="),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn the_action_runs_its_scripts_with_its_inputs() {
    let action = std::fs::read_to_string(testkit::workspace_root().join("action.yml")).unwrap();
    for needle in [
        "using: composite",
        ".github/action/install.sh",
        ".github/action/run.sh",
        "DX_TABLE: ${{ inputs.table }}",
        "DX_BUDGET: ${{ inputs.budget }}",
        "DX_BASELINE: ${{ inputs.baseline }}",
        "DX_STORAGE_OPTIONS: ${{ inputs.storage-options }}",
        "value: ${{ steps.run.outputs.result }}",
    ] {
        assert!(action.contains(needle), "action.yml: `{needle}`");
    }
}
