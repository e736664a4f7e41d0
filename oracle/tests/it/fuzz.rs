//! Bounded fuzzing of the oracle's input readers, as property tests: the predicate front end
//! (the linear gate, the respelling, DataFusion's parser and the oracle's rewrites) over token
//! soup, the action decoder over damaged actions, and the schema parser over damaged schema
//! strings. No input panics; a predicate is answered or refused (no time is asserted: a loaded
//! machine is no measure). The damaged
//! logs are in `damaged_logs.rs`. `FUZZ_CASES` scales the run.

use oracle::delta_schema::{arrow_schema, parse_schema};
use oracle::log::Snapshot;
use oracle::log::actions::Action;
use oracle::matching::{parse_predicate, session};
use proptest::prelude::*;
use testkit::fuzz::{fuzz, token_soup};
use testkit::taxi;

#[test]
fn the_predicate_front_end_answers_every_input() {
    let snapshot = Snapshot::open(&taxi(), None).unwrap();
    let schema = arrow_schema(&snapshot.fields);
    let ctx = session(1);
    fuzz(
        "oracle predicate front end, token soup",
        1500,
        token_soup(80),
        |text| {
            let _ = parse_predicate(&ctx, &schema, &text);
            Ok(())
        },
    );
    // Deep nesting of either kind, at once, on a stack as large as `delta-oracle` gives its
    // work (DataFusion recurses over the expression unprotected in places).
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(512 << 20)
            .spawn_scoped(scope, || {
                for levels in [20, 49, 99] {
                    for (text, valid) in [
                        (
                            format!(
                                "{}fare_amount > 1{}",
                                "NOT (".repeat(levels),
                                ")".repeat(levels)
                            ),
                            true,
                        ),
                        (format!("{}fare_amount > 1", "NOT (".repeat(levels)), false),
                        (
                            format!(
                                "{}fare_amount >{}",
                                "NOT (".repeat(levels),
                                ")".repeat(levels)
                            ),
                            false,
                        ),
                    ] {
                        let parsed = parse_predicate(&ctx, &schema, &text);
                        assert_eq!(parsed.is_ok(), valid, "{levels} levels: {text}: {parsed:?}");
                    }
                }
            })
            .unwrap()
            .join()
            .unwrap();
    });
}

fn damaged(original: &'static str) -> impl Strategy<Value = String> {
    let edits = prop::collection::vec(
        (
            0..original.len(),
            prop::sample::select(vec![
                "", "{", "}", "[", "]", "\"", ":", ",", "null", "1e999", "-1", "true",
            ]),
            0usize..4,
        ),
        0..6,
    );
    edits.prop_map(move |edits| testkit::fuzz::edit_text(original, &edits))
}

#[test]
fn the_action_decoder_decodes_or_refuses_every_action() {
    const ADD: &str = r#"{"add":{"path":"p=1/part-0.parquet","partitionValues":{"p":"1"},"size":100,"modificationTime":0,"dataChange":true,"stats":"{\"numRecords\":3}","deletionVector":{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":1,"sizeInBytes":34,"cardinality":2}}}"#;
    const META: &str = r#"{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":["p"],"configuration":{"delta.columnMapping.mode":"name"},"createdTime":0}}"#;
    for (target, original) in [
        ("oracle action decoder, damaged add", ADD),
        ("oracle action decoder, damaged metaData", META),
    ] {
        fuzz(target, 1500, damaged(original), |text| {
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) {
                let _ = Action::from_json(value);
            }
            Ok(())
        });
    }
}

#[test]
fn the_schema_parser_parses_or_refuses_every_schema() {
    const SCHEMA: &str = r#"{"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-1"}},{"name":"d","type":"decimal(38,18)","nullable":true,"metadata":{}},{"name":"s","type":{"type":"struct","fields":[{"name":"t","type":"timestamp_ntz","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"integer","containsNull":true},"valueContainsNull":true},"nullable":true,"metadata":{}}]}"#;
    fuzz("oracle schema parser", 2000, damaged(SCHEMA), |text| {
        if let Ok(fields) = parse_schema(&text) {
            let _ = arrow_schema(&fields);
        }
        Ok(())
    });
}
