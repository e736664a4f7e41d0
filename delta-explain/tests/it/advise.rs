//! `delta-explain advise`: calibration on every shared fixture (the current layout simulated
//! from the table's own rows keeps the table's own files, or each differing file has a reason
//! the simulation cannot know), the sample's scaling, and the command's bad input.

use explain_advise::{Advice, AdviseRequest, advise};
use testkit::{all_tables, assert_error, taxi, workspace_root};

use crate::support::{assert_valid_advice, run};

/// The first `n` predicates of a fixture's corpus.
fn corpus(name: &str, n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(workspace_root().join(format!("corpora/{name}.txt")))
        .expect("the fixture's corpus");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(n)
        .map(str::to_string)
        .collect()
}

fn request(table: &str, predicates: Vec<String>, sample: Option<u64>) -> AdviseRequest {
    AdviseRequest {
        location: table.to_string(),
        storage: storage::StorageOptions::default(),
        catalog: None,
        version: None,
        predicates,
        sample,
        target_file_size: None,
        seed: 7,
        workers: 2,
        min_saving_pct: explain_advise::MIN_SAVING_PCT,
    }
}

/// What the simulation cannot know of a file: its real statistics are absent, or count rows a
/// deletion vector removed, or the rows were sampled.
const UNKNOWABLE: [&str; 3] = [
    "the table's log has no statistics",
    "a deletion vector",
    "sampled",
];

#[test]
fn the_simulated_current_layout_keeps_each_fixtures_own_files() {
    let mut compared = 0;
    let mut explained_differences = 0;
    for table in all_tables() {
        let name = table.file_name().unwrap().to_string_lossy().into_owned();
        let predicates = corpus(&name, 40);
        let advice: Advice = advise(
            &request(table.to_str().unwrap(), predicates.clone(), None),
            &|_| {},
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_valid_advice(&serde_json::to_value(&advice).unwrap());
        let c = &advice.calibration;
        let explained = advice.errors.iter().filter(|e| e.is_none()).count();
        assert_eq!(
            c.predicates, explained,
            "{name}: every explained predicate is compared"
        );
        assert_eq!(
            c.identical + c.differing.len(),
            c.predicates,
            "{name}: {c:?}"
        );
        for entry in &c.differing {
            assert!(
                entry.differing_files > 0 && !entry.files.is_empty(),
                "{name}: {entry:?}"
            );
            for f in &entry.files {
                assert!(
                    UNKNOWABLE.iter().any(|r| f.reason.starts_with(r)),
                    "{name}: `{}`: {} differs for a reason the simulation should know: {}",
                    entry.predicate,
                    f.path,
                    f.reason
                );
                explained_differences += 1;
            }
        }
        compared += c.predicates;
        // The current layout is among the candidates, with the table's own file count.
        let current = advice
            .layouts
            .iter()
            .find(|l| l.name == "current layout")
            .expect("the current layout is ranked");
        assert_eq!(
            current.files,
            current
                .per_predicate
                .iter()
                .flatten()
                .next()
                .map_or(current.files, |p| p.total_files),
            "{name}"
        );
    }
    assert!(compared >= 400, "only {compared} predicates compared");
    // The deletion-vector fixture differs, and says why.
    assert!(explained_differences > 0, "no difference was explained");
}

#[test]
fn a_sample_is_scaled_back_up_and_named_as_the_reason_for_differences() {
    let predicates = corpus("taxi-nyc", 12);
    let whole = advise(&request(&taxi(), predicates.clone(), None), &|_| {}).unwrap();
    let sampled = advise(&request(&taxi(), predicates, Some(400)), &|_| {}).unwrap();
    assert_eq!(whole.sample_rate, 1.0);
    assert_eq!(whole.rows_read, whole.live_rows);
    assert!(sampled.sample_rate < 0.2, "{}", sampled.sample_rate);
    assert!(
        (200..=600).contains(&sampled.rows_read),
        "about 400 rows: {}",
        sampled.rows_read
    );
    assert_eq!(sampled.live_rows, whole.live_rows);
    for entry in &sampled.calibration.differing {
        for f in &entry.files {
            assert!(f.reason.starts_with("sampled"), "{}", f.reason);
        }
    }
    // The same seed draws the same sample.
    let again = advise(
        &request(&taxi(), corpus("taxi-nyc", 12), Some(400)),
        &|_| {},
    )
    .unwrap();
    assert_eq!(again.rows_read, sampled.rows_read);
}

#[test]
fn the_command_prints_the_ranking_and_refuses_bad_input_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let workload = dir.path().join("workload.sql");
    std::fs::write(
        &workload,
        "# taxi's trips by time\ntpep_pickup_datetime < '2024-01-02'\n\ntrip_distance > 5\n",
    )
    .unwrap();
    let workload = workload.to_str().unwrap();
    let page = run(&["advise", &taxi(), "--predicates", workload]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    assert!(page.stdout.contains("Layout advice for"), "{}", page.stdout);
    assert!(page.stdout.contains("current layout"), "{}", page.stdout);
    assert!(page.stdout.contains("Recommended:"), "{}", page.stdout);
    let json = run(&[
        "advise",
        &taxi(),
        "--predicates",
        workload,
        "--format",
        "json",
    ]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_valid_advice(&doc);
    assert_eq!(doc["predicates"].as_array().unwrap().len(), 2);
    assert!(doc["layouts"].as_array().unwrap().len() >= 3, "{doc:#}");

    let empty = dir.path().join("empty.sql");
    std::fs::write(&empty, "# nothing\n\n").unwrap();
    let empty = empty.to_str().unwrap();
    for (args, code, fragment) in [
        (
            vec!["advise", &taxi(), "--predicates", empty],
            2,
            "holds no predicate",
        ),
        (
            vec!["advise", &taxi(), "--predicates", "/nonexistent/w.sql"],
            2,
            "cannot read /nonexistent/w.sql",
        ),
        (
            vec![
                "advise",
                &taxi(),
                "--predicates",
                workload,
                "--target-file-size",
                "12 parsecs",
            ],
            2,
            "not a unit of size",
        ),
        (
            vec!["advise", &taxi(), "--predicates", workload, "--sample", "0"],
            2,
            "--sample must be at least 1",
        ),
        (vec!["advise", &taxi()], 2, "--predicates"),
        (
            vec!["advise", "/nonexistent/table", "--predicates", workload],
            3,
            "/nonexistent/table",
        ),
    ] {
        let r = run(&args);
        assert_error(&r, &args.join(" "), code, fragment);
    }
    let help = run(&["advise", "--help"]);
    assert_eq!(help.code, 0);
    assert!(
        help.stdout.contains("--target-file-size"),
        "{}",
        help.stdout
    );
}
