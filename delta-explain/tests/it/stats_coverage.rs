//! `analysis.stats_coverage` against a count made without the explainer: every fixture's
//! corpus explained with the per-file view, and each coverage entry recounted from the log as
//! the oracle replays it (its own reader of the log, no kernel): the raw statistics of each
//! file partition pruning kept, at the column's physical path, and the table's statistics
//! columns read off its configuration.

use std::collections::HashMap;

use oracle::delta_schema::{DeltaField, DeltaType};
use serde_json::Value;

use crate::support::{fixtures, run, taxi};

/// A statistics column: its physical path, and whether min/max may be collected for its type
/// (the protocol's data skipping leaves booleans, binaries, arrays and maps to their null
/// counts).
struct StatsColumn {
    path: Vec<String>,
    min_max: bool,
}

/// The statistics columns: `delta.dataSkippingStatsColumns` when set, else the first
/// `delta.dataSkippingNumIndexedCols` (32 by default, -1 every one) leaf columns of the data
/// schema (partition columns aside; an array or a map is one leaf), in schema order. Keyed by
/// the logical dotted name.
fn statistics_columns(
    fields: &[DeltaField],
    partition_columns: &[String],
    configuration: &HashMap<String, Option<String>>,
) -> HashMap<String, StatsColumn> {
    fn leaves(
        fields: &[DeltaField],
        logical: &mut Vec<String>,
        physical: &mut Vec<String>,
        out: &mut Vec<(String, StatsColumn)>,
    ) {
        for f in fields {
            logical.push(f.name.clone());
            physical.push(f.physical_name.clone().unwrap_or_else(|| f.name.clone()));
            let leaf = |min_max: bool| {
                (
                    logical.join("."),
                    StatsColumn {
                        path: physical.clone(),
                        min_max,
                    },
                )
            };
            match &f.data_type {
                DeltaType::Struct(inner) => leaves(inner, logical, physical, out),
                DeltaType::Primitive(t) => {
                    out.push(leaf(!matches!(t.as_str(), "boolean" | "binary")))
                }
                DeltaType::Decimal { .. } => out.push(leaf(true)),
                DeltaType::Array { .. } | DeltaType::Map { .. } => out.push(leaf(false)),
            }
            logical.pop();
            physical.pop();
        }
    }
    let data: Vec<DeltaField> = fields
        .iter()
        .filter(|f| !partition_columns.contains(&f.name))
        .cloned()
        .collect();
    let mut all = Vec::new();
    leaves(&data, &mut Vec::new(), &mut Vec::new(), &mut all);
    let setting = |key: &str| configuration.get(key).cloned().flatten();
    if let Some(listed) = setting("delta.dataSkippingStatsColumns") {
        let names: Vec<String> = listed
            .split(',')
            .map(|n| n.trim().replace('`', "").to_lowercase())
            .collect();
        return all
            .into_iter()
            .filter(|(l, _)| {
                let l = l.to_lowercase();
                names
                    .iter()
                    .any(|n| l == *n || l.starts_with(&format!("{n}.")))
            })
            .collect();
    }
    let n: i64 = setting("delta.dataSkippingNumIndexedCols")
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    let take = if n < 0 { all.len() } else { n as usize };
    all.into_iter().take(take).collect()
}

fn at<'a>(stats: &'a Value, key: &str, path: &[String]) -> Option<&'a Value> {
    path.iter()
        .try_fold(stats.get(key)?, |v, part| v.get(part))
        .filter(|v| !v.is_null())
}

/// Whether a file's raw statistics give what `requirement` needs at `path`.
fn recorded(stats: Option<&Value>, path: &[String], requirement: &str) -> bool {
    let Some(stats) = stats else { return false };
    let nulls = at(stats, "nullCount", path).and_then(Value::as_i64);
    let records = stats.get("numRecords").and_then(Value::as_i64);
    match requirement {
        "min_max" => {
            (at(stats, "minValues", path).is_some() && at(stats, "maxValues", path).is_some())
                || matches!((nulls, records), (Some(n), Some(r)) if n == r)
        }
        "null_count" => nulls.is_some(),
        "null_count_and_num_records" => nulls.is_some() && records.is_some(),
        other => panic!("an unknown requirement {other}"),
    }
}

/// Every fixture with a corpus: its table and the corpus file.
fn corpora() -> Vec<(String, std::path::PathBuf)> {
    let dir = testkit::workspace_root().join("corpora");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let name = f.file_stem().unwrap().to_str().unwrap().to_string();
            let table = if name == "taxi-nyc" {
                taxi()
            } else {
                fixtures().join("real").join(&name).display().to_string()
            };
            (table, f)
        })
        .collect()
}

#[test]
fn stats_coverage_equals_a_count_from_the_log_on_every_corpus_predicate() {
    let mut entries = 0usize;
    let mut below_full = 0usize;
    for (table, corpus) in corpora() {
        let snapshot = oracle::log::Snapshot::open(&table, None).expect("the oracle replays it");
        let columns = statistics_columns(
            &snapshot.fields,
            &snapshot.metadata.partition_columns,
            &snapshot.metadata.configuration,
        );
        let stats: HashMap<String, Option<&Value>> = snapshot
            .files
            .iter()
            .map(|f| (f.path.clone(), f.stats.as_ref()))
            .collect();
        let out = run(&[
            &table,
            "--predicates",
            corpus.to_str().unwrap(),
            "--verbose",
            "--explain-why",
            "--format",
            "json",
        ]);
        assert!(out.code == 0 || out.code == 2, "{table}: {}", out.stderr);
        let docs: Vec<Value> = serde_json::from_str(&out.stdout).unwrap();
        for doc in docs.iter().filter(|d| d.get("schema_version").is_some()) {
            let predicate = doc["predicate"].as_str().unwrap_or_default();
            let coverage = doc["analysis"]["stats_coverage"]
                .as_array()
                .unwrap_or_else(|| panic!("{table}: `{predicate}` has its coverage"));
            let candidates: Vec<&Value> = doc["files"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["pruned_by"] != "Partition pruning")
                .collect();
            for entry in coverage {
                let column = entry["column"].as_str().unwrap();
                let requirement = entry["requirement"].as_str().unwrap();
                let covered = match columns.get(column) {
                    // Data skipping reads no statistics of a column outside the set, and no
                    // min/max of a column of a type without them.
                    None => 0,
                    Some(c) if requirement == "min_max" && !c.min_max => 0,
                    Some(StatsColumn { path, .. }) => candidates
                        .iter()
                        .filter(|f| {
                            let path_in_log = f["path"].as_str().unwrap();
                            let raw = stats
                                .get(path_in_log)
                                .unwrap_or_else(|| panic!("{table}: {path_in_log} is live"));
                            recorded(*raw, path, requirement)
                        })
                        .count(),
                };
                assert_eq!(
                    (
                        entry["candidate_files"].as_u64(),
                        entry["covered_files"].as_u64()
                    ),
                    (Some(candidates.len() as u64), Some(covered as u64)),
                    "{table}: `{predicate}`: {entry}"
                );
                entries += 1;
                below_full += usize::from(covered < candidates.len());
            }
        }
    }
    // The corpora hold columns without statistics in some files: the count is not vacuous.
    assert!(entries > 1000, "{entries} entries");
    assert!(below_full > 0, "no entry below 100% among {entries}");
}
