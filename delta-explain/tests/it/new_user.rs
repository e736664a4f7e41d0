//! What a new user tripped on, each held: CI outputs and baselines without a budget, baselines
//! that compare shares, predicates that are values, literals beyond their column's range, the
//! NaN hazard said once and short, a partition diagnosis that has nothing left to gain, and an
//! advisor that says what to run.

use crate::support::{run, taxi};

const DAY: &str = "pickup_date = '2024-01-03'";
const MIXED: &str = "pickup_date = '2024-01-03' AND trip_distance > 5";

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path} was written: {e}"))
}

#[test]
fn junit_and_a_summary_are_written_for_one_predicate_and_for_many() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("one.xml").to_string_lossy().into_owned();
    let summary = dir.path().join("one.md").to_string_lossy().into_owned();
    // One predicate, its gate failing: exit 1, and the failure in both files.
    let one = run(&[
        &taxi(),
        "-w",
        MIXED,
        "--min-files",
        "3",
        "--junit",
        &junit,
        "--summary-md",
        &summary,
    ]);
    assert_eq!(one.code, 1, "{}", one.stderr);
    let xml = read(&junit);
    assert!(
        xml.contains("tests=\"1\"") && xml.contains("failures=\"1\""),
        "{xml}"
    );
    assert!(xml.contains("gate min_files failed"), "{xml}");
    let md = read(&summary);
    assert!(md.contains("| 2 of 20 |"), "{md}");
    assert!(md.contains("**fail**"), "{md}");
    // Many predicates: a test case each, in file order.
    let predicates = write(&dir, "q.sql", &format!("{DAY}\n# a comment\n{MIXED}\n"));
    let junit = dir.path().join("many.xml").to_string_lossy().into_owned();
    let many = run(&[&taxi(), "--predicates", &predicates, "--junit", &junit]);
    assert_eq!(many.code, 0, "{}", many.stderr);
    let xml = read(&junit);
    assert!(
        xml.contains("tests=\"2\"") && xml.contains("failures=\"0\""),
        "{xml}"
    );
    assert!(
        xml.find(DAY.replace('\'', "&apos;").as_str()).is_some(),
        "{xml}"
    );
}

