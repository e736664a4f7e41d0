//! Pitfalls of ../shared/pitfalls.md on the real tables that carry them: the file that holds
//! the matching row stays, and the report says why a bound was not trusted.

use crate::support::{fixtures, run_json};

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
        let kept: Vec<&str> = doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kept"] == true)
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert!(
            kept.iter().any(|p| p.contains(file)),
            "{table}: `{predicate}` keeps {file}: {kept:?}"
        );
        let codes: Vec<&str> = doc["analysis"]["hazards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["code"].as_str().unwrap())
            .collect();
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
