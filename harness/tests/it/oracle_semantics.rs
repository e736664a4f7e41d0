//! The oracle evaluates a predicate as SQL does, NULL included: no simplification folds a
//! fragment whose value is NULL on some rows into a constant.

use generators::catalog::named;
use generators::writer::write_table;
use harness::subject::Subject;

#[test]
fn a_folded_contradiction_does_not_match_null_rows() {
    let dir = tempfile::tempdir().unwrap();
    write_table(&named("partition-types").unwrap(), dir.path()).unwrap();
    let subject = Subject::load("gen/partition-types", &dir.path().to_string_lossy()).unwrap();
    // `pd IN (x) AND pd NOT IN (x, x)` is FALSE where pd is set and NULL where it is NULL, so
    // its negation is TRUE where pd is set and NULL (no match) where it is NULL.
    let predicate =
        "NOT (pd IN (DATE '2021-01-02') AND pd NOT IN (DATE '2021-01-02', DATE '2021-01-02'))";
    let rows = subject.oracle.matching_rows(predicate).unwrap();
    let mut null_files = 0;
    for (i, file) in subject.oracle.snapshot.files.iter().enumerate() {
        let pd = file.partition_values.get("pd").cloned().flatten();
        if pd.is_none() {
            null_files += 1;
            assert_eq!(
                rows[i], 0,
                "{}: pd is NULL, so `{predicate}` is NULL on every row",
                file.path
            );
        } else {
            assert!(
                rows[i] > 0,
                "{}: pd is set, so `{predicate}` is TRUE on every row",
                file.path
            );
        }
    }
    assert!(null_files > 0, "the table has NULL partition values");
}

/// The oracle's gaps of issue class 9, on a generated table whose newest commit moves a
/// timestamp partition to year 1: a predicate on that column is answered (DataFusion casts a
/// timestamp compared with a string to nanoseconds, which hold no year 1; the oracle compares
/// in the column's microseconds), `coalesce` is evaluated (DataFusion's planner expects it
/// simplified, and the oracle runs no simplifier), and a timestamp text with digits below the
/// microsecond reads as Spark and DuckDB read it (cut to the microsecond). The interpreter
/// agrees with DataFusion on each.
#[test]
fn year_one_partitions_coalesce_and_nanosecond_texts_are_answered() {
    use oracle::interpret::Semantics;
    let dir = tempfile::tempdir().unwrap();
    write_table(&named("partition-types").unwrap(), dir.path()).unwrap();
    let log = dir.path().join("_delta_log");
    let mut last: Vec<_> = std::fs::read_dir(&log)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    last.sort();
    let newest = last.pop().unwrap();
    let text = std::fs::read_to_string(&newest).unwrap();
    let year_one = regex_free_replace(&text, "\"pts\":\"", "0001-01-01 00:00:00");
    assert_ne!(text, year_one, "the newest commit holds a `pts` value");
    std::fs::write(&newest, year_one).unwrap();
    let subject = Subject::load("gen/partition-types", &dir.path().to_string_lossy()).unwrap();
    let oracle = &subject.oracle;
    let year_one_files = oracle
        .snapshot
        .files
        .iter()
        .filter(|f| {
            f.partition_values.get("pts").cloned().flatten().as_deref()
                == Some("0001-01-01 00:00:00")
        })
        .count();
    assert!(year_one_files > 0);
    let total = |p: &str| -> u64 {
        let rows = oracle
            .matching_rows(p)
            .unwrap_or_else(|e| panic!("`{p}`: {e}"));
        for s in Semantics::ALL {
            let interpreted = oracle.matching_rows_under(p, s).unwrap().unwrap();
            assert_eq!(interpreted, rows, "`{p}`: the interpreter under {s:?}");
        }
        rows.iter().sum()
    };
    let before = total("pts < '1000-01-01'");
    assert!(before > 0, "the year-one rows match");
    assert!(total("pts > '2020-01-01'") > 0);
    assert_eq!(
        total("pts = TIMESTAMP '0001-01-01 00:00:00'"),
        total("pts = '0001-01-01 00:00:00.000000999'"),
        "digits below the microsecond are cut"
    );
    let v_not_null = total("v IS NOT NULL AND v > 3");
    assert_eq!(total("coalesce(v, 0) > 3"), v_not_null);
    assert_eq!(total("coalesce(v, 4) > 3"), v_not_null + total("v IS NULL"));
}

/// `text` with the value after each `key` (up to the next quote) replaced by `value`.
fn regex_free_replace(text: &str, key: &str, value: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(key) {
        out.push_str(&rest[..i + key.len()]);
        rest = &rest[i + key.len()..];
        let end = rest.find('"').unwrap_or(rest.len());
        out.push_str(value);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}
