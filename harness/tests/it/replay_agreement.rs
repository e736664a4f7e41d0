//! Replay agreement (harness invariant 4, first half): the oracle's own replay and
//! delta_kernel's give the same live files at every version of every fixture; and on the
//! reference predicates the files that really match lie inside explain-core's kept set.

use explain_core::explain::explain;
use explain_core::replay::ReplayedTable;
use harness::{kept_paths, kernel_paths, matching_paths, oracle_paths};
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;

#[test]
fn live_files_agree_at_every_version_of_every_table() {
    let mut compared = 0;
    for table in testkit::all_tables() {
        let location = table.to_string_lossy().into_owned();
        let latest = Snapshot::open(&location, None)
            .unwrap_or_else(|e| panic!("{location}: {e}"))
            .version;
        for version in 0..=latest {
            let oracle = match Snapshot::open(&location, Some(version)) {
                Ok(s) => s,
                // Versions before a retained checkpoint may be gone from the log: then the
                // kernel must refuse them too.
                Err(e) => {
                    assert!(
                        ReplayedTable::open(&location, Some(version)).is_err(),
                        "{location}@{version}: oracle: {e}"
                    );
                    continue;
                }
            };
            let kernel = ReplayedTable::open(&location, Some(version))
                .unwrap_or_else(|e| panic!("{location}@{version}: kernel: {e}"));
            assert_eq!(
                oracle_paths(&oracle),
                kernel_paths(&kernel),
                "{location}@{version}: live files"
            );
            compared += 1;
        }
    }
    assert!(compared >= 30, "only {compared} snapshots compared");
}

#[test]
fn reference_predicates_match_inside_the_kept_files() {
    let location = testkit::taxi();
    let kernel = ReplayedTable::open(&location, None).unwrap();
    let loaded = LoadedTable::load(Snapshot::open(&location, None).unwrap(), &plan(2)).unwrap();
    let cases: &[(&str, usize)] = &[
        ("pickup_date = '2024-01-03' AND trip_distance > 5", 2),
        ("trip_distance > 8", 7),
    ];
    for (predicate, kept_count) in cases {
        let explanation = explain(&kernel, Some(predicate)).unwrap();
        let kept = kept_paths(&kernel, &explanation);
        assert_eq!(
            kept.len(),
            *kept_count,
            "{predicate}: explain-core keeps the reference count"
        );
        let matching = matching_paths(&loaded.snapshot, &loaded.matching_rows(predicate).unwrap());
        assert!(!matching.is_empty(), "{predicate}: some file matches");
        assert!(
            matching.is_subset(&kept),
            "{predicate}: matching {matching:?} not within kept {kept:?}"
        );
    }
}
