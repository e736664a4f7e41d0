//! `--explain-why`: each diagnosis code fires where it should, and only there.

use crate::support::{assert_golden, fixtures, run, run_json, taxi};

/// `(table under the fixtures, predicate, the diagnosis codes in order)`.
const CASES: &[(&str, &str, &[&str])] = &[
    // Partition and data skipping both prune well: only the NaN advice remains.
    (
        "taxi-nyc",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
        &["NAN_UNGUARDED_BOUNDS"],
    ),
    (
        "taxi-nyc",
        "pickup_date = '2024-01-03' AND passenger_count > 5",
        &[],
    ),
    (
        "taxi-nyc",
        "pickup_date = '2024-01-03' AND fare_amount < 5",
        &["WEAK_DATA_SKIPPING", "NAN_UNGUARDED_BOUNDS"],
    ),
    // Every file's trip_distance range admits `> 0`, and no partition filter.
    (
        "taxi-nyc",
        "trip_distance > 0.1",
        &[
            "NO_PARTITION_FILTER",
            "WEAK_DATA_SKIPPING",
            "NAN_UNGUARDED_BOUNDS",
        ],
    ),
    // A comparison with zero takes the zero that keeps more, and still prunes as the kernel does.
    (
        "taxi-nyc",
        "trip_distance > 0",
        &[
            "NO_PARTITION_FILTER",
            "WEAK_DATA_SKIPPING",
            "NAN_UNGUARDED_BOUNDS",
        ],
    ),
    (
        "taxi-nyc",
        "UPPER(pickup_date) = '2024-01-03' AND trip_distance > 8",
        &[
            "NO_PARTITION_FILTER",
            "UNSUPPORTED_FRAGMENT",
            "NAN_UNGUARDED_BOUNDS",
        ],
    ),
    (
        "taxi-nyc",
        "pickup_date = '2024-01-03' OR trip_distance > 30",
        &[
            "NO_PARTITION_FILTER",
            "UNSPLITTABLE_OR",
            "NAN_UNGUARDED_BOUNDS",
        ],
    ),
    (
        "taxi-nyc",
        "pickup_date = '2024-01-03' AND passenger_count IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21)",
        &["UNSUPPORTED_FRAGMENT"],
    ),
    (
        "taxi-nyc",
        "trip_distance = NULL",
        &["PREDICATE_ALWAYS_FALSE"],
    ),
    ("taxi-nyc", "1 = 1", &["PREDICATE_ALWAYS_TRUE"]),
    // The current configuration indexes no column, so recorded bounds are ignored.
    (
        "real/data-skipping-change-stats-collected-across-versions",
        "col2 > 1",
        &["STATS_ABSENT"],
    ),
    // The checkpoint records statistics only as `stats_parsed`; read there, every file has
    // them, and the filter admits most files.
    (
        "real/delta-1.2.1-only-struct-stats",
        "integer > 0",
        &["WEAK_DATA_SKIPPING"],
    ),
];

#[test]
fn diagnosis_codes() {
    for (table, predicate, expected) in CASES {
        let location = fixtures().join(table).to_string_lossy().into_owned();
        let doc = run_json(&[&location, "-w", predicate, "--explain-why"]);
        let diagnoses = doc["diagnoses"]
            .as_array()
            .unwrap_or_else(|| panic!("{table}: `{predicate}`: diagnoses[]"));
        let codes: Vec<&str> = diagnoses
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        assert_eq!(&codes, expected, "{table}: `{predicate}`");
        for d in diagnoses {
            for field in ["message", "suggestion"] {
                assert!(
                    !d[field].as_str().unwrap().is_empty(),
                    "{table}: `{predicate}`: {field} of {d}"
                );
            }
            assert!(
                ["info", "warning"].contains(&d["severity"].as_str().unwrap()),
                "{d}"
            );
        }
    }
}

#[test]
fn diagnoses_only_with_the_flag() {
    let doc = run_json(&[&taxi(), "-w", "trip_distance > 0.1"]);
    assert!(
        doc.get("diagnoses").is_none(),
        "no diagnoses without --explain-why"
    );
    let r = run(&[&taxi(), "--explain-why"]);
    assert_eq!(r.code, 2, "--explain-why needs a predicate: {}", r.stderr);
}

#[test]
fn a_weak_filter_says_its_ranges_overlap_everywhere() {
    let doc = run_json(&[&taxi(), "-w", "trip_distance > 0.1", "--explain-why"]);
    let weak = doc["diagnoses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "WEAK_DATA_SKIPPING")
        .unwrap();
    let message = weak["message"].as_str().unwrap();
    assert!(message.contains("prunes 0 of the 20 file(s)"), "{message}");
    assert!(message.contains("admits it in 20 of the 20"), "{message}");
}

#[test]
fn explain_why_pages() {
    let cases = [
        ("explain-why-weak.txt", "trip_distance > 0.1"),
        (
            "explain-why-unsupported.txt",
            "UPPER(pickup_date) = '2024-01-03' AND trip_distance > 8",
        ),
    ];
    for (golden, predicate) in cases {
        let r = run(&[&taxi(), "-w", predicate, "--explain-why"]);
        assert_eq!(r.code, 0, "{predicate}: {}", r.stderr);
        assert_golden(golden, &r.stdout);
    }
}
