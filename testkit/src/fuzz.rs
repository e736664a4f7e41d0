//! Fuzz inputs shared by the explainer's and the oracle's bounded fuzz tests: the pieces
//! predicates are made of, the token-soup strategy over them, text edits for damaging real
//! statistics, actions and schemas, and the scale of a run (`FUZZ_CASES`).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// The pieces predicates are made of, the taxi table's columns among them, plus pieces that
/// stress the parser (quotes, escapes, keywords used as names, deep openers).
pub const TOKENS: &[&str] = &[
    "fare_amount",
    "trip_distance",
    "pickup_date",
    "PULocationID",
    "passenger_count",
    "tpep_pickup_datetime",
    "FARE_AMOUNT",
    "`fare_amount`",
    "\"pickup_date\"",
    "nosuch",
    "AND",
    "OR",
    "NOT",
    "NOT (",
    "(",
    ")",
    "((",
    "))",
    ",",
    "IN (",
    "NOT IN (",
    "BETWEEN",
    "LIKE",
    "ESCAPE",
    "'!'",
    "IS NULL",
    "IS NOT NULL",
    "=",
    "!=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "0",
    "1",
    "-0.0",
    "1e300",
    "1e-400",
    "2.5",
    "NaN",
    "'NaN'",
    "99999999999999999999999999999999999999999",
    "'2024-01-03'",
    "'2024-01-0%'",
    "'a\\%'",
    "''",
    "'it''s'",
    "'\u{1F600}'",
    "'\u{FFFD}'",
    "DATE '2024-01-03'",
    "TIMESTAMP '9999-12-31'",
    "TIMESTAMP_NTZ '0001-01-01 00:00:00'",
    "NULL",
    "TRUE",
    "FALSE",
    "CAST(",
    "AS",
    "INT",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "abs(",
    "upper(",
    "EXISTS (SELECT 1)",
    "'",
    "\"",
    "`",
    ";",
    "--",
    "/*",
    "*/",
    "\\",
    "\u{0}",
    "\n",
];

/// Predicates of up to `max_tokens` pieces of [`TOKENS`], mostly separated by spaces.
pub fn token_soup(max_tokens: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        (prop::sample::select(TOKENS), prop::bool::weighted(0.85)),
        1..max_tokens,
    )
    .prop_map(|parts| join_tokens(&parts))
}

/// Runs `test` on inputs of `strategy` from a fresh random seed (every run tries new inputs; a
/// failure panics with the shrunk input, naming `target`), persisting nothing into the
/// sources. `FUZZ_SECONDS` runs it for that long, in rounds of 1,000 inputs; otherwise it
/// runs `FUZZ_CASES` inputs (else `default`). Prints how many inputs it tried.
pub fn fuzz<S>(
    target: &str,
    default: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) -> u64
where
    S: Strategy,
    S::Value: std::fmt::Debug,
{
    let deadline = std::env::var("FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(|s| std::time::Instant::now() + std::time::Duration::from_secs(s));
    let started = std::time::Instant::now();
    let mut tried = 0u64;
    loop {
        let cases = if deadline.is_some() {
            1000
        } else {
            fuzz_cases(default)
        };
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("fuzz target {target}: {e}");
        }
        tried += u64::from(cases);
        match deadline {
            Some(d) if std::time::Instant::now() < d => {}
            _ => break,
        }
    }
    eprintln!(
        "fuzz target {target}: {tried} inputs in {:.0} s, no failure",
        started.elapsed().as_secs_f64()
    );
    tried
}

/// Fuzz cases per target: `FUZZ_CASES`, else `default`.
pub fn fuzz_cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `original` with each edit `(at, insert, cut)` applied in turn: `cut` characters' worth of
/// bytes from `at` (moved to character boundaries) replaced by `insert`. The fuzz tests damage
/// real statistics, actions and schemas with it.
pub fn edit_text(original: &str, edits: &[(usize, &str, usize)]) -> String {
    let mut s = original.to_string();
    for (at, insert, cut) in edits {
        let mut at = (*at).min(s.len());
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        let mut end = (at + cut).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s.replace_range(at..end, insert);
    }
    s
}

/// Joins fuzz tokens, each followed by a space where `spaced` says so.
pub fn join_tokens(parts: &[(&str, bool)]) -> String {
    parts
        .iter()
        .map(|(t, space)| {
            if *space {
                format!("{t} ")
            } else {
                t.to_string()
            }
        })
        .collect()
}
