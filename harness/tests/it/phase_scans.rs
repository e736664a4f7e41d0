//! The phase scans ask the kernel cheaply: over the replay's cached rows, once per partition
//! for a predicate on partition columns alone, only about the partition survivors for the
//! full predicate, in shards across the cores. Each shortcut rests on the kernel deciding a
//! file from that file's own row; here every one of them is held to a fresh kernel scan (own
//! snapshot, own replay) on every fixture, for predicates over each column. (Windows of a
//! streamed replay rest on the same argument: `streaming.rs`.)

use std::collections::BTreeSet;

use explain_compiler::ast::ColumnRef;
use explain_core::explain::{CompiledPredicate, ExplainOptions, kernel_scans};
use explain_core::replay::ReplayedTable;
use harness::scaling::fresh_scan_paths;

/// Predicates over one column: comparisons with a value the table holds (so some files
/// survive and some do not), null tests, and a disjunction mixing in the first column.
pub(crate) fn predicates_over(column: &str, value: Option<&str>, first: &str) -> Vec<String> {
    let mut out = vec![format!("{column} IS NULL"), format!("{column} IS NOT NULL")];
    if let Some(v) = value {
        out.extend(
            ["=", "<", ">=", "!="]
                .iter()
                .map(|op| format!("{column} {op} {v}")),
        );
        out.push(format!("{column} = {v} OR {first} IS NULL"));
        out.push(format!("{column} > {v} AND {first} IS NOT NULL"));
    }
    out
}

/// A literal for `column` taken from a partition value the snapshot holds, if it is one.
pub(crate) fn present_literal(table: &ReplayedTable, column: &ColumnRef) -> Option<String> {
    let info = table.columns().resolve(column).ok()?;
    let raw = table
        .partitions()
        .iter()
        .find_map(|values| values.get(&info.partition_key).flatten())?;
    Some(format!("'{}'", raw.replace('\'', "''")))
}

fn paths(table: &ReplayedTable, kept: &[bool]) -> BTreeSet<String> {
    table
        .paths()
        .zip(kept)
        .filter(|(_, k)| **k)
        .map(|(path, _)| path.to_string())
        .collect()
}

/// The cached rows keep exactly the files a fresh scan keeps. That includes a checkpoint that
/// records statistics only as `stats_parsed` (`real/delta-1.2.1-only-struct-stats`): a fresh
/// scan prunes on the struct, and the replay fills the cached rows' JSON from it.
fn assert_agrees(cached: &BTreeSet<String>, fresh: &BTreeSet<String>, context: &str) {
    let pruned_but_fresh_keeps: Vec<&String> = fresh.difference(cached).collect();
    assert!(
        pruned_but_fresh_keeps.is_empty(),
        "{context}: pruned {pruned_but_fresh_keeps:?}, which a fresh kernel scan keeps"
    );
    let kept_beyond: Vec<&String> = cached.difference(fresh).collect();
    assert!(
        kept_beyond.is_empty(),
        "{context}: kept {kept_beyond:?} with statistics a fresh kernel scan prunes on"
    );
}

#[test]
fn phase_scans_answer_as_fresh_kernel_scans_do() {
    let mut compared = 0usize;
    for table_dir in testkit::all_tables() {
        let location = table_dir.to_string_lossy().into_owned();
        let table =
            ReplayedTable::open(&location, None).unwrap_or_else(|e| panic!("{location}: {e}"));
        assert!(
            table
                .paths()
                .eq((0..table.files().len()).map(|i| table.path(i))),
            "{location}: paths in order, one per live file"
        );
        // The same replay, every scan split into shards of one row: as many shards as cores.
        let sharded = ReplayedTable::open(&location, None)
            .unwrap()
            .with_rows_per_shard(1);
        let names = table.columns().leaf_names();
        let first = format!("`{}`", names[0].replace('.', "`.`"));
        for name in &names {
            let column = ColumnRef::new(name.split('.'));
            let quoted = format!("`{}`", name.replace('.', "`.`"));
            let value = present_literal(&table, &column).or_else(|| Some("1".to_string()));
            for predicate in predicates_over(&quoted, value.as_deref(), &first) {
                // Literals of the wrong type are refused at compile time; nothing to scan.
                let Ok(compiled) = CompiledPredicate::compile(&predicate, &table) else {
                    continue;
                };
                let scans =
                    kernel_scans(&compiled, table.columns(), ExplainOptions::default()).unwrap();
                for kernel in [scans.partition, scans.full].into_iter().flatten() {
                    let fresh = fresh_scan_paths(&location, None, Some(kernel.clone()))
                        .unwrap_or_else(|e| panic!("{location}: `{kernel}`: {e}"));
                    let context = format!("{location}: `{predicate}` as `{kernel}`");
                    let whole = paths(&table, &table.survivors(Some(kernel.clone())).unwrap());
                    assert_agrees(&whole, &fresh, &format!("{context}: cached rows"));
                    let split = paths(&sharded, &sharded.survivors(Some(kernel.clone())).unwrap());
                    assert_eq!(split, whole, "{context}: sharded");
                    // Every other file asked about: the answer is the whole one within them.
                    let among: Vec<bool> = (0..table.files().len()).map(|i| i % 2 == 0).collect();
                    let subset = table
                        .survivors_among(Some(kernel.clone()), Some(&among))
                        .unwrap();
                    let expected: BTreeSet<String> = paths(&table, &among)
                        .intersection(&whole)
                        .cloned()
                        .collect();
                    assert_eq!(paths(&table, &subset), expected, "{context}: subset");
                    compared += 1;
                }
            }
        }
        assert!(
            !table.looked_up_by_path(),
            "{location}: a phase scan's answer did not line up with its rows"
        );
        assert!(
            !sharded.looked_up_by_path(),
            "{location}: a sharded answer did not line up with its rows"
        );
    }
    assert!(compared >= 200, "only {compared} scans compared");
}

