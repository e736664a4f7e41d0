//! Every predicate up to 64 KB, whatever its shape, gets through the front end (parse,
//! normalize, classify, lower) or is refused with exit 2, with the work linear in its length:
//! nested and unbalanced `NOT (`, bare parentheses, long AND/OR chains, long IN lists, LIKE
//! escapes. Each case names the outcome it must have; deep but valid nesting parses as what it
//! says, never as a function named NOT.
//!
//! The time each case takes is printed; the assertion allows 2 s per case on a debug build,
//! which only an exponential parse exceeds (a nested `NOT (` of 20 levels took 6 s, and each
//! level doubled it). The timings of one run are in `reports/fuzz-20261201/`.

use std::time::{Duration, Instant};

use explain_core::explain::{CompiledPredicate, ExplainOptions, kernel_scans};
use explain_core::schema::TableColumns;

use crate::support::taxi;

/// What a case must come to.
enum Expect {
    /// Compiles; its normalized form is this (or anything, when empty).
    Normalized(&'static str),
    /// Refused with exit 2 and a message containing this.
    Refused(&'static str),
}

fn nested_not(levels: usize, inner: &str, closed: bool) -> String {
    let close = if closed {
        ")".repeat(levels)
    } else {
        String::new()
    };
    format!("{}{inner}{close}", "NOT (".repeat(levels))
}

fn cases() -> Vec<(String, String, Expect)> {
    use Expect::*;
    let mut out: Vec<(String, String, Expect)> = Vec::new();
    let mut add = |name: &str, text: String, expect: Expect| {
        assert!(text.len() <= 64 * 1024, "{name}: {} bytes", text.len());
        out.push((name.to_string(), text, expect));
    };
    // Nested NOT, balanced: even and odd depths within the limit read as what they say.
    add(
        "not-balanced-10",
        nested_not(10, "fare_amount > 1", true),
        Normalized("fare_amount > 1"),
    );
    add(
        "not-balanced-49",
        nested_not(49, "fare_amount > 1", true),
        Normalized("fare_amount <= 1"),
    );
    add(
        "not-balanced-51",
        nested_not(51, "fare_amount > 1", true),
        Refused("nests more than 100 levels"),
    );
    add(
        "not-balanced-120",
        nested_not(120, "fare_amount > 1", true),
        Refused("nests more than 100 levels"),
    );
    add(
        "not-balanced-64kb",
        nested_not(10_000, "fare_amount > 1", true),
        Refused("nests more than 100 levels"),
    );
    // Nested NOT, unbalanced: a clear error at once.
    for levels in [5, 18, 30, 40] {
        add(
            &format!("not-unclosed-{levels}"),
            nested_not(levels, "fare_amount > 1", false),
            Refused("`(` never closed"),
        );
    }
    add(
        "not-unclosed-64kb",
        nested_not(13_000, "fare_amount > 1", false),
        Refused("nests more than 100 levels"),
    );
    // A syntax error at the bottom of a deep valid nest.
    add(
        "not-balanced-error-inside",
        nested_not(49, "fare_amount >", true),
        Refused("malformed SQL"),
    );
    add(
        "not-balanced-error-inside-partition",
        nested_not(45, "pickup_date = = '2024-01-01'", true),
        Refused("malformed SQL"),
    );
    // NOT without parentheses.
    add(
        "not-chain-99",
        format!("{}fare_amount > 1", "NOT ".repeat(99)),
        Normalized("fare_amount <= 1"),
    );
    add(
        "not-chain-64kb",
        format!("{}fare_amount > 1", "NOT ".repeat(16_000)),
        Refused("nests more than 100 levels"),
    );
    // Bare parentheses.
    add(
        "parens-99",
        format!("{}fare_amount > 1{}", "(".repeat(99), ")".repeat(99)),
        Normalized("fare_amount > 1"),
    );
    add(
        "parens-101",
        format!("{}fare_amount > 1{}", "(".repeat(101), ")".repeat(101)),
        Refused("nests more than 100 levels"),
    );
    add(
        "parens-unclosed-64kb",
        format!("{}fare_amount > 1", "(".repeat(60_000)),
        Refused("nests more than 100 levels"),
    );
    add(
        "parens-extra-close",
        "fare_amount > 1)".to_string(),
        Refused("closes no `(`"),
    );
    add(
        "parens-close-then-open",
        ")fare_amount > 1(".to_string(),
        Refused("closes no `(`"),
    );
    // Alternating AND/OR nested 45 deep.
    let mut alternating = "fare_amount > 0".to_string();
    for i in 0..45 {
        let op = if i % 2 == 0 { "OR" } else { "AND" };
        alternating = format!("(trip_distance > {i} {op} {alternating})");
    }
    add("and-or-nested-45", alternating, Normalized(""));
    // Wide chains: thousands of conjuncts, disjuncts.
    let conjuncts: Vec<String> = (0..2800).map(|i| format!("fare_amount > {i}")).collect();
    add("and-chain-64kb", conjuncts.join(" AND "), Normalized(""));
    let disjuncts: Vec<String> = (0..1100)
        .map(|i| {
            format!(
                "(trip_distance < {i} AND pickup_date = '2024-01-0{}')",
                i % 9 + 1
            )
        })
        .collect();
    add("or-chain-64kb", disjuncts.join(" OR "), Normalized(""));
    // Long IN lists.
    let values: Vec<String> = (0..9_000).map(|i| i.to_string()).collect();
    add(
        "in-list-9000",
        format!("PULocationID IN ({})", values.join(", ")),
        Normalized(""),
    );
    add(
        "not-in-list-9000",
        format!("PULocationID NOT IN ({})", values.join(", ")),
        Normalized(""),
    );
    let dates: Vec<String> = (0..4_000)
        .map(|i| format!("'2024-{:02}-{:02}'", i % 12 + 1, i % 28 + 1))
        .collect();
    add(
        "in-list-partition-4000",
        format!("pickup_date IN ({})", dates.join(", ")),
        Normalized(""),
    );
    // LIKE with escapes.
    add(
        "like-escapes-64kb",
        format!("pickup_date LIKE '{}%'", "\\%".repeat(30_000)),
        Normalized(""),
    );
    add(
        "like-escape-clause",
        format!("pickup_date LIKE '{}%' ESCAPE '!'", "!_".repeat(30_000)),
        Normalized(""),
    );
    // Functions nested within the limit stay unsupported fragments.
    add(
        "functions-nested-40",
        format!("{}fare_amount{} > 1", "abs(".repeat(40), ")".repeat(40)),
        Normalized(""),
    );
    // Junk.
    add(
        "unterminated-string",
        "pickup_date = '2024-01-01".to_string(),
        Refused("malformed SQL"),
    );
    add(
        "operators-only-64kb",
        "AND OR NOT ".repeat(5_900),
        Refused(""),
    );
    add(
        "empty-parens-64kb",
        "()".repeat(30_000),
        Refused("malformed SQL"),
    );
    out
}

/// The front end of one predicate: compile (parse, normalize, classify) and lower.
fn front_end(text: &str, columns: &TableColumns) -> Result<String, (i32, String)> {
    let compiled = CompiledPredicate::compile_against(text, columns)
        .map_err(|e| (e.exit_code(), e.to_string()))?;
    kernel_scans(&compiled, columns, ExplainOptions::default())
        .map_err(|e| (e.exit_code(), e.to_string()))?;
    Ok(compiled.normalized.to_string())
}

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
        assert!(
            took < Duration::from_secs(2),
            "{name}: the front end took {took:?} on {} bytes",
            text.len()
        );
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
