//! Generated predicates and their variants are read by both front ends: explain-core compiles
//! them against the table, DataFusion parses and types them against the oracle's schema.

use explain_core::explain::explain;
use explain_core::replay::ReplayedTable;
use generators::catalog::{NAMES, named};
use generators::predicates::{Pools, arbitrary_predicate, sample_predicates};
use generators::variants::{ALL, apply, degraded};
use generators::writer::write_table;
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;

#[test]
fn every_generated_predicate_and_variant_is_read_by_both() {
    for name in NAMES {
        let dir = tempfile::tempdir().unwrap();
        let spec = named(name).unwrap();
        let written = write_table(&spec, dir.path()).unwrap();
        let location = dir.path().to_string_lossy().into_owned();
        let kernel = ReplayedTable::open(&location, None).unwrap();
        let loaded = LoadedTable::load(Snapshot::open(&location, None).unwrap(), &plan(1)).unwrap();
        let pools = Pools::from_table(&spec, &written);
        let mut constructs = std::collections::BTreeSet::new();
        for p in sample_predicates(&pools, 3, 7, 40) {
            let mut forms = vec![p.clone()];
            forms.extend(ALL.iter().filter_map(|v| apply(*v, &p)));
            let (degraded_form, _) = degraded(&p, &pools.columns[0].column);
            forms.push(degraded_form);
            for form in forms {
                let sql = form.to_string();
                constructs.extend(
                    sql.split_whitespace()
                        .filter(|w| {
                            ["LIKE", "IN", "BETWEEN", "IS", "NOT", "OR", "UPPER(CAST("].contains(w)
                        })
                        .map(str::to_string),
                );
                explain(&kernel, Some(&sql))
                    .unwrap_or_else(|e| panic!("{name}: explain-core rejects `{sql}`: {e}"));
                loaded
                    .matching_rows(&sql)
                    .unwrap_or_else(|e| panic!("{name}: DataFusion rejects `{sql}`: {e}"));
            }
        }
        assert!(
            constructs.len() >= 5,
            "{name}: constructs covered: {constructs:?}"
        );
    }
}

#[test]
fn arbtest_draws_predicates_from_the_pools() {
    let dir = tempfile::tempdir().unwrap();
    let spec = named("all-types").unwrap();
    let written = write_table(&spec, dir.path()).unwrap();
    let pools = Pools::from_table(&spec, &written);
    let kernel = ReplayedTable::open(&dir.path().to_string_lossy(), None).unwrap();
    arbtest::arbtest(|u| {
        let p = arbitrary_predicate(u, &pools, 3)?;
        assert!(
            explain(&kernel, Some(&p.to_string())).is_ok(),
            "`{p}` compiles"
        );
        Ok(())
    })
    .seed(0x5eed_0000_0000_0001)
    .budget_ms(300);
}

/// The long-list knob: some generated predicates hold an `IN` list longer than the kernel
/// expands (21 distinct literals or more), which the explainer bounds by its hull.
#[test]
fn some_in_lists_are_longer_than_the_kernel_expands() {
    fn longest(p: &explain_compiler::ast::Predicate) -> usize {
        use explain_compiler::ast::Predicate as P;
        match p {
            P::InList { list, .. } => list.len(),
            P::And(items) | P::Or(items) => items.iter().map(longest).max().unwrap_or(0),
            P::Not(inner) => longest(inner),
            _ => 0,
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let spec = named("all-types").unwrap();
    let written = write_table(&spec, dir.path()).unwrap();
    let pools = Pools::from_table(&spec, &written);
    let long = sample_predicates(&pools, 2, 11, 400)
        .iter()
        .filter(|p| longest(p) > 20)
        .count();
    assert!(long >= 5, "{long} of 400 predicates hold a long IN list");
}

/// A struct column is drawn whole for `IS [NOT] NULL` (no statistics of its own; the explainer
/// prunes `st IS NULL` by its leaves' null counts), so the suites and campaigns check it.
#[test]
fn struct_columns_are_drawn_for_is_null() {
    let dir = tempfile::tempdir().unwrap();
    let spec = named("all-types").unwrap();
    let written = write_table(&spec, dir.path()).unwrap();
    let pools = Pools::from_table(&spec, &written);
    assert_eq!(
        pools
            .structs
            .iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>(),
        ["st"]
    );
    let drawn: Vec<String> = sample_predicates(&pools, 2, 11, 300)
        .iter()
        .map(|p| p.to_string())
        .collect();
    for form in ["st IS NULL", "st IS NOT NULL"] {
        assert!(
            drawn.iter().any(|p| p.contains(form)),
            "`{form}` among 300 drawn predicates"
        );
    }
}
