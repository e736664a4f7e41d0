//! Every predicate up to 64 KB, whatever its shape, gets through the front end (parse,
//! normalize, classify, lower) or is refused with exit 2, with the work linear in its length:
//! nested and unbalanced `NOT (`, bare parentheses, long AND/OR chains, long IN lists, LIKE
//! escapes. Each case names the outcome it must have; deep but valid nesting parses as what it
//! says, never as a function named NOT.
//!
//! The shapes are in front_end_shapes.rs. The time each case takes is printed, never
//! asserted (a loaded machine is no measure): the benchmark `cargo bench -p delta-explain
//! --bench front_end` times every shape in a release build, where a parse that is not linear
//! shows (a nested `NOT (` of 20 levels once took 6 s, each level doubling it). The timings of
//! one run are in `reports/fuzz-20261201/`.

use std::time::{Duration, Instant};

use crate::front_end_shapes::{Expect, cases, front_end};
use crate::support::taxi;

#[test]
fn every_shape_up_to_64_kb_is_answered_or_refused_at_once() {
    let table = explain_core::replay::ReplayedTable::open(&taxi(), None).unwrap();
    let columns = table.columns();
    let mut slowest = (Duration::ZERO, String::new());
    for (name, text, expect) in cases() {
        let started = Instant::now();
        let outcome = front_end(&text, columns);
        let took = started.elapsed();
        eprintln!("{name}: {} bytes, {took:?}", text.len());
        if took > slowest.0 {
            slowest = (took, name.clone());
        }
        match (expect, outcome) {
            (Expect::Normalized(want), Ok(got)) => {
                assert!(
                    want.is_empty() || got == want,
                    "{name}: normalized to `{}`, expected `{want}`",
                    got.chars().take(200).collect::<String>()
                );
            }
            (Expect::Normalized(_), Err((_, e))) => panic!("{name}: refused: {e}"),
            (Expect::Refused(want), Err((code, message))) => {
                assert_eq!(code, 2, "{name}: exit code of `{message}`");
                assert!(
                    message.contains(want),
                    "{name}: `{message}` should say `{want}`"
                );
                assert!(!message.contains('\n'), "{name}: one line: {message}");
                assert!(message.len() < 400, "{name}: a short message: {message}");
            }
            (Expect::Refused(want), Ok(got)) => panic!(
                "{name}: accepted as `{}`; expected a refusal saying `{want}`",
                got.chars().take(200).collect::<String>()
            ),
        }
    }
    eprintln!("slowest: {} in {:?}", slowest.1, slowest.0);
}

/// A 10,000-value IN list, and the 10,000 conjuncts its NOT IN becomes: the text page shows
/// the first values and counts the rest, wherever it repeats the predicate (every option
/// that prints it on); the JSON keeps every value.
#[test]
fn long_lists_are_abbreviated_on_the_page_and_whole_in_json() {
    use crate::support::{run, run_json};
    let values: Vec<String> = (0..10_000).map(|i| i.to_string()).collect();
    let table = taxi();
    for negated in ["", "NOT "] {
        let predicate = format!("PULocationID {negated}IN ({})", values.join(", "));
        // `--explain-why` scans once per conjunct: the diagnoses are checked on a shorter
        // list below.
        let mut args = vec![table.as_str(), "-w", &predicate, "--layers", "-v"];
        if negated.is_empty() {
            args.push("--explain-why");
        }
        let page = run(&args);
        assert_eq!(page.code, 0, "{}", page.stderr);
        assert!(
            page.stdout.len() < 20_000,
            "{negated}IN: a page of {} bytes",
            page.stdout.len()
        );
        assert!(
            page.stdout.contains(&format!(
                "PULocationID {negated}IN (0, 1, 2, 3, 4, ... 9,995 more)"
            )),
            "{negated}IN: {}",
            &page.stdout[..page.stdout.len().min(2_000)]
        );
        let doc = run_json(&[&table, "-w", &predicate]);
        assert_eq!(doc["predicate"].as_str(), Some(predicate.as_str()));
    }
}

/// Diagnoses of one code are shown ten at a time on the page and counted beyond.
#[test]
fn many_diagnoses_of_one_code_are_counted_on_the_page() {
    use crate::support::run;
    let values: Vec<String> = (0..60).map(|i| i.to_string()).collect();
    let predicate = format!("PULocationID NOT IN ({})", values.join(", "));
    let page = run(&[&taxi(), "-w", &predicate, "--explain-why"]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    assert_eq!(
        page.stdout.matches("WEAK_DATA_SKIPPING:").count(),
        10,
        "{}",
        page.stdout
    );
    assert!(
        page.stdout
            .contains("... 50 more WEAK_DATA_SKIPPING diagnoses (every one is in the JSON report)"),
        "{}",
        page.stdout
    );
}
