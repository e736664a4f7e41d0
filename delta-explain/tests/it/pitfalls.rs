//! Pitfalls of ../shared/pitfalls.md on the real tables that carry them: the file that holds
//! the matching row stays, and the report says why a bound was not trusted.

use crate::support::{analysis_codes, fixtures, kept_paths, run_json};

/// `(table, predicate, the file kept must contain this, hazard code expected)`.
const CASES: &[(&str, &str, &str, &str)] = &[
    // Pitfall 7: a float column widened to double keeps the stat 3.4 for 3.4000000953674316.
    (
        "real/type-widening",
        "float_double = 3.4000000953674316",
        "part-00000-f6dbc649",
        "TYPE_WIDENING_STATS",
    ),
    (
        "real/type-widening",
        "float_double > 3.4",
        "part-00000-f6dbc649",
        "TYPE_WIDENING_STATS",
    ),
];

#[test]
fn untrusted_bounds_keep_the_file_and_say_so() {
    for (table, predicate, file, note) in CASES {
        let location = fixtures().join(table).to_string_lossy().into_owned();
        let doc = run_json(&[&location, "-w", predicate, "-v"]);
        let kept = kept_paths(&doc);
        assert!(
            kept.iter().any(|p| p.contains(file)),
            "{table}: `{predicate}` keeps {file}: {kept:?}"
        );
        let codes = analysis_codes(&doc, "hazards");
        assert!(
            codes.contains(note),
            "{table}: `{predicate}`: hazards {codes:?}"
        );
        assert_eq!(
            doc["analysis"]["confidence"], "conservative",
            "{table}: `{predicate}`: a guard is not a lower confidence"
        );
        // Narrowly: the widened literal still prunes files whose bounds exclude it.
        assert!(
            doc["final_files"].as_u64() < doc["total_files"].as_u64(),
            "{table}: `{predicate}` still prunes: {kept:?}"
        );
    }
}

/// An empty binary partition value, as delta-rs writes an empty non-NULL value: delta_kernel
/// reads the empty binary, delta-rs reads NULL (measured with deltalake 1.6). Whatever the
/// predicate on the column, its file is kept, and the note names the value; the other values
/// still prune, binary literals (`X'6162'`) included.
#[test]
fn an_empty_binary_partition_value_is_kept_under_either_reading() {
    let dir = tempfile::tempdir().unwrap();
    let fields = [
        serde_json::json!({"name": "b", "type": "binary", "nullable": true, "metadata": {}}),
        serde_json::json!({"name": "v", "type": "long", "nullable": true, "metadata": {}}),
    ];
    let schema = delta_commit::schema_string(&fields);
    let file = |path: &str, value: Option<&str>| {
        delta_commit::add(
            path,
            &[("b".to_string(), value.map(str::to_string))],
            100,
            Some(
                "{\"numRecords\":1,\"minValues\":{\"v\":1},\"maxValues\":{\"v\":1},\"nullCount\":{\"v\":0}}",
            ),
            Default::default(),
        )
    };
    let actions = [
        delta_commit::protocol(&[], &[]),
        delta_commit::metadata("empty-binary", &schema, &["b"], Default::default()),
        file("b=/empty.parquet", Some("")),
        file("b=__HIVE_DEFAULT_PARTITION__/null.parquet", None),
        file("b=ab/ab.parquet", Some("ab")),
    ];
    delta_commit::write_commit(&dir.path().join("_delta_log"), 0, &actions).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    for (predicate, kept_expected) in [
        (
            "b IS NULL",
            vec![
                "b=/empty.parquet",
                "b=__HIVE_DEFAULT_PARTITION__/null.parquet",
            ],
        ),
        ("b IS NOT NULL", vec!["b=/empty.parquet", "b=ab/ab.parquet"]),
        // A binary literal prunes by the bytes of each value's text.
        ("b = X'6162'", vec!["b=/empty.parquet", "b=ab/ab.parquet"]),
        ("b = X'6364'", vec!["b=/empty.parquet"]),
        (
            "b IN (X'6364', X'6162')",
            vec!["b=/empty.parquet", "b=ab/ab.parquet"],
        ),
        ("b > X'61'", vec!["b=/empty.parquet", "b=ab/ab.parquet"]),
        ("b < X'61'", vec!["b=/empty.parquet"]),
        ("b != X'6162'", vec!["b=/empty.parquet"]),
        (
            "b IS NULL AND v = 1",
            vec![
                "b=/empty.parquet",
                "b=__HIVE_DEFAULT_PARTITION__/null.parquet",
            ],
        ),
    ] {
        for strict in [false, true] {
            let mut args = vec![location.as_str(), "-w", predicate, "-v"];
            if strict {
                args.push("--strict");
            }
            let doc = run_json(&args);
            assert_eq!(
                kept_paths(&doc),
                kept_expected,
                "`{predicate}` (strict {strict})"
            );
            let notes = analysis_codes(&doc, "notes");
            assert!(
                notes.contains(&"PARTITION_VALUE_DISTRUSTED"),
                "`{predicate}`: notes {notes:?}"
            );
        }
    }
}
