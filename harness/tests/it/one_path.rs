//! The harness's checks read the answer users get. For every corpus predicate on its fixture,
//! in default and `--strict` mode:
//! - the files the checks' explanation keeps ([`harness::checks::explained`], what the
//!   soundness, degradation, equivalence and campaign checks read) are the files the
//!   command's JSON report marks kept;
//! - the report the checks' entry point builds with the command's options
//!   ([`harness::checks::answer`]) is the command's JSON report, field for field (the time
//!   taken aside).
//!
//! The command runs in process, from its arguments (`delta_explain::cli::run`), over the
//! whole corpus file (`--predicates`, one streamed replay for every predicate); the checks
//! ask one predicate at a time. A change that lets the two paths drift fails here.

use explain_core::request::Options;
use harness::checks::{answer, explained};
use harness::corpus::{corpora_dir, read_corpus};
use harness::subject::Subject;
use serde_json::Value;

/// The fixture a corpus file belongs to.
fn fixture_of(corpus: &str) -> String {
    if corpus == "taxi-nyc" {
        testkit::taxi()
    } else {
        testkit::fixtures()
            .join("real")
            .join(corpus)
            .display()
            .to_string()
    }
}

/// The command's JSON reports of every predicate of `corpus` on `table`, in order.
fn command_reports(table: &str, corpus: &str, strict: bool) -> Vec<Value> {
    let mut argv = vec![
        "delta-explain",
        table,
        "--predicates",
        corpus,
        "--format",
        "json",
        "--verbose",
        "--explain-why",
    ];
    if strict {
        argv.push("--strict");
    }
    let args = <delta_explain::cli::Args as clap::Parser>::try_parse_from(&argv)
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    let out = delta_explain::cli::run(&args).unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    assert_eq!(out.exit_code, 0, "{argv:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{argv:?}: JSON ({e})"))
}

fn without_time(mut doc: Value) -> Value {
    if let Some(object) = doc.as_object_mut() {
        object.insert("elapsed_ms".into(), 0.into());
    }
    doc
}

/// The paths a report's per-file view marks kept, sorted.
fn kept_paths(report: &Value) -> Vec<String> {
    assert_eq!(report["files_truncated"], false, "every file listed");
    let mut kept: Vec<String> = report["files"]
        .as_array()
        .expect("the per-file view")
        .iter()
        .filter(|f| f["kept"] == true)
        .map(|f| f["path"].as_str().expect("a path").to_string())
        .collect();
    kept.sort();
    kept
}

/// One corpus in one mode: the predicates compared, or the first difference.
fn compare(name: &str, subject: &Subject, strict: bool) -> usize {
    let corpus = corpora_dir().join(format!("{name}.txt"));
    let predicates = read_corpus(&corpus).unwrap();
    let reports = command_reports(&subject.location, corpus.to_str().unwrap(), strict);
    assert_eq!(
        reports.len(),
        predicates.len(),
        "{name}: one report a predicate"
    );
    for (predicate, command) in predicates.iter().zip(reports) {
        let context = format!("{name} (strict: {strict}): `{predicate}`");
        let checked = explained(subject, predicate, strict)
            .unwrap_or_else(|e| panic!("{context}: the checks' explanation failed: {e}"));
        let mut checks_kept: Vec<String> = checked
            .kept
            .members()
            .map(|i| subject.kernel.path(i).to_string())
            .collect();
        // The per-file view lists files by path.
        checks_kept.sort();
        assert_eq!(
            checks_kept,
            kept_paths(&command),
            "{context}: the checks keep other files than the command"
        );
        let options = Options {
            strict,
            verbose: true,
            explain_why: true,
            ..Options::default()
        };
        let report = answer(subject, predicate, options)
            .unwrap_or_else(|e| panic!("{context}: the checks' answer failed: {e}"))
            .report;
        let built: Value = serde_json::from_str(&report.to_json()).expect("the report is JSON");
        assert_eq!(
            without_time(built),
            without_time(command),
            "{context}: the checks' report is not the command's"
        );
    }
    predicates.len()
}

#[test]
fn the_checks_read_the_answer_the_command_gives_on_every_corpus_predicate() {
    let mut names: Vec<String> = std::fs::read_dir(corpora_dir())
        .expect("corpora/ is readable")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 20, "the corpora are found ({names:?})");
    // Two workers, a corpus at a time.
    let compared: usize = workers::map(names.iter().collect(), 2, oracle::DEEP_STACK, |name| {
        let subject = Subject::load(name, &fixture_of(name)).unwrap();
        [false, true]
            .into_iter()
            .map(|strict| compare(name, &subject, strict))
            .sum::<usize>()
    })
    .into_iter()
    .sum();
    assert!(
        compared > 7_000,
        "every corpus predicate in both modes ({compared})"
    );
}