#[test]
fn a_baseline_of_a_table_that_only_gained_data_is_no_regression() {
    let dir = tempfile::tempdir().unwrap();
    // taxi-nyc gains five files a version; version 1 kept 2 of 10 files for the day, version
    // 3 keeps 4 of 20: the same share.
    let then = run(&[&taxi(), "-w", DAY, "--at-version", "1", "--format", "json"]);
    assert_eq!(then.code, 0, "{}", then.stderr);
    let baseline = write(&dir, "then.json", &then.stdout);
    let now = run(&[&taxi(), "-w", DAY, "--baseline", &baseline]);
    assert_eq!(now.code, 0, "{}", now.stderr);
    assert!(
        now.stdout.contains("baseline version 1: 2 of 10 files")
            && now.stdout.contains("now      version 3: 4 of 20 files"),
        "the baseline's version and totals beside the current ones: {}",
        now.stdout
    );
    // A baseline that pruned a larger share: a regression, said with both shares.
    let mut better: serde_json::Value = serde_json::from_str(&then.stdout).unwrap();
    better["final_files"] = 1.into();
    let better = write(&dir, "better.json", &better.to_string());
    let lost = run(&[&taxi(), "-w", DAY, "--baseline", &better]);
    assert_eq!(lost.code, 1, "{}", lost.stderr);
    assert!(
        lost.stderr
            .contains("regression: 80.0% of files pruned, 90.0% in the baseline"),
        "{}",
        lost.stderr
    );
    // Within the tolerance it passes.
    let tolerant = run(&[
        &taxi(),
        "-w",
        DAY,
        "--baseline",
        &better,
        "--baseline-tolerance",
        "15",
    ]);
    assert_eq!(tolerant.code, 0, "{}", tolerant.stderr);
    // Many predicates against a stored --predicates run, matched by their text.
    let predicates = write(
        &dir,
        "q.sql",
        &format!("{DAY}\npickup_date <= '2024-01-02'\n"),
    );
    let then_many = run(&[
        &taxi(),
        "--predicates",
        &predicates,
        "--at-version",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(then_many.code, 0, "{}", then_many.stderr);
    let stored = write(&dir, "many.json", &then_many.stdout);
    let many = run(&[&taxi(), "--predicates", &predicates, "--baseline", &stored]);
    assert_eq!(many.code, 0, "{} {}", many.stdout, many.stderr);
    assert_eq!(
        many.stdout.matches("baseline version 1").count(),
        2,
        "{}",
        many.stdout
    );
}

#[test]
fn a_predicate_that_computes_a_value_is_bad_input() {
    for predicate in [
        "trip_distance >> 5",
        "trip_distance + 1",
        "-trip_distance",
        "trip_distance",
        "pickup_date = '2024-01-03' AND (passenger_count % 2)",
        "NOT (fare_amount * 2)",
    ] {
        let out = run(&[&taxi(), &format!("--where={predicate}")]);
        testkit::assert_error(&out, predicate, 2, "not a condition");
    }
    // A value compared is a condition: a fragment outside the pruning language, kept.
    let out = run(&[&taxi(), "-w", "passenger_count % 2 = 0"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn a_literal_beyond_its_columns_range_is_decided_with_a_note() {
    let out = run(&[
        &taxi(),
        "-w",
        "passenger_count = 99999999999999999999",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = crate::support::parse_report(&out.stdout);
    assert_eq!(doc["final_files"], 0);
    let codes = crate::support::analysis_codes(&doc, "notes");
    assert!(codes.contains(&"LITERAL_OUT_OF_RANGE"), "{codes:?}");
    // Above the range on the other side: every non-NULL row, with the note.
    let doc = crate::support::run_json(&[&taxi(), "-w", "passenger_count < 99999999999999999999"]);
    assert_eq!(doc["final_files"], 20);
    let codes = crate::support::analysis_codes(&doc, "notes");
    assert!(codes.contains(&"LITERAL_OUT_OF_RANGE"), "{codes:?}");
    // In range: no note.
    let doc = crate::support::run_json(&[&taxi(), "-w", "passenger_count = 2"]);
    let codes = crate::support::analysis_codes(&doc, "notes");
    assert!(!codes.contains(&"LITERAL_OUT_OF_RANGE"), "{codes:?}");
}

#[test]
fn the_nan_hazard_is_said_once_and_short() {
    let out = run(&[&taxi(), "-w", "trip_distance > 5 AND fare_amount < 20"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.contains("NAN_UNGUARDED_BOUNDS"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", out.stdout);
    assert!(
        lines[0].len() < 200,
        "{} characters: {}",
        lines[0].len(),
        lines[0]
    );
    // With --explain-why the diagnosis says it (with what to do), the hazard line does not.
    let why = run(&[&taxi(), "-w", "trip_distance > 5", "--explain-why"]);
    assert_eq!(
        why.stdout.matches("NAN_UNGUARDED_BOUNDS").count(),
        1,
        "{}",
        why.stdout
    );
}

#[test]
fn no_partition_filter_is_no_warning_where_skipping_prunes_every_file() {
    let none_kept = run(&[&taxi(), "-w", "trip_distance > 100000", "--explain-why"]);
    assert_eq!(none_kept.code, 0, "{}", none_kept.stderr);
    assert!(
        !none_kept.stdout.contains("NO_PARTITION_FILTER"),
        "{}",
        none_kept.stdout
    );
    // Where data skipping leaves most files, the warning stays.
    let weak = run(&[&taxi(), "-w", "trip_distance > 1", "--explain-why"]);
    assert!(
        weak.stdout.contains("[warning] NO_PARTITION_FILTER"),
        "{}",
        weak.stdout
    );
}

#[test]
fn advise_leaves_out_refused_predicates_shows_a_few_layouts_and_says_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let workload = write(
        &dir,
        "w.sql",
        &format!("{MIXED}\nfare_amount > 50\nnosuch = 3\n"),
    );
    let out = run(&["advise", &taxi(), "--predicates", &workload]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("Workload:  2 predicate(s) (1 left out, below)"),
        "{}",
        out.stdout
    );
    let ranked = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("rank"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty() && !l.trim_start().starts_with('('))
        .count();
    assert!(
        ranked <= 6,
        "the best five and the current layout: {}",
        out.stdout
    );
    assert!(out.stdout.contains("more layout(s)"), "{}", out.stdout);
    assert!(
        out.stdout.contains("To make it:\n  OPTIMIZE delta.`"),
        "{}",
        out.stdout
    );
    // Below the threshold nothing is recommended.
    let strict = run(&[
        "advise",
        &taxi(),
        "--predicates",
        &workload,
        "--min-saving",
        "99",
        "--format",
        "json",
    ]);
    assert_eq!(strict.code, 0, "{}", strict.stderr);
    let doc: serde_json::Value = serde_json::from_str(&strict.stdout).unwrap();
    crate::support::assert_valid_advice(&doc);
    assert_eq!(doc["recommended"], "current layout");
    assert!(doc["statement"].is_null());
    assert_eq!(doc["min_saving_pct"], 99.0);
}

#[test]
fn advise_names_an_unreadable_table_once() {
    let dir = tempfile::tempdir().unwrap();
    let workload = write(&dir, "w.sql", "x = 1\n");
    let missing = dir.path().join("no-table").to_string_lossy().into_owned();
    let out = run(&["advise", &missing, "--predicates", &workload]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert_eq!(
        out.stderr.matches("cannot read table").count(),
        1,
        "{}",
        out.stderr
    );
}

#[test]
fn a_misspelt_storage_option_is_told_the_name_meant() {
    let out = run(&[
        "s3://bucket/table",
        "-w",
        "x = 1",
        "--storage-option",
        "aws_acess_key_id=SECRET",
    ]);
    testkit::assert_error(
        &out,
        "misspelt option",
        2,
        "did you mean 'aws_access_key_id'?",
    );
    assert!(!out.stderr.contains("SECRET"), "{}", out.stderr);
}

/// A timestamp without a time zone whose bounds a writer recorded with a `Z`: shown as the
/// zone-less value it is, on the terminal and on the page.
#[test]
fn timestamp_ntz_bounds_are_shown_without_a_zone() {
    let dir = tempfile::tempdir().unwrap();
    let fields = [
        serde_json::json!({"name": "t", "type": "timestamp_ntz", "nullable": true, "metadata": {}}),
    ];
    let schema = delta_commit::schema_string(&fields);
    let file = |path: &str, min: &str, max: &str| {
        let stats = format!(
            "{{\"numRecords\":2,\"minValues\":{{\"t\":\"{min}\"}},\"maxValues\":{{\"t\":\"{max}\"}},\"nullCount\":{{\"t\":0}}}}"
        );
        delta_commit::add(path, &[], 100, Some(&stats), Default::default())
    };
    let actions = [
        delta_commit::protocol_for_schema(&schema),
        delta_commit::metadata("ntz", &schema, &[], Default::default()),
        file(
            "a.parquet",
            "2024-01-03T10:00:00.000Z",
            "2024-01-03T11:00:00.000Z",
        ),
        file(
            "b.parquet",
            "2024-01-04T10:00:00.000Z",
            "2024-01-04T11:00:00.000Z",
        ),
    ];
    delta_commit::write_commit(&dir.path().join("_delta_log"), 0, &actions).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let predicate = "t > '2024-01-04 00:00:00'";
    let text = run(&[&location, "-w", predicate, "--ranges", "t"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("2024-01-03T10:00:00.000 "),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains(".000Z"), "{}", text.stdout);
    let page = run(&[&location, "-w", predicate, "--format", "html"]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    assert!(!page.stdout.contains(".000Z"), "the page shows a zone");
    assert!(
        page.stdout.contains("time axis"),
        "a time axis for a timestamp"
    );
}
