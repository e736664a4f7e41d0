//! Soundness on the real fixtures (harness invariant 1): for predicates over every column of
//! every table, explain-core's final kept set holds every file with a matching row, and so
//! does DataFusion's statistics pruning over the oracle's replay.

use explain_core::explain::explain;
use explain_core::replay::ReplayedTable;
use harness::{kept_paths, matching_paths};
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;
use oracle::pruning::kept_by_statistics;

/// Literals of each primitive type that both SQL front ends accept.
fn literals(type_name: &str) -> &'static [&'static str] {
    match type_name {
        "byte" | "short" | "integer" | "long" => &["0", "1", "100"],
        "float" | "double" => &["0", "1.5", "100"],
        "string" => &["'a'", "'m'", "''"],
        "boolean" => &["TRUE", "FALSE"],
        "date" => &["'2021-01-01'", "'2023-01-02'"],
        "timestamp" | "timestamp_ntz" => &["'2021-01-01 00:00:00'", "'2013-07-05 17:01:00.123456'"],
        t if t.starts_with("decimal") => &["0", "1"],
        _ => &[],
    }
}

#[test]
fn kept_sets_hold_every_matching_file() {
    let mut checked = 0;
    for table in testkit::all_tables() {
        let location = table.to_string_lossy().into_owned();
        let kernel = ReplayedTable::open(&location, None).unwrap();
        let loaded = LoadedTable::load(Snapshot::open(&location, None).unwrap(), &plan(2)).unwrap();
        for field in loaded.snapshot.fields.clone() {
            let type_name = match &field.data_type {
                oracle::delta_schema::DeltaType::Primitive(p) => p.clone(),
                oracle::delta_schema::DeltaType::Decimal { .. } => "decimal".to_string(),
                _ => continue,
            };
            let col = format!("\"{}\"", field.name);
            let mut predicates = vec![format!("{col} IS NULL"), format!("{col} IS NOT NULL")];
            for lit in literals(&type_name) {
                for op in ["=", "!=", "<", "<=", ">", ">="] {
                    predicates.push(format!("{col} {op} {lit}"));
                }
                predicates.push(format!("NOT ({col} = {lit} OR {col} IS NULL)"));
            }
            for predicate in predicates {
                let ctx = format!("{location}: `{predicate}`");
                let explanation = explain(&kernel, Some(&predicate))
                    .unwrap_or_else(|e| panic!("{ctx}: explain: {e}"));
                let matching_rows = loaded
                    .matching_rows(&predicate)
                    .unwrap_or_else(|e| panic!("{ctx}: oracle: {e}"));
                let matching = matching_paths(&loaded.snapshot, &matching_rows);
                let kept = kept_paths(&kernel, &explanation);
                assert!(
                    matching.is_subset(&kept),
                    "{ctx}: explain-core dropped {:?}",
                    matching.difference(&kept).collect::<Vec<_>>()
                );
                let stats_kept = kept_by_statistics(&loaded.snapshot, &predicate)
                    .unwrap_or_else(|e| panic!("{ctx}: pruning: {e}"));
                for (i, file) in loaded.snapshot.files.iter().enumerate() {
                    assert!(
                        matching_rows[i] == 0 || stats_kept[i],
                        "{ctx}: statistics pruning dropped {}",
                        file.path
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "only {checked} predicates checked");
}
