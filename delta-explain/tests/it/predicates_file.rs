//! `--predicates FILE`: many predicates against one replay give the same reports as one run
//! each, every report fits the schema, and a bad line is named.

use crate::support::{assert_valid_report, run, run_json, taxi};

const PREDICATES: &[&str] = &[
    "pickup_date = '2024-01-03' AND trip_distance > 5",
    "UPPER(pickup_date) = '2024-01-03' AND trip_distance > 8",
    "pickup_date LIKE '%01-03%' AND trip_distance > 5",
    "pickup_date = '2024-01-03' OR trip_distance > 30",
];

fn file_with(lines: &[&str]) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().unwrap();
    let text = format!("# reference cases\n\n{}\n", lines.join("\n"));
    std::fs::write(file.path(), text).unwrap();
    file
}

#[test]
fn one_replay_many_predicates_same_reports() {
    let file = file_with(PREDICATES);
    let path = file.path().to_string_lossy().into_owned();
    let r = run(&[&taxi(), "--predicates", &path, "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let reports: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let reports = reports.as_array().unwrap();
    assert_eq!(
        reports.len(),
        PREDICATES.len(),
        "comments and blank lines are skipped"
    );
    // The statistics coverage costs a pass over each file's statistics per predicate: many
    // predicates carry it where --explain-why reads the statistics anyway.
    let why = run(&[
        &taxi(),
        "--predicates",
        &path,
        "--format",
        "json",
        "--explain-why",
    ]);
    let why: serde_json::Value = serde_json::from_str(&why.stdout).unwrap();
    for ((report, with_why), predicate) in
        reports.iter().zip(why.as_array().unwrap()).zip(PREDICATES)
    {
        assert_valid_report(report);
        let mut single = run_json(&[&taxi(), "-w", predicate]);
        assert!(
            report["analysis"]["stats_coverage"].is_null(),
            "{predicate}"
        );
        assert_eq!(
            with_why["analysis"]["stats_coverage"], single["analysis"]["stats_coverage"],
            "{predicate}: coverage"
        );
        single["analysis"]["stats_coverage"] = serde_json::Value::Null;
        for key in ["predicate", "final_files", "phases", "analysis"] {
            assert_eq!(report[key], single[key], "{predicate}: {key}");
        }
    }
    let text = run(&[&taxi(), "--predicates", &path]);
    assert_eq!(text.stdout.lines().count(), PREDICATES.len());
    assert!(
        text.stdout.starts_with("20 -> 4 -> 2 files (90% pruned)"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_bad_line_is_named_and_gates_apply_to_each() {
    let file = file_with(&[PREDICATES[0], "trip_distance >", PREDICATES[1]]);
    let path = file.path().to_string_lossy().into_owned();
    // Every line is answered; the bad one becomes an error entry in its place; exit 2.
    let r = run(&[&taxi(), "--predicates", &path]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines[0].starts_with("20 -> 4 -> 2 files"), "{}", lines[0]);
    assert!(
        lines[1].starts_with("line 4: error: invalid predicate: malformed SQL"),
        "{}",
        lines[1]
    );
    assert!(
        r.stderr.contains("1 line(s) of") && r.stderr.contains("are not valid predicates"),
        "{}",
        r.stderr
    );
    let json = run(&[&taxi(), "--predicates", &path, "--format", "json"]);
    assert_eq!(json.code, 2);
    let entries: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let entries = entries.as_array().unwrap();
    assert_eq!(entries.len(), 3);
    assert_valid_report(&entries[0]);
    assert_valid_report(&entries[2]);
    assert_eq!(entries[1]["line"], 4);
    assert_eq!(entries[1]["predicate"], "trip_distance >");
    assert_eq!(entries[1]["exit_code"], 2);
    assert!(
        entries[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid predicate")
    );
    let file = file_with(&[PREDICATES[0], "trip_distance > 0"]);
    let path = file.path().to_string_lossy().into_owned();
    let r = run(&[&taxi(), "--predicates", &path, "--min-pruning", "50"]);
    assert_eq!(
        r.code, 1,
        "the second predicate prunes nothing: {}",
        r.stderr
    );
    assert!(
        r.stderr.contains("line 4: gate min_pruning failed"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stdout.lines().count(), 2, "the reports are still printed");
}

/// On every core, each report is the one a sequential run builds, in input order: over the
/// whole taxi corpus, so the workers interleave many times.
#[test]
fn every_core_gives_the_sequential_reports_in_order() {
    use explain_core::report_request::ReportRequest;
    use explain_core::session::Session;
    let corpus =
        std::fs::read_to_string(testkit::workspace_root().join("corpora/taxi-nyc.txt")).unwrap();
    let predicates: Vec<&str> = corpus
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(
        predicates.len() > 100,
        "the taxi corpus has {} predicates",
        predicates.len()
    );
    let taxi = taxi();
    let table = explain_core::replay::ReplayedTable::open(&taxi, None).unwrap();
    let session = Session::new(&table);
    let request = ReportRequest::default();
    let parallel = session.reports(&predicates, &request, explain_core::cores());
    assert_eq!(parallel.len(), predicates.len());
    let comparable = |report: &explain_core::report::Report| {
        let mut doc: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
        doc.as_object_mut().unwrap().remove("elapsed_ms");
        doc
    };
    for (predicate, outcome) in predicates.iter().zip(parallel) {
        let (report, _) = outcome.unwrap_or_else(|e| panic!("{predicate}: {e}"));
        // A session of its own: nothing read for the parallel run is reused.
        let (sequential, _) = Session::new(&table)
            .report(Some(predicate), &request, std::time::Instant::now())
            .unwrap();
        assert_eq!(comparable(&report), comparable(&sequential), "{predicate}");
    }
}

/// `--predicates -` reads standard input; sections the one-line text cannot show are refused
/// in text and carried by each report in JSON.
#[test]
fn predicates_from_standard_input_and_sections_in_batch_mode() {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_delta-explain"))
        .args([
            taxi().as_str(),
            "--predicates",
            "-",
            "--format",
            "json",
            "-v",
            "--limit",
            "2",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{}\n{}\n", PREDICATES[0], PREDICATES[3]).as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), 2);
    for report in reports {
        assert_valid_report(report);
        assert_eq!(
            report["files"].as_array().unwrap().len(),
            2,
            "--limit applies"
        );
        assert_eq!(report["files_truncated"], true);
    }
    let file = file_with(PREDICATES);
    let path = file.path().to_string_lossy().into_owned();
    let refused = run(&[&taxi(), "--predicates", &path, "-v"]);
    testkit::assert_error(&refused, "-v in text batch mode", 2, "use --format json");
}