/// Conjuncts over the data columns of `table`, with literals from the first file's recorded
/// bounds, so that some prune files and others do not.
fn data_conjuncts(table: &ReplayedTable) -> Vec<String> {
    let Some(stats) = (0..table.files().len()).find_map(|i| table.stats_json(i)) else {
        return Vec::new();
    };
    let stats: serde_json::Value = serde_json::from_str(stats).unwrap();
    let mut out = Vec::new();
    for bound in ["minValues", "maxValues"] {
        let Some(values) = stats[bound].as_object() else {
            continue;
        };
        for (column, value) in values {
            let literal = match value {
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::String(s) if s.len() < 40 => {
                    format!("'{}'", s.replace('\'', "''"))
                }
                _ => continue,
            };
            let quoted = format!("`{}`", column.replace('`', "``"));
            for op in ["<", ">", "=", "!=", "<=", ">="] {
                out.push(format!("{quoted} {op} {literal}"));
            }
        }
    }
    out
}

/// What each conjunct prunes alone, measured by group testing (`diagnose::pruned_alone`),
/// equals one kernel scan per conjunct, on every fixture, over every file and over the
/// odd-numbered files only, for groups small enough to be scanned one by one and large
/// enough to be split.
#[test]
fn conjuncts_measured_together_prune_what_each_prunes_alone() {
    use explain_core::diagnose::pruned_alone;
    let (mut measured, mut pruning) = (0usize, 0usize);
    for table_dir in testkit::all_tables() {
        let location = table_dir.to_string_lossy().into_owned();
        let Ok(table) = ReplayedTable::open(&location, None) else {
            continue;
        };
        let scans: Vec<(String, Option<delta_kernel::PredicateRef>)> = data_conjuncts(&table)
            .into_iter()
            .filter_map(|text| {
                let compiled = CompiledPredicate::compile(&text, &table).ok()?;
                let scans =
                    kernel_scans(&compiled, table.columns(), ExplainOptions::default()).ok()?;
                Some((text, scans.full))
            })
            .collect();
        if scans.is_empty() {
            continue;
        }
        let files = table.files().len();
        for among in [
            vec![true; files],
            (0..files).map(|i| i % 2 == 1).collect::<Vec<bool>>(),
        ] {
            let one_by_one: Vec<usize> = scans
                .iter()
                .map(|(_, scan)| {
                    let kept = table.survivors_among(scan.clone(), Some(&among)).unwrap();
                    among.iter().zip(&kept).filter(|(a, k)| **a && !**k).count()
                })
                .collect();
            for size in [1, 3, 7, scans.len()] {
                for (chunk, expected) in scans.chunks(size).zip(one_by_one.chunks(size)) {
                    let predicates: Vec<_> = chunk.iter().map(|(_, s)| s.clone()).collect();
                    let together = pruned_alone(&table, &predicates, &among).unwrap();
                    let texts: Vec<&str> = chunk.iter().map(|(t, _)| t.as_str()).collect();
                    assert_eq!(together, expected, "{location}: {texts:?}");
                    measured += chunk.len();
                }
            }
            pruning += one_by_one.iter().filter(|c| **c > 0).count();
        }
    }
    assert!(measured > 100, "measured {measured} conjuncts");
    assert!(pruning > 20, "{pruning} conjuncts prune some file");
}
