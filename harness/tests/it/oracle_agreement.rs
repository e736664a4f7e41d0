//! Invariant 6: the oracle's two evaluators (DataFusion's SQL evaluation and its own row-wise
//! interpreter under DataFusion's semantics) find the same matching rows, file by file, on
//! every shared fixture and corpus predicate and on predicates sampled from every catalog
//! table; and the interpreter evaluates every one of them but those whose 64-bit integer
//! arithmetic overflows (engines wrap, fail or widen there: nothing to check), which stay rare.

use generators::catalog::{NAMES, named};
use generators::predicates::{Pools, sample_predicates};
use generators::writer::write_table;
use harness::corpus::{corpus_path, read_corpus};
use oracle::interpret::{OVERFLOW, Semantics};
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;

/// Checks each predicate; returns (checked, left to DataFusion for an integer overflow).
fn check(name: &str, table: &LoadedTable, predicates: &[String]) -> (usize, usize) {
    let (mut checked, mut overflows) = (0, 0);
    'predicates: for predicate in predicates {
        let Ok(datafusion) = table.matching_rows(predicate) else {
            continue;
        };
        for semantics in Semantics::ALL {
            let answer = table
                .matching_rows_under(predicate, semantics)
                .unwrap_or_else(|e| panic!("{name}: `{predicate}`: {e}"));
            let rows = match answer {
                Ok(rows) => rows,
                Err(u) if u.0 == OVERFLOW => {
                    overflows += 1;
                    continue 'predicates;
                }
                Err(u) => panic!(
                    "{name}: `{predicate}`: the interpreter does not evaluate {}",
                    u.0
                ),
            };
            if semantics == Semantics::DataFusion {
                assert_eq!(
                    rows, datafusion,
                    "{name}: `{predicate}`: DataFusion and the interpreter disagree"
                );
            }
        }
        checked += 1;
    }
    (checked, overflows)
}

#[test]
fn both_evaluators_agree_on_every_fixture_and_catalog_table() {
    let (mut checked, mut overflows) = (0, 0);
    let mut add = |(c, o): (usize, usize)| {
        checked += c;
        overflows += o;
    };
    for table in testkit::all_tables() {
        let location = table.to_string_lossy().into_owned();
        let name = location
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(&location)
            .to_string();
        let loaded = LoadedTable::load(Snapshot::open(&location, None).unwrap(), &plan(2)).unwrap();
        add(check(
            &name,
            &loaded,
            &read_corpus(&corpus_path(&name)).unwrap(),
        ));
    }
    for name in NAMES {
        let spec = named(name).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let written = write_table(&spec, dir.path()).unwrap();
        let loaded = LoadedTable::load(
            Snapshot::open(&dir.path().to_string_lossy(), None).unwrap(),
            &plan(2),
        )
        .unwrap();
        let predicates: Vec<String> =
            sample_predicates(&Pools::from_table(&spec, &written), 2, 7, 60)
                .iter()
                .map(|p| p.to_string())
                .collect();
        add(check(&format!("gen/{name}"), &loaded, &predicates));
    }
    assert!(checked > 4000, "predicates checked: {checked}");
    assert!(
        overflows * 100 <= checked,
        "{overflows} predicates overflow 64-bit arithmetic, over 1% of {checked}"
    );
}

/// Catalog table `name` written to a temp dir (kept as long as the returned handle) and loaded.
fn written(name: &str) -> (tempfile::TempDir, LoadedTable) {
    let spec = named(name).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_table(&spec, dir.path()).unwrap();
    let loaded = LoadedTable::load(
        Snapshot::open(&dir.path().to_string_lossy(), None).unwrap(),
        &plan(2),
    )
    .unwrap();
    (dir, loaded)
}

/// The semantics differ where they should: a NaN with its sign bit set is below every number
/// under DataFusion's order and above it under Spark's and DuckDB's.
#[test]
fn a_negative_nan_matches_by_each_engines_rules() {
    let (_dir, loaded) = written("nan-negative");
    let count = |p: &str, s: Semantics| -> u64 {
        loaded
            .matching_rows_under(p, s)
            .unwrap()
            .unwrap()
            .iter()
            .sum()
    };
    // Infinities match alike under both; only the NaN rows move.
    let below = |s| count("x < -1e30", s);
    let above = |s| count("x > 1e30", s);
    assert!(
        below(Semantics::DataFusion) > below(Semantics::SparkDuckDb),
        "negative NaN below every number (DataFusion)"
    );
    assert!(
        above(Semantics::SparkDuckDb) > above(Semantics::DataFusion),
        "every NaN above every number (Spark, DuckDB)"
    );
    assert_eq!(
        below(Semantics::DataFusion) - below(Semantics::SparkDuckDb),
        above(Semantics::SparkDuckDb) - above(Semantics::DataFusion),
        "the same NaN rows move from below to above"
    );
}

/// A text beside a 32-bit float column is read in the column's width by DataFusion
/// (`'-1e-300'` is `-0.0` as a `FLOAT`, so it matches the `-0.0` rows) and so by the
/// interpreter under DataFusion's semantics: the engine-backed campaign of 2026-12-06 found the
/// interpreter reading the item as a double. Each shape (`IN`, `=`, `BETWEEN`, a text whose
/// double and float readings differ in value, not only in sign) is held to DataFusion's rows.
#[test]
fn texts_beside_a_float32_column_are_read_in_its_width() {
    let (_dir, loaded) = written("nan-floats");
    let predicates: Vec<String> = [
        "y IN ('-1e-300')",
        "y NOT IN ('-1e-300')",
        "y IN ('1e-300', '5')",
        "y = '-1e-300'",
        "y != '1e-300'",
        "y BETWEEN '-1e-300' AND '1e-300'",
        "y <= '-1e-300'",
        "y >= '1e-46'",
        "'-1e-300' = y",
        "y IN ('0.1')",
        "y = '0.1'",
        "y < '0.1'",
        // A number in the list or beside a bound makes the texts doubles.
        "y IN (908.83673095703125, '1e300')",
        "y NOT IN (0.5, '-1e-300')",
        "y BETWEEN '-1e-300' AND 1e300",
        "y BETWEEN -1e300 AND '1e300'",
        "y BETWEEN '-1e300' AND 1e300",
        "NOT y BETWEEN -1e300 AND '1e300'",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    let (checked, overflows) = check("gen/nan-floats", &loaded, &predicates);
    assert_eq!((checked, overflows), (predicates.len(), 0));
    let negative_zero: u64 = loaded
        .matching_rows("y IN ('-1e-300')")
        .unwrap()
        .iter()
        .sum();
    assert!(
        negative_zero > 0,
        "the table holds -0.0 rows, which '-1e-300' read as FLOAT matches"
    );
}
