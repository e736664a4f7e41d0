//! The engines themselves decide (engines.rs): Spark (ANSI off and on), DuckDB and DataFusion
//! run each predicate's text over the oracle's rows. These are the measured readings that
//! docs/semantics.md tabulates and the explainer's rewrites (retype.rs) must cover. An
//! engine that is unavailable fails the test: run `oracle/engines/setup.sh` first.

use oracle::engines::{Answer, EngineSemantics, Engines};
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;

const IDS: [i64; 7] = [-3, 2, 3, 4, 5, 9_007_199_254_740_992, 9_007_199_254_740_993];

/// The `id` values an answer matched (one file holds all rows, so the rows are found by
/// asking per value).
fn ids_matched(
    engines: &mut Engines<'_>,
    semantics: EngineSemantics,
    predicate: &str,
) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    for id in IDS {
        let answer = engines
            .answer(semantics, &format!("({predicate}) AND id = {id}"))
            .unwrap()
            .unwrap_or_else(|u| panic!("{u}"));
        match answer {
            Answer::Rows(rows) if rows.iter().sum::<u64>() > 0 => out.push(id),
            Answer::Rows(_) => {}
            Answer::Refused(_) => return None,
        }
    }
    Some(out)
}

/// A predicate, the engines it is asked of, and the ids they match (`None`: they refuse it).
type Case = (
    &'static str,
    &'static [EngineSemantics],
    Option<&'static [i64]>,
);

#[test]
#[ignore = "external tier: Spark and DuckDB (bash oracle/engines/setup.sh)"]
fn the_engines_read_literals_as_measured() {
    use EngineSemantics::{Datafusion, Duckdb, Spark, SparkAnsi};
    let dir = tempfile::tempdir().unwrap();
    crate::support::write_ids(dir.path(), &IDS, 100, None);
    let table = LoadedTable::load(
        Snapshot::open(dir.path().to_str().unwrap(), None).unwrap(),
        &plan(1),
    )
    .unwrap();
    let mut engines = Engines::start(&table, &EngineSemantics::ALL).unwrap();
    for s in EngineSemantics::ALL {
        let version = engines.version(s).unwrap_or_else(|u| panic!("{u}"));
        eprintln!("{}: {version}", s.name());
    }
    const BIG: i64 = 9_007_199_254_740_992;
    // (predicate, semantics, the ids it matches; None: the engine refuses it)
    let cases: &[Case] = &[
        // Class 1: a number with an exponent is a DOUBLE everywhere.
        (
            "id = 4.0000000000000001e0",
            &EngineSemantics::ALL,
            Some(&[4]),
        ),
        (
            "id = 9007199254740992e0",
            &EngineSemantics::ALL,
            Some(&[BIG, BIG + 1]),
        ),
        (
            "id > 4.0000000000000001e0",
            &EngineSemantics::ALL,
            Some(&[5, BIG, BIG + 1]),
        ),
        // A plain number is an exact decimal in Spark and DuckDB.
        (
            "id = 9007199254740993",
            &[Spark, SparkAnsi, Duckdb],
            Some(&[BIG + 1]),
        ),
        // Class 2: a quoted fraction against an integer column.
        ("id = '2.5'", &[Spark], Some(&[2])),
        ("id = '2.5'", &[Duckdb], Some(&[3])),
        ("id = '2.5'", &[SparkAnsi], None),
        ("id >= '2.5'", &[Spark], Some(&[2, 3, 4, 5, BIG, BIG + 1])),
        ("id > '2.5'", &[Duckdb], Some(&[4, 5, BIG, BIG + 1])),
        ("id = '-2.5'", &[Spark], Some(&[])),
        ("id = '-2.5'", &[Duckdb], Some(&[-3])),
        ("id = '2.5'", &[Datafusion], None),
        ("id >= '2.5'", &[Datafusion], None),
        ("id IN ('2.5')", &[Spark], Some(&[])),
        ("id IN ('2.5')", &[SparkAnsi, Datafusion], None),
        ("id IN ('2.5')", &[Duckdb], Some(&[3])),
        // Class 7 (docs/semantics.md, "Spark's literal suffixes, and literals of a type the
        // column cannot hold"): each cell of the table on a BIGINT column.
        ("id = 2Y", &[Spark, SparkAnsi], Some(&[2])),
        ("id = 2S", &[Spark, SparkAnsi], Some(&[2])),
        ("id = 2L", &[Spark, SparkAnsi], Some(&[2])),
        ("id = 2Y", &[Duckdb, Datafusion], None),
        ("id = 2L", &[Duckdb], None),
        ("id = 2L", &[Datafusion], Some(&[2])),
        ("id > 4.5D", &[Spark, SparkAnsi], Some(&[5, BIG, BIG + 1])),
        ("id > 4.5F", &[Spark, SparkAnsi], Some(&[5, BIG, BIG + 1])),
        ("id > 4.0BD", &[Spark, SparkAnsi], Some(&[5, BIG, BIG + 1])),
        ("id > 4.5D", &[Duckdb, Datafusion], None),
        // A value where a condition stands (docs/semantics.md: refused with exit 2): Spark
        // (FILTER_NOT_BOOLEAN, ANSI on and off) and DataFusion refuse it; DuckDB alone casts
        // the number to a boolean (non-zero is true).
        ("id >> 1", &[Spark, SparkAnsi, Datafusion], None),
        ("id >> 1", &[Duckdb], Some(&IDS)),
        ("id", &[Spark, SparkAnsi, Datafusion], None),
        ("id", &[Duckdb], Some(&IDS)),
        // Spark with ANSI off casts a boolean for `=` alone; DuckDB for any comparison.
        ("id = TRUE", &[Spark, Duckdb], Some(&[])),
        ("id != TRUE", &[Spark, Duckdb], Some(&IDS)),
        ("id = TRUE", &[SparkAnsi, Datafusion], None),
        ("id > TRUE", &[Duckdb], Some(&[2, 3, 4, 5, BIG, BIG + 1])),
        ("id > TRUE", &[Spark, SparkAnsi, Datafusion], None),
        ("id = 'abc'", &[Spark], Some(&[])),
        ("id = 'abc'", &[SparkAnsi, Duckdb, Datafusion], None),
        ("id", &[Duckdb], Some(&IDS)),
        ("id", &[Spark, SparkAnsi, Datafusion], None),
    ];
    let mut failures = Vec::new();
    for (predicate, semantics, expected) in cases {
        for s in *semantics {
            let got = ids_matched(&mut engines, *s, predicate);
            if got.as_deref() != *expected {
                failures.push(format!(
                    "`{predicate}` under {}: {got:?}, expected {expected:?}",
                    s.name()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
