//! Bounded fuzzing of the explainer's input readers, as property tests: the SQL front end
//! (parse, normalize, classify, lower) over token soup and raw text, and the statistics JSON
//! reader over damaged statistics. No input panics; every refusal is exit 2 (the time an input
//! takes is the benchmark's: benches/front_end.rs). `FUZZ_CASES` scales the run (the default keeps `cargo test` to a
//! few seconds here); `docs/campaign.md` says how to run it for an hour.

use std::sync::OnceLock;

use explain_compiler::schema::TableColumns;
use explain_core::explain::{CompiledPredicate, ExplainOptions, kernel_scans};
use explain_core::file_stats::FileStats;
use proptest::prelude::*;
use testkit::fuzz::{fuzz, token_soup};

use crate::support::taxi;

fn columns() -> &'static TableColumns {
    static COLUMNS: OnceLock<TableColumns> = OnceLock::new();
    COLUMNS.get_or_init(|| {
        explain_core::replay::ReplayedTable::open(&taxi(), None)
            .unwrap()
            .columns()
            .clone()
    })
}

/// The front end on one input: Ok, or a refusal with exit 2 (its time is the benchmark's,
/// benches/front_end.rs; a hang would stop the test).
fn front_end_answers(text: &str) -> Result<(), TestCaseError> {
    let outcome = CompiledPredicate::compile_against(text, columns()).and_then(|compiled| {
        kernel_scans(&compiled, columns(), ExplainOptions::default()).map(|_| ())
    });
    if let Err(e) = outcome {
        prop_assert_eq!(e.exit_code(), 2, "{} on {:?}", e, text);
        prop_assert!(!e.to_string().contains('\n'), "one line: {}", e);
    }
    Ok(())
}

#[test]
fn the_sql_front_end_answers_every_input() {
    fuzz(
        "explainer SQL front end, token soup",
        4000,
        token_soup(120),
        |text| front_end_answers(&text),
    );
    fuzz(
        "explainer SQL front end, arbitrary strings",
        1000,
        any::<String>(),
        |text| front_end_answers(&text),
    );
}

/// A real statistics string, damaged: bytes cut, replaced or inserted at random.
fn damaged_stats() -> impl Strategy<Value = String> {
    const STATS: &str = r#"{"numRecords":50,"minValues":{"fare_amount":-5.5,"pickup_date":"2024-01-03","tpep_pickup_datetime":"2024-01-03T00:00:00.000Z","nested":{"a":1}},"maxValues":{"fare_amount":1e308,"pickup_date":"2024-01-03\ud83d","tpep_pickup_datetime":"2024-01-03T23:59:59.999Z","nested":{"a":[1,2]}},"nullCount":{"fare_amount":0,"pickup_date":-1,"nested":{"a":"x"}},"tightBounds":true}"#;
    let edits = prop::collection::vec(
        (
            0..STATS.len(),
            prop::sample::select(vec![
                "", "{", "}", "[", "\"", ":", ",", "null", "1e999", "\\u0000", "-",
            ]),
            0usize..4,
        ),
        0..6,
    );
    edits.prop_map(|edits| testkit::fuzz::edit_text(STATS, &edits))
}

#[test]
fn the_statistics_reader_reads_or_ignores_every_input() {
    let path = |s: &str| vec![s.to_string()];
    fuzz(
        "explainer statistics JSON reader",
        4000,
        damaged_stats(),
        |text| {
            if let Some(stats) = FileStats::parse(Some(&text)) {
                for column in [
                    "fare_amount",
                    "pickup_date",
                    "tpep_pickup_datetime",
                    "nested",
                ] {
                    let _ = stats.min(&path(column));
                    let _ = stats.max(&path(column));
                    let _ = stats.nulls(&path(column));
                    let _ = stats.covers(&path(column));
                }
            }
            Ok(())
        },
    );
}
