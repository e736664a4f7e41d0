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
