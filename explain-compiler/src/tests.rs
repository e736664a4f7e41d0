//! Data-driven tests of the predicate compiler: conversion, normalization, classification,
//! partition evaluation, coercion, lowering and the literal readings. Each table of cases runs
//! through one helper.

use delta_kernel::expressions::Scalar;
use delta_kernel::schema::{ColumnMetadataKey, DataType, MetadataValue, StructField, StructType};

use crate::ast::{CmpOp, ColumnRef, Literal};
use crate::classify::{Bucket, UNSPLITTABLE_OR, UNSUPPORTED_EXPRESSION, classify};
use crate::coerce::{ExactNumber, coerce};
use crate::lower::{check_literals, kernel_can_evaluate, to_kernel};
use crate::nnf::{Leaf, Nnf};
use crate::normalize::normalize;
use crate::partition_eval::{OneValue, PartitionValues, PreparedPartitionPredicate, Truths};
use crate::schema::TableColumns;
use crate::sql::parse_predicate;

/// A taxi-like schema with one column of every type the compiler handles; `pickup_date`,
/// `region`, `day` and `bucket` are partition columns, `region` is stored under a physical name.
fn columns() -> TableColumns {
    let region = StructField::nullable("region", DataType::STRING).with_metadata([(
        ColumnMetadataKey::ColumnMappingPhysicalName
            .as_ref()
            .to_string(),
        MetadataValue::String("col-region".into()),
    )]);
    let schema = StructType::try_new([
        StructField::nullable("pickup_date", DataType::STRING),
        region,
        StructField::nullable("day", DataType::DATE),
        StructField::nullable("trip_distance", DataType::DOUBLE),
        StructField::nullable("passenger_count", DataType::LONG),
        StructField::nullable("vendor", DataType::INTEGER),
        StructField::nullable("ratio", DataType::FLOAT),
        StructField::nullable("price", DataType::decimal(5, 2).unwrap()),
        StructField::nullable("name", DataType::STRING),
        StructField::nullable("active", DataType::BOOLEAN),
        StructField::nullable("ts", DataType::TIMESTAMP),
        StructField::nullable("ts_ntz", DataType::TIMESTAMP_NTZ),
        StructField::nullable(
            "payload",
            DataType::try_struct_type([StructField::nullable("age", DataType::INTEGER)]).unwrap(),
        ),
        StructField::nullable("bucket", DataType::INTEGER),
        StructField::nullable("größe", DataType::INTEGER),
    ])
    .unwrap();
    TableColumns::new(
        schema,
        vec![
            "pickup_date".into(),
            "region".into(),
            "day".into(),
            "bucket".into(),
        ],
    )
}

// ---------------------------------------------------------------------------------------
// Conversion: SQL -> owned AST -> SQL -> owned AST is a fixed point.

fn check_roundtrip(sql: &str, expected_render: &str) {
    let parsed = parse_predicate(sql).unwrap_or_else(|e| panic!("`{sql}` should parse: {e}"));
    let rendered = parsed.to_string();
    assert_eq!(rendered, expected_render, "render of `{sql}`");
    let reparsed =
        parse_predicate(&rendered).unwrap_or_else(|e| panic!("`{rendered}` should reparse: {e}"));
    assert_eq!(
        reparsed, parsed,
        "round trip of `{sql}` through `{rendered}`"
    );
}

#[test]
fn conversion_round_trips() {
    let cases: &[(&str, &str)] = &[
        ("a = 1", "a = 1"),
        ("5 < x", "5 < x"),
        ("a = 1 AND b = 2 AND c = 3", "a = 1 AND b = 2 AND c = 3"),
        ("(a = 1 OR b = 2) AND c = 3", "(a = 1 OR b = 2) AND c = 3"),
        ("a = 1 OR b = 2 AND c = 3", "a = 1 OR b = 2 AND c = 3"),
        ("NOT (a = 1 OR b = 2)", "NOT (a = 1 OR b = 2)"),
        ("NOT NOT a = 1", "NOT NOT a = 1"),
        ("x IS NULL", "x IS NULL"),
        ("x IS NOT NULL", "x IS NOT NULL"),
        ("x IN (1, 2, 3)", "x IN (1, 2, 3)"),
        ("x NOT IN ('a', 'b')", "x NOT IN ('a', 'b')"),
        ("x BETWEEN 1 AND 5", "x BETWEEN 1 AND 5"),
        ("x NOT BETWEEN -1 AND 5.5", "x NOT BETWEEN -1 AND 5.5"),
        ("s LIKE 'ab%'", "s LIKE 'ab%'"),
        (
            "s NOT LIKE 'a!%b%' ESCAPE '!'",
            "s NOT LIKE 'a!%b%' ESCAPE '!'",
        ),
        ("payload.age > 30", "payload.age > 30"),
        // Double quotes: a column in DuckDB and DataFusion, a string in Spark (normalize.rs).
        ("\"weird col\" = 'it''s'", "\"weird col\" = 'it''s'"),
        ("`select` = 1", "`select` = 1"),
        ("active", "active"),
        ("NOT active", "NOT active"),
        ("TRUE", "TRUE"),
        ("d = DATE '2024-01-03'", "d = DATE '2024-01-03'"),
        (
            "t > TIMESTAMP '2024-01-03 10:00:00'",
            "t > TIMESTAMP '2024-01-03 10:00:00'",
        ),
        ("x = NULL", "x = NULL"),
        ("UPPER(s) = 'A'", "UPPER(s) = 'A'"),
        ("a + 1 > 5", "a + 1 > 5"),
        ("a = b", "a = b"),
        ("CAST(a AS INT) = 5", "CAST(a AS INT) = 5"),
        // A binary literal, decoded and written back in upper case.
        ("b = X'6162'", "b = X'6162'"),
        ("b IN (x'00ff', X'')", "b IN (X'00FF', X'')"),
        // An odd count of digits is read two ways: an expression, kept as written.
        ("b = X'616'", "b = X'616'"),
    ];
    for (sql, render) in cases {
        check_roundtrip(sql, render);
    }
}

#[test]
fn unsupported_nodes_keep_their_columns() {
    let cases: &[(&str, &[&str])] = &[
        ("UPPER(pickup_date) = 'X'", &["pickup_date"]),
        ("a = b", &["a", "b"]),
        ("a + payload.age > 5", &["a", "payload.age"]),
        ("x IN (SELECT 1)", &["x"]),
    ];
    for (sql, expected) in cases {
        let parsed = parse_predicate(sql).unwrap();
        let cols: Vec<String> = parsed.columns().iter().map(ColumnRef::dotted).collect();
        assert_eq!(cols, *expected, "columns of `{sql}`");
        assert!(
            matches!(parsed, crate::ast::Predicate::Unsupported { .. }),
            "`{sql}` should be unsupported"
        );
    }
}

#[test]
fn conversion_rejects_bad_sql() {
    let deep = format!("{}a = 1{}", "(".repeat(500), ")".repeat(500));
    let deep_not = format!("{}a = 1", "NOT ".repeat(1000));
    let cases: &[&str] = &[
        "",
        "   ",
        "a =",
        "a = 1 b = 2",
        "a = 1)",
        "a = = 1",
        "a IN ()",
        "s LIKE 'x' ESCAPE 'ab'",
        "5",
        "'text'",
        &deep,
        &deep_not,
    ];
    for sql in cases {
        let err = parse_predicate(sql).expect_err(&format!("`{sql}` should be rejected"));
        assert_eq!(err.exit_code(), 2, "`{sql}`: {err}");
        assert!(
            !err.to_string().contains('\n'),
            "one-line error for `{sql}`: {err}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Normalization: every rule, including NULL cases.

fn check_normalized(sql: &str, expected: &str) {
    let parsed = parse_predicate(sql).unwrap_or_else(|e| panic!("`{sql}`: {e}"));
    let normalized = normalize(&parsed, &columns()).unwrap_or_else(|e| panic!("`{sql}`: {e}"));
    assert_eq!(
        normalized.to_string(),
        expected,
        "normalized form of `{sql}`"
    );
}

#[test]
fn normalization_rules() {
    let cases: &[(&str, &str)] = &[
        // NOT pushed to the leaves: De Morgan, operator flips, double negation.
        (
            "NOT (pickup_date != '2024-01-03' OR trip_distance <= 5)",
            "pickup_date = '2024-01-03' AND trip_distance > 5",
        ),
        (
            "NOT (trip_distance < 1 AND vendor >= 2)",
            "trip_distance >= 1 OR vendor < 2",
        ),
        ("NOT NOT trip_distance > 5", "trip_distance > 5"),
        ("NOT trip_distance = 5", "trip_distance != 5"),
        ("NOT trip_distance > 5", "trip_distance <= 5"),
        ("NOT name IS NULL", "name IS NOT NULL"),
        ("NOT name IS NOT NULL", "name IS NULL"),
        ("NOT name IN ('a', 'b')", "name != 'a' AND name != 'b'"),
        ("NOT name LIKE '%x%'", "name NOT LIKE '%x%'"),
        ("NOT active", "NOT active"),
        ("NOT NOT active", "active"),
        ("NOT UPPER(name) = 'A'", "NOT (UPPER(name) = 'A')"),
        // Operand order.
        ("5 < trip_distance", "trip_distance > 5"),
        ("5 >= trip_distance", "trip_distance <= 5"),
        ("'2024-01-03' = pickup_date", "pickup_date = '2024-01-03'"),
        // BETWEEN.
        ("vendor BETWEEN 1 AND 5", "vendor >= 1 AND vendor <= 5"),
        ("vendor NOT BETWEEN 1 AND 5", "vendor < 1 OR vendor > 5"),
        ("NOT vendor BETWEEN 1 AND 5", "vendor < 1 OR vendor > 5"),
        ("vendor BETWEEN NULL AND 5", "FALSE"),
        ("vendor NOT BETWEEN NULL AND 5", "vendor > 5"),
        // IN lists.
        ("vendor IN (1)", "vendor = 1"),
        ("vendor NOT IN (1)", "vendor != 1"),
        ("vendor IN (1, 1, 2)", "vendor IN (1, 2)"),
        ("vendor IN (1, NULL)", "vendor = 1"),
        ("vendor IN (NULL)", "FALSE"),
        ("vendor NOT IN (1, NULL)", "FALSE"),
        // LIKE.
        ("name LIKE 'abc'", "name = 'abc'"),
        ("name NOT LIKE 'abc'", "name != 'abc'"),
        ("name LIKE 'ab%'", "name >= 'ab' AND name < 'ac'"),
        ("name NOT LIKE 'ab%'", "name < 'ab' OR name >= 'ac'"),
        ("name LIKE '%'", "name IS NOT NULL"),
        ("name NOT LIKE '%'", "FALSE"),
        // A backslash: Spark and DataFusion escape with it, DuckDB reads it as a character
        // (string_readings.rs): the union of the readings.
        (
            "name LIKE 'a\\%b%'",
            "name >= 'a%b' AND name < 'a%c' OR name LIKE 'a\\\\%b%'",
        ),
        ("name LIKE 'abc\\'", "name = 'abc\\'"),
        ("name = 'a\\tb'", "name = 'a\\tb' OR name = 'a\tb'"),
        ("name LIKE 'a!%' ESCAPE '!'", "name = 'a%'"),
        (
            "name LIKE 'a!_%' ESCAPE '!'",
            "name >= 'a_' AND name < 'a`'",
        ),
        ("name LIKE 'a_c%'", "name LIKE 'a_c%'"),
        ("name LIKE '%01-03%'", "name LIKE '%01-03%'"),
        ("vendor LIKE '1%'", "vendor LIKE '1%'"),
        // Constants, NULL, folding, flattening.
        ("trip_distance = NULL", "FALSE"),
        ("NOT trip_distance = NULL", "FALSE"),
        ("trip_distance > 5 AND TRUE", "trip_distance > 5"),
        ("trip_distance > 5 AND FALSE", "FALSE"),
        ("trip_distance > 5 OR TRUE", "TRUE"),
        ("trip_distance > 5 OR FALSE", "trip_distance > 5"),
        ("trip_distance > 5 OR NULL", "trip_distance > 5"),
        ("trip_distance > 5 AND NULL", "FALSE"),
        ("NOT NULL", "FALSE"),
        ("NOT FALSE", "TRUE"),
        ("1 = 1", "TRUE"),
        ("1 = 1.0", "TRUE"),
        ("2 < 1", "FALSE"),
        // Literal folding is exact at any length (pitfall 25); a number with an exponent is a
        // double, as DuckDB and Spark read it (checked with both: `1e-400 > 0` is FALSE, and
        // `1e400 > 1e399` is FALSE in DuckDB, refused by Spark).
        ("1e-400 > 0", "FALSE"),
        ("1e400 > 1e399", "FALSE"),
        ("-1e400 < -1e399", "FALSE"),
        ("4.0000000000000001e0 = 4", "TRUE"),
        ("9007199254740993e0 = 9007199254740992", "TRUE"),
        (
            "100000000000000000000000000000000000000001 > 100000000000000000000000000000000000000000",
            "TRUE",
        ),
        ("0.10000000000000000000000000000000000000001 = 0.1", "FALSE"),
        ("9007199254740993 = 9007199254740992", "FALSE"),
        ("1e1 = 10", "TRUE"),
        ("5E+1 = 50.000", "TRUE"),
        ("-0 = 0", "TRUE"),
        ("0.000 < -0.0", "FALSE"),
        ("'a' < 'b' AND vendor = 1", "vendor = 1"),
        ("NULL = NULL", "FALSE"),
        (
            "vendor = 1 AND (vendor = 2 AND vendor = 3)",
            "vendor = 1 AND vendor = 2 AND vendor = 3",
        ),
        (
            "vendor = 1 OR (vendor = 2 OR vendor = 3)",
            "vendor = 1 OR vendor = 2 OR vendor = 3",
        ),
        ("vendor = 1 AND vendor = 1", "vendor = 1"),
    ];
    check_all_normalized(cases);
}

#[test]
fn normalization_rules_factoring() {
    let cases: &[(&str, &str)] = &[
        // OR factoring and absorption.
        (
            "(pickup_date = '2024-01-03' AND trip_distance > 5) OR (pickup_date = '2024-01-03' AND fare > 50)",
            "",
        ),
        (
            "(pickup_date = '2024-01-03' AND trip_distance > 5) OR (pickup_date = '2024-01-03' AND vendor > 50)",
            "pickup_date = '2024-01-03' AND (trip_distance > 5 OR vendor > 50)",
        ),
        ("vendor = 1 OR (vendor = 1 AND name = 'x')", "vendor = 1"),
        (
            "(vendor = 1 AND name = 'x') OR (name = 'x' AND vendor = 1)",
            "vendor = 1 AND name = 'x'",
        ),
        (
            "(vendor = 1 AND name = 'x') OR (vendor = 2 AND name = 'y')",
            "vendor = 1 AND name = 'x' OR vendor = 2 AND name = 'y'",
        ),
        // A sibling of an AND is TRUE inside the other items, of an OR FALSE: a mixed OR that
        // repeats a conjunct splits as its factored spelling does.
        (
            "trip_distance IS NOT NULL AND (trip_distance IS NOT NULL AND region = 'a' OR bucket > 3)",
            "trip_distance IS NOT NULL AND (region = 'a' OR bucket > 3)",
        ),
        (
            "vendor = 1 OR (name = 'x' AND (vendor = 1 OR price > 2))",
            "vendor = 1 OR name = 'x' AND price > 2",
        ),
        ("vendor = 1 AND (vendor = 1 OR price > 2)", "vendor = 1"),
        ("vendor = 1 OR (vendor = 1 AND price > 2)", "vendor = 1"),
        (
            "vendor = 1 AND (vendor != 1 OR price > 2)",
            "vendor = 1 AND (vendor != 1 OR price > 2)",
        ),
        (
            "(vendor = 1 OR price > 2) AND (name = 'x' OR (vendor = 1 OR price > 2) AND region = 'a')",
            "(vendor = 1 OR price > 2) AND (name = 'x' OR region = 'a')",
        ),
        // A leaf sibling decides a part it implies (AND) or that implies it (OR).
        (
            "region IN ('a', 'b') OR region = 'b' AND price > 2",
            "region IN ('a', 'b')",
        ),
        (
            "region = 'b' AND (region IN ('a', 'b') OR price > 2)",
            "region = 'b'",
        ),
        (
            "region IN ('a', 'b') OR (region IN ('b', 'a') AND price > 2) OR vendor = 1",
            "region IN ('a', 'b') OR vendor = 1",
        ),
        (
            "region IN ('a', 'b') OR region = 'c' AND price > 2",
            "region IN ('a', 'b') OR region = 'c' AND price > 2",
        ),
        (
            "region != 'b' AND (region IN ('a', 'b') OR price > 2)",
            "region != 'b' AND (region IN ('a', 'b') OR price > 2)",
        ),
        // IS NULL on a struct column has no statistics the kernel can test: unsupported, and
        // conjoined with each of its leaves IS NULL (a NULL struct has NULL fields), which the
        // leaves' null counts test. IS NOT NULL implies nothing of the leaves.
        ("payload IS NULL", "payload IS NULL AND payload.age IS NULL"),
        ("payload IS NOT NULL", "payload IS NOT NULL"),
        (
            "NOT (payload IS NOT NULL)",
            "NOT (payload IS NOT NULL) AND payload.age IS NULL",
        ),
        (
            "payload IS NULL OR price > 2",
            "payload IS NULL AND payload.age IS NULL OR price > 2",
        ),
        // Column names resolve to the schema's spelling.
        ("TRIP_DISTANCE > 5", "trip_distance > 5"),
        ("Payload.AGE > 5", "payload.age > 5"),
    ];
    check_all_normalized(cases);
}

/// Each case's normalized form; an empty expectation: the predicate names an unknown column
/// and is rejected.
fn check_all_normalized(cases: &[(&str, &str)]) {
    for (sql, expected) in cases {
        if expected.is_empty() {
            // Unknown column inside the OR: rejected, not factored.
            let parsed = parse_predicate(sql).unwrap();
            assert!(
                normalize(&parsed, &columns()).is_err(),
                "`{sql}` names an unknown column"
            );
            continue;
        }
        check_normalized(sql, expected);
    }
}

#[test]
fn normalization_rejects_bad_input() {
    let cases: &[(&str, &str)] = &[
        ("nosuch > 5", "unknown column `nosuch`"),
        ("payload.nosuch > 5", "unknown column `payload.nosuch`"),
        ("UPPER(nosuch) = 'x'", "unknown column `nosuch`"),
        ("name LIKE 'abc!' ESCAPE '!'", "escape character"),
        ("1 = 'a'", "cannot compare the literals"),
    ];
    for (sql, expected) in cases {
        let parsed = parse_predicate(sql).unwrap_or_else(|e| panic!("`{sql}` should parse: {e}"));
        let err = normalize(&parsed, &columns()).expect_err(&format!("`{sql}` should be rejected"));
        assert!(
            err.to_string().contains(expected),
            "`{sql}`: got `{err}`, expected it to mention `{expected}`"
        );
        assert_eq!(err.exit_code(), 2, "`{sql}`");
    }
}

// ---------------------------------------------------------------------------------------
// Classification.

fn check_classes(sql: &str, expected: &[(Bucket, &str)], expected_notes: &[&str]) {
    let cols = columns();
    let nnf = normalize(&parse_predicate(sql).unwrap(), &cols).unwrap();
    let classes = classify(&nnf, &cols);
    let got: Vec<(Bucket, String)> = classes
        .fragments
        .iter()
        .map(|f| (f.bucket, f.predicate.to_string()))
        .collect();
    let want: Vec<(Bucket, String)> = expected.iter().map(|(b, s)| (*b, s.to_string())).collect();
    assert_eq!(got, want, "buckets of `{sql}`");
    let codes: Vec<&str> = classes.notes.iter().map(|n| n.code).collect();
    assert_eq!(codes, expected_notes, "notes of `{sql}`");
}

#[test]
fn classification() {
    use Bucket::*;
    check_classes(
        "pickup_date = '2024-01-03' AND trip_distance > 5",
        &[
            (PartitionSafe, "pickup_date = '2024-01-03'"),
            (StatsSafe, "trip_distance > 5"),
        ],
        &[],
    );
    check_classes(
        "UPPER(pickup_date) = '2024-01-03' AND trip_distance > 8",
        &[
            (Unsplittable, "UPPER(pickup_date) = '2024-01-03'"),
            (StatsSafe, "trip_distance > 8"),
        ],
        &[UNSUPPORTED_EXPRESSION],
    );
    check_classes(
        "pickup_date LIKE '%01-03%' AND trip_distance > 5",
        &[
            (PartitionExact, "pickup_date LIKE '%01-03%'"),
            (StatsSafe, "trip_distance > 5"),
        ],
        &[],
    );
    check_classes(
        "pickup_date = '2024-01-03' OR trip_distance > 30",
        &[(
            Unsplittable,
            "pickup_date = '2024-01-03' OR trip_distance > 30",
        )],
        &[UNSPLITTABLE_OR],
    );
    check_classes(
        "(pickup_date = 'a' OR region = 'b') AND name LIKE '%x%'",
        &[
            (PartitionSafe, "pickup_date = 'a' OR region = 'b'"),
            (Unsplittable, "name LIKE '%x%'"),
        ],
        &[UNSUPPORTED_EXPRESSION],
    );
    check_classes(
        "pickup_date LIKE '%3' OR region = 'eu'",
        &[(PartitionExact, "pickup_date LIKE '%3' OR region = 'eu'")],
        &[],
    );
    check_classes(
        "(trip_distance > 1 OR UPPER(name) = 'X') AND vendor = 2",
        &[
            (Unsplittable, "trip_distance > 1 OR UPPER(name) = 'X'"),
            (StatsSafe, "vendor = 2"),
        ],
        &[UNSUPPORTED_EXPRESSION],
    );
    let long_in = format!(
        "pickup_date IN ({})",
        (0..25)
            .map(|i| format!("'d{i}'"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let long_in_render = long_in.clone();
    check_classes(&long_in, &[(PartitionExact, &long_in_render)], &[]);
    check_classes("FALSE", &[(PartitionSafe, "FALSE")], &[]);
    check_classes(
        "payload IS NULL",
        &[
            (Unsplittable, "payload IS NULL"),
            (StatsSafe, "payload.age IS NULL"),
        ],
        &[UNSUPPORTED_EXPRESSION],
    );
    check_classes("TRUE", &[], &[]);
}

// ---------------------------------------------------------------------------------------
// Partition-literal evaluator.

/// One file's raw partition values by key.
#[derive(Debug)]
struct Values(Vec<(String, Option<String>)>);

impl Values {
    fn of(values: &[(&str, Option<&str>)]) -> Values {
        Values(
            values
                .iter()
                .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
                .collect(),
        )
    }
}

impl PartitionValues for Values {
    fn raw(&self, key: &str) -> Option<Option<&str>> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_deref())
    }
}

fn check_eval(sql: &str, values: &[(&str, Option<&str>)], expected: Truths) {
    let cols = columns();
    let nnf = normalize(&parse_predicate(sql).unwrap(), &cols).unwrap();
    let values = Values::of(values);
    assert_eq!(
        PreparedPartitionPredicate::new(&nnf, &cols).evaluate(&values),
        expected,
        "`{sql}` over {values:?}"
    );
}

#[test]
fn partition_evaluator() {
    let d3 = [
        ("pickup_date", Some("2024-01-03")),
        ("col-region", Some("eu")),
        ("day", Some("2024-01-03")),
    ];
    let null_date = [
        ("pickup_date", None),
        ("col-region", Some("")),
        ("day", None),
    ];
    type Case<'a> = (&'a str, &'a [(&'a str, Option<&'a str>)], Truths);
    let cases: &[Case] = &[
        ("pickup_date = '2024-01-03'", &d3, Truths::TRUE),
        ("pickup_date = '2024-01-04'", &d3, Truths::FALSE),
        ("pickup_date LIKE '%01-03%'", &d3, Truths::TRUE),
        ("pickup_date LIKE '%01-04%'", &d3, Truths::FALSE),
        ("pickup_date NOT LIKE '%01-04%'", &d3, Truths::TRUE),
        ("pickup_date LIKE '2024-01-0_'", &d3, Truths::TRUE),
        (
            "pickup_date IN ('2024-01-02', '2024-01-03')",
            &d3,
            Truths::TRUE,
        ),
        (
            "pickup_date NOT IN ('2024-01-02', '2024-01-03')",
            &d3,
            Truths::FALSE,
        ),
        // Column mapping: the value is found under the physical name.
        ("region = 'eu'", &d3, Truths::TRUE),
        ("region = 'us'", &d3, Truths::FALSE),
        // Typed comparison, not text: dates compare as dates.
        ("day > '2024-01-02'", &d3, Truths::TRUE),
        ("day = DATE '2024-01-03'", &d3, Truths::TRUE),
        // NULL partition values.
        ("pickup_date = '2024-01-03'", &null_date, Truths::NULL),
        ("pickup_date IS NULL", &null_date, Truths::TRUE),
        ("pickup_date IS NOT NULL", &null_date, Truths::FALSE),
        ("pickup_date LIKE '%'", &null_date, Truths::FALSE),
        ("pickup_date NOT LIKE '%x%'", &null_date, Truths::NULL),
        ("day IS NULL", &null_date, Truths::TRUE),
        // An empty string is the empty string on a string column.
        ("region = ''", &null_date, Truths::TRUE),
        ("region IS NULL", &null_date, Truths::FALSE),
        // Data columns are undecidable here; junctions still decide where they can.
        ("trip_distance > 5", &d3, Truths::UNKNOWN),
        (
            "pickup_date = '2024-01-04' AND trip_distance > 5",
            &d3,
            Truths::FALSE,
        ),
        (
            "pickup_date = '2024-01-03' OR trip_distance > 5",
            &d3,
            Truths::TRUE,
        ),
        (
            "pickup_date = '2024-01-03' AND trip_distance > 5",
            &d3,
            Truths::UNKNOWN,
        ),
        ("UPPER(pickup_date) = 'X'", &d3, Truths::UNKNOWN),
        // A NULL AND an unknown is never TRUE.
        (
            "pickup_date = 'x' AND trip_distance > 5",
            &null_date,
            Truths::NOT_TRUE,
        ),
        // A missing key (a value the log does not carry) is undecidable.
        ("pickup_date = 'x'", &[], Truths::UNKNOWN),
        // An unparsable value is undecidable, not a guess.
        (
            "day = '2024-01-03'",
            &[("day", Some("not-a-date"))],
            Truths::UNKNOWN,
        ),
    ];
    for (sql, values, expected) in cases {
        check_eval(sql, values, *expected);
    }
    assert!(!Truths::NOT_TRUE.may_be_true(), "NULL-or-FALSE prunes");
}

/// Preparing a predicate (columns resolved, literals coerced, patterns tokenized once) decides
/// nothing early: a literal that does not coerce and a pattern that does not tokenize leave the
/// leaf undecided on a value and NULL on a null value, as typing them per file did. The trees
/// are built by hand: the front end refuses such literals before they reach the evaluator.
#[test]
fn a_prepared_predicate_keeps_what_did_not_prepare_undecided() {
    let cols = columns();
    let day = || ColumnRef::new(["day"]);
    let bad_cmp = Nnf::Leaf(Leaf::Cmp {
        column: day(),
        op: CmpOp::Eq,
        literal: Literal::String("not a date".into()),
    });
    let bad_in = Nnf::Leaf(Leaf::In {
        column: day(),
        list: vec![
            Literal::String("2024-01-03".into()),
            Literal::String("not a date".into()),
        ],
        negated: false,
    });
    let bad_like = Nnf::Leaf(Leaf::Like {
        column: ColumnRef::new(["pickup_date"]),
        pattern: "ends with escape\\".into(),
        escape: None,
        negated: false,
    });
    let value = |k: &str, v: Option<&str>| Values::of(&[(k, v)]);
    for (name, nnf, key) in [
        ("cmp", &bad_cmp, "day"),
        ("in", &bad_in, "day"),
        ("like", &bad_like, "pickup_date"),
    ] {
        let prepared = PreparedPartitionPredicate::new(nnf, &cols);
        let (on_value, on_null) = (value(key, Some("2024-01-03")), value(key, None));
        assert_eq!(
            prepared.evaluate(&on_value),
            Truths::UNKNOWN,
            "{name} on a value"
        );
        assert_eq!(prepared.evaluate(&on_null), Truths::NULL, "{name} on NULL");
        // The one-value binding used by the accepted values reads the same.
        let bound = OneValue {
            key,
            value: Some("2024-01-03"),
        };
        assert_eq!(prepared.evaluate(&bound), Truths::UNKNOWN, "{name} bound");
        let bound = OneValue { key, value: None };
        assert_eq!(
            prepared.evaluate(&bound),
            Truths::NULL,
            "{name} bound to NULL"
        );
        // Every other key is absent from a binding: undecided.
        let elsewhere = OneValue {
            key: "bucket",
            value: None,
        };
        assert_eq!(
            prepared.evaluate(&elsewhere),
            Truths::UNKNOWN,
            "{name} unbound"
        );
    }
    // A prepared predicate is reused across files, one answer each.
    let prepared = PreparedPartitionPredicate::new(
        &normalize(&parse_predicate("day > '2024-01-02'").unwrap(), &cols).unwrap(),
        &cols,
    );
    let answers: Vec<Truths> = [Some("2024-01-01"), Some("2024-01-03"), None]
        .into_iter()
        .map(|v| prepared.evaluate(&value("day", v)))
        .collect();
    assert_eq!(answers, [Truths::FALSE, Truths::TRUE, Truths::NULL]);
}

// ---------------------------------------------------------------------------------------
// Coercion and lowering.

fn check_coerce(column: &str, literal: Literal, expected: Result<Scalar, &str>) {
    let cols = columns();
    let info = cols.resolve(&ColumnRef::new([column])).unwrap();
    match (coerce(&literal, &info), expected) {
        // Debug rendering compares NaN equal to NaN, which is what is meant here.
        (Ok(got), Ok(want)) => assert_eq!(
            format!("{got:?}"),
            format!("{want:?}"),
            "{literal} as {column}"
        ),
        (Err(e), Err(fragment)) => {
            assert!(
                e.to_string().contains(fragment),
                "{literal} as {column}: `{e}` should mention `{fragment}`"
            );
            assert_eq!(e.exit_code(), 2);
        }
        (got, want) => panic!("{literal} as {column}: got {got:?}, expected {want:?}"),
    }
}

#[test]
fn literal_coercion() {
    use Literal::*;
    let n = |s: &str| Number(s.to_string());
    let s = |s: &str| String(s.to_string());
    let cases: Vec<(&str, Literal, Result<Scalar, &str>)> = vec![
        ("trip_distance", n("5"), Ok(Scalar::Double(5.0))),
        ("trip_distance", n("-0.0"), Ok(Scalar::Double(-0.0))),
        ("trip_distance", n("1e3"), Ok(Scalar::Double(1000.0))),
        ("trip_distance", s("NaN"), Ok(Scalar::Double(f64::NAN))),
        ("trip_distance", s("abc"), Err("not a number")),
        ("passenger_count", n("5"), Ok(Scalar::Long(5))),
        ("passenger_count", n("5.0"), Ok(Scalar::Long(5))),
        ("passenger_count", n("5.5"), Err("not an integer")),
        ("passenger_count", n("1e2"), Ok(Scalar::Long(100))),
        (
            "passenger_count",
            n("99999999999999999999"),
            Err("out of range"),
        ),
        ("vendor", n("2147483648"), Err("out of range")),
        ("vendor", n("-2147483648"), Ok(Scalar::Integer(i32::MIN))),
        ("vendor", s("5"), Err("not a number")),
        ("ratio", n("0.5"), Ok(Scalar::Float(0.5))),
        ("ratio", n("0.1"), Err("no exact float representation")),
        ("price", n("12.5"), Ok(Scalar::decimal(1250, 5, 2).unwrap())),
        (
            "price",
            n("12.500"),
            Ok(Scalar::decimal(1250, 5, 2).unwrap()),
        ),
        (
            "price",
            n("-999.99"),
            Ok(Scalar::decimal(-99999, 5, 2).unwrap()),
        ),
        ("price", n("12.345"), Err("more fractional digits")),
        ("price", n("1000"), Err("precision")),
        ("name", s("x"), Ok(Scalar::String("x".into()))),
        ("name", n("5"), Err("not a quoted string")),
        ("active", Boolean(true), Ok(Scalar::Boolean(true))),
        ("active", s("true"), Err("not TRUE or FALSE")),
        ("day", s("2024-01-03"), Ok(Scalar::Date(19725))),
        (
            "day",
            Typed {
                kind: crate::ast::TypedLiteralKind::Date,
                text: "1970-01-02".into(),
            },
            Ok(Scalar::Date(1)),
        ),
        ("day", s("2024-13-01"), Err("not a date")),
        ("day", n("20240103"), Err("not a date")),
        (
            "ts",
            s("1970-01-01 00:00:01"),
            Ok(Scalar::Timestamp(1_000_000)),
        ),
        (
            "ts",
            s("1970-01-01T00:00:01Z"),
            Ok(Scalar::Timestamp(1_000_000)),
        ),
        (
            "ts",
            s("1970-01-01 02:00:01+02:00"),
            Ok(Scalar::Timestamp(1_000_000)),
        ),
        ("ts", s("1970-01-01"), Ok(Scalar::Timestamp(0))),
        (
            "ts",
            s("1970-01-01 00:00:00.000001"),
            Ok(Scalar::Timestamp(1)),
        ),
        (
            "ts",
            s("1970-01-01 00:00:00.0000001"),
            Err("sub-microsecond"),
        ),
        (
            "ts_ntz",
            s("1970-01-01 00:00:01"),
            Ok(Scalar::TimestampNtz(1_000_000)),
        ),
        ("ts_ntz", s("1970-01-01 00:00:01+02:00"), Err("ambiguous")),
        ("ts_ntz", s("1970-01-01T00:00:01Z"), Err("ambiguous")),
        ("payload", n("1"), Err("cannot be compared")),
    ];
    for (column, literal, expected) in cases {
        check_coerce(column, literal, expected);
    }
}

#[test]
fn exact_numbers() {
    let cases: &[(&str, Option<(i128, i32)>)] = &[
        ("5", Some((5, 0))),
        ("5.50", Some((55, 1))),
        ("-0.0", Some((0, 0))),
        ("1e3", Some((1, -3))),
        ("1.5E-2", Some((15, 3))),
        ("+7", Some((7, 0))),
        (".5", Some((5, 1))),
        ("abc", None),
        ("1.2.3", None),
        ("", None),
    ];
    for (text, expected) in cases {
        let got = ExactNumber::parse(text).map(|n| (n.mantissa, n.scale));
        assert_eq!(got, *expected, "ExactNumber::parse({text:?})");
    }
    assert!(ExactNumber::parse("1.0") == ExactNumber::parse("1"));
    assert!(ExactNumber::parse("0.1") < ExactNumber::parse("0.11"));
}

fn check_lowered(sql: &str, expected: Option<&str>) {
    let cols = columns();
    let nnf = normalize(&parse_predicate(sql).unwrap(), &cols).unwrap();
    check_literals(&nnf, &cols).unwrap();
    let (weak, _) = nnf.weaken(&kernel_can_evaluate);
    let lowered = to_kernel(&weak, &cols).unwrap().map(|p| p.to_string());
    assert_eq!(lowered.as_deref(), expected, "kernel predicate of `{sql}`");
}

#[test]
fn lowering() {
    let cases: &[(&str, Option<&str>)] = &[
        ("trip_distance > 5", Some("Column(trip_distance) > 5")),
        ("passenger_count = 5", Some("Column(passenger_count) = 5")),
        (
            "pickup_date IN ('a', 'b')",
            Some("OR(Column(pickup_date) = 'a', Column(pickup_date) = 'b')"),
        ),
        (
            "vendor NOT IN (1, 2)",
            Some("AND(NOT(Column(vendor) = 1), NOT(Column(vendor) = 2))"),
        ),
        ("name IS NULL", Some("Column(name) IS NULL")),
        ("active", Some("Column(active) = true")),
        ("NOT active", Some("Column(active) = false")),
        ("payload.age > 30", Some("Column(payload.age) > 30")),
        ("TRUE", None),
        ("FALSE", Some("false")),
        // Unsupported leaves weaken to TRUE: dropped under AND, the whole OR under OR.
        (
            "UPPER(name) = 'A' AND trip_distance > 8",
            Some("Column(trip_distance) > 8"),
        ),
        ("UPPER(name) = 'A' OR trip_distance > 8", None),
        (
            "(UPPER(name) = 'A' AND vendor = 1) OR trip_distance > 8",
            Some("OR(Column(vendor) = 1, Column(trip_distance) > 8)"),
        ),
        ("name LIKE '%x%'", None),
    ];
    for (sql, expected) in cases {
        check_lowered(sql, *expected);
    }
}

#[test]
fn weakening_records_what_it_strips() {
    let cols = columns();
    let nnf = normalize(
        &parse_predicate("UPPER(name) = 'A' AND trip_distance > 8 AND name LIKE '%x%'").unwrap(),
        &cols,
    )
    .unwrap();
    let (weak, stripped) = nnf.weaken(&kernel_can_evaluate);
    assert_eq!(weak.to_string(), "trip_distance > 8");
    let stripped: Vec<String> = stripped.iter().map(Leaf::to_string).collect();
    assert_eq!(stripped, ["UPPER(name) = 'A'", "name LIKE '%x%'"]);
}

/// The columns of the guard cases: each kind of column a guard fires on.
fn guard_columns() -> TableColumns {
    let widened = StructField::nullable("widened", DataType::DOUBLE).with_metadata([(
        ColumnMetadataKey::TypeChanges.as_ref().to_string(),
        MetadataValue::Other(
            serde_json::json!([{"fromType": "float", "toType": "double", "tableVersion": 1}]),
        ),
    )]);
    let schema = StructType::try_new([
        StructField::nullable("x", DataType::DOUBLE),
        StructField::nullable("f", DataType::FLOAT),
        StructField::nullable("pz", DataType::DOUBLE),
        widened,
        StructField::nullable("wide", DataType::decimal(38, 18).unwrap()),
        StructField::nullable("narrow", DataType::decimal(15, 2).unwrap()),
        StructField::nullable("s", DataType::STRING),
        StructField::nullable("n", DataType::LONG),
    ])
    .unwrap();
    TableColumns::new(schema, vec!["pz".into()])
}

/// Checks what the guard table makes of `sql`: the scanned predicate and the hazard codes
/// with their effects.
fn check_guard(sql: &str, strict: bool, scanned: &str, hazards: &[&str]) {
    let cols = guard_columns();
    let nnf = normalize(&parse_predicate(sql).unwrap(), &cols).unwrap();
    let guarded = crate::guards::guard(&nnf, &cols, strict);
    let mode = if strict { "--strict" } else { "default" };
    assert_eq!(
        guarded.predicate.to_string(),
        scanned,
        "scanned form of `{sql}` ({mode})"
    );
    let codes: Vec<String> = guarded
        .hazards
        .iter()
        .map(|h| format!("{}:{}", h.code(), h.effect.label()))
        .collect();
    assert_eq!(codes, hazards, "hazards of `{sql}` ({mode})");
    // Every scanned form lowers: the rewritten literals fit their columns.
    to_kernel(&guarded.predicate, &cols)
        .unwrap_or_else(|e| panic!("`{sql}` lowers after guarding: {e}"));
}

/// A long `IN` list (over the kernel's expansion cap) is judged by the guards as written, as a
/// short one is, and only then bounded by its hull, whose bounds the rewriting guards widen.
#[test]
fn a_long_in_list_is_judged_as_written_then_bounded() {
    let cols = guard_columns();
    let list = |values: &[&str]| format!("x IN ({})", values.join(", "));
    let long: Vec<String> = (1..=25).map(|i| format!("{i}.5")).collect();
    let long: Vec<&str> = long.iter().map(String::as_str).collect();
    let full = |sql: &str, strict: bool| {
        let nnf = normalize(&parse_predicate(sql).unwrap(), &cols).unwrap();
        let g = crate::guards::guard_full_scan(&nnf, &cols, strict);
        let codes: Vec<String> = g
            .hazards
            .iter()
            .map(|h| format!("{}:{}", h.code(), h.effect.label()))
            .collect();
        (g.predicate.to_string(), codes)
    };
    for strict in [false, true] {
        // No NaN is in a list of numbers, long or short: nothing to announce or leave out.
        assert_eq!(
            full(&list(&long), strict),
            ("x >= 1.5 AND x <= 25.5".to_string(), Vec::<String>::new()),
            "strict {strict}"
        );
        assert_eq!(full(&list(&long[..2]), strict).1, Vec::<String>::new());
        // A zero bound is widened to the zero that keeps more, as in `x >= 0`.
        let mut zero = long.clone();
        zero[3] = "0";
        let (scanned, codes) = full(&list(&zero), strict);
        assert_eq!(scanned, "x >= -0.0 AND x <= 25.5", "strict {strict}");
        assert_eq!(codes, ["SIGNED_ZERO_WIDENED:widened"]);
        // A NaN in the list is judged as in a short list.
        let mut nan = long.clone();
        nan[0] = "'NaN'";
        let expected = if strict {
            (
                "TRUE".to_string(),
                vec!["NAN_STRICT_EXCLUDED:excluded".to_string()],
            )
        } else {
            (
                full(&list(&nan), false).0,
                vec!["NAN_UNGUARDED_BOUNDS:announced".to_string()],
            )
        };
        assert_eq!(full(&list(&nan), strict), expected);
        assert_eq!(full(&list(&nan[..2]), strict).1, expected.1);
    }
}

#[test]
fn nan_guard_fires_on_every_comparison_a_nan_of_either_sign_satisfies() {
    let cases: &[(&str, bool)] = &[
        // Spark/DuckDB: NaN above every number.
        ("x > 5", true),
        ("x >= 5", true),
        ("x != 5", true),
        ("x = 'NaN'", true),
        ("x IN (1, 'NaN')", true),
        ("x NOT IN (1, 2)", true),
        ("f > 0.5", true),
        // DataFusion: a NaN with its sign bit set is below -inf (pitfall 21).
        ("x < 5", true),
        ("x <= 5", true),
        ("NOT (x >= 5)", true),
        // Never satisfied by a NaN.
        ("x = 5", false),
        ("x IN (1, 2)", false),
        ("x IS NULL", false),
        ("n > 5", false),
        // Partition values are exact.
        ("pz > 5", false),
    ];
    let cols = guard_columns();
    for (sql, exposed) in cases {
        let nnf = normalize(&parse_predicate(sql).unwrap(), &cols).unwrap();
        let nan = |strict: bool| -> (Vec<String>, Nnf) {
            let g = crate::guards::guard(&nnf, &cols, strict);
            let codes = g
                .hazards
                .iter()
                .filter(|h| h.guard == crate::guards::Guard::NanBounds)
                .map(|h| format!("{}:{}", h.code(), h.effect.label()))
                .collect();
            (codes, g.predicate)
        };
        let (default, _) = nan(false);
        let (strict, scanned) = nan(true);
        if *exposed {
            assert_eq!(
                default,
                ["NAN_UNGUARDED_BOUNDS:announced"],
                "should announce: `{sql}`"
            );
            assert_eq!(
                strict,
                ["NAN_STRICT_EXCLUDED:excluded"],
                "--strict should leave out: `{sql}`"
            );
            assert_eq!(
                scanned,
                Nnf::Const(true),
                "--strict scans nothing of `{sql}`"
            );
        } else {
            assert!(
                default.is_empty() && strict.is_empty(),
                "no NaN hazard: `{sql}`"
            );
        }
    }
}

#[test]
fn guards_rewrite_literals_narrowly() {
    let zero = &["SIGNED_ZERO_WIDENED:widened"][..];
    let cases: &[(&str, bool, &str, &[&str])] = &[
        // Signed zero: the zero that keeps more, on data and partition columns alike.
        ("x = 0", false, "x >= -0.0 AND x <= 0.0", zero),
        ("x = 0", true, "x >= -0.0 AND x <= 0.0", zero),
        (
            "x >= 0",
            false,
            "x >= -0.0",
            &[
                "NAN_UNGUARDED_BOUNDS:announced",
                "SIGNED_ZERO_WIDENED:widened",
            ],
        ),
        (
            "x > -0.0",
            false,
            "x > 0.0",
            &[
                "NAN_UNGUARDED_BOUNDS:announced",
                "SIGNED_ZERO_WIDENED:widened",
            ],
        ),
        ("x < 0", true, "TRUE", &["NAN_STRICT_EXCLUDED:excluded"]),
        ("pz = 0", false, "pz >= -0.0 AND pz <= 0.0", zero),
        ("pz != 0", false, "pz < -0.0 OR pz > 0.0", zero),
        (
            "pz IN (0, 2)",
            false,
            "pz >= -0.0 AND pz <= 0.0 OR pz = 2",
            zero,
        ),
        (
            "pz BETWEEN 0 AND 0",
            false,
            "pz >= -0.0 AND pz <= 0.0",
            zero,
        ),
        // DataFusion's IN lists tell the zeros apart: a zero in NOT IN excludes neither.
        ("pz NOT IN (0, 2)", false, "pz != 2", &[]),
        ("pz NOT IN (-0.0, 0)", false, "pz IS NOT NULL", &[]),
        ("f = 0", false, "f >= -0.0 AND f <= 0.0", zero),
        ("x = 0.5", false, "x = 0.5", &[]),
        // Widened from float: one f32 ulp either way.
        (
            "widened = 3.4000000953674316",
            false,
            "widened >= 3.399999856948852 AND widened <= 3.400000333786011",
            &["TYPE_WIDENING_STATS:widened"],
        ),
        ("widened IS NULL", false, "widened IS NULL", &[]),
        // Decimals above 15 digits: widened by a double's rounding, at the column's scale.
        (
            "wide = 1.000000000000000001",
            false,
            "wide >= 0.999999999999999555 AND wide <= 1.000000000000000447",
            &["DECIMAL_ROUNDED_BOUNDS:widened"],
        ),
        (
            "wide > 1",
            false,
            "wide > 0.999999999999999554",
            &["DECIMAL_ROUNDED_BOUNDS:widened"],
        ),
        (
            "wide != 1",
            false,
            "TRUE",
            &["DECIMAL_ROUNDED_BOUNDS:widened"],
        ),
        ("narrow = 1.5", false, "narrow = 1.5", &[]),
        // Strings: cut before a character at or above U+FFFD; the min side is untouched.
        (
            "s >= 'ab\u{1F33C}c'",
            false,
            "s >= 'ab'",
            &["STRING_TIE_BREAKER:widened"],
        ),
        (
            "s > 'ab\u{1F33C}'",
            false,
            "s >= 'ab'",
            &["STRING_TIE_BREAKER:widened"],
        ),
        (
            "s = 'ab\u{FFFD}'",
            false,
            "s >= 'ab' AND s <= 'ab\u{FFFD}'",
            &["STRING_TIE_BREAKER:widened"],
        ),
        ("s <= 'ab\u{1F33C}'", false, "s <= 'ab\u{1F33C}'", &[]),
        ("s > 'zz'", false, "s > 'zz'", &[]),
    ];
    for (sql, strict, scanned, hazards) in cases {
        check_guard(sql, *strict, scanned, hazards);
    }
}

// ---------------------------------------------------------------------------------------
// Comparisons across types (retype.rs): as engines run them, never refused where one runs.

fn check_retype(sql: &str, expected: &str, disagree: bool) {
    let cols = columns();
    let (nnf, notes) = crate::retype::retype(
        &normalize(&parse_predicate(sql).unwrap(), &cols).unwrap(),
        &cols,
    );
    assert_eq!(nnf.to_string(), expected, "retyped `{sql}`");
    // A literal beyond the column's range is noted on its own (every engine agrees on it).
    let disagreements: Vec<_> = notes
        .iter()
        .filter(|n| n.code != crate::retype::LITERAL_OUT_OF_RANGE)
        .collect();
    assert_eq!(
        !disagreements.is_empty(),
        disagree,
        "engines disagree on `{sql}`: {notes:?}"
    );
    check_literals(&nnf, &cols)
        .unwrap_or_else(|e| panic!("`{sql}` -> `{nnf}` has literals of its columns' types: {e}"));
}

#[test]
fn comparisons_across_types_run_as_engines_run_them() {
    let cases: &[(&str, &str, bool)] = &[
        // An integer column against a fraction: decided on the integers around it.
        ("vendor > 1.5", "vendor >= 2", false),
        ("vendor >= 1.5", "vendor >= 2", false),
        ("vendor < 1.5", "vendor <= 1", false),
        ("vendor <= -1.5", "vendor <= -2", false),
        ("vendor = 1.5", "FALSE", false),
        ("vendor != 1.5", "vendor IS NOT NULL", false),
        ("vendor IN (1.5, 2, 3)", "vendor IN (2, 3)", false),
        ("vendor IN (1.5, 2.5)", "FALSE", false),
        (
            "vendor NOT IN (1.5, 2)",
            "vendor IS NOT NULL AND vendor != 2",
            false,
        ),
    ];
    for (sql, expected, disagree) in cases {
        check_retype(sql, expected, *disagree);
    }
}

#[test]
fn doubles_and_numbers_beyond_a_type_run_as_engines_run_them() {
    let cases: &[(&str, &str, bool)] = &[
        // A number with an exponent is a double; the column is compared as a double.
        ("vendor = 1e1", "vendor = 10", false),
        ("vendor = 4.0000000000000001e0", "vendor = 4", false),
        ("vendor > 4.0000000000000001e0", "vendor > 4", false),
        ("vendor >= 2.5e0", "vendor >= 3", false),
        (
            "passenger_count = 9007199254740995e0",
            "passenger_count >= 9007199254740994 AND passenger_count <= 9007199254740998",
            false,
        ),
        (
            "passenger_count > 9007199254740995e0",
            "passenger_count > 9007199254740996",
            false,
        ),
        (
            "passenger_count != 9007199254740995e0",
            "passenger_count != 9007199254740996",
            false,
        ),
        ("price = 1.5e0", "price = 1.50", false),
        // A double in an IN list makes every number in it a double.
        ("vendor IN (1e0, 2)", "vendor IN (1, 2)", false),
        (
            "passenger_count IN (1e0, 9007199254740993)",
            "passenger_count = 1 OR passenger_count >= 9007199254740991 AND passenger_count <= 9007199254740994",
            false,
        ),
        // Beyond the type's range.
        ("vendor < 1e30", "vendor IS NOT NULL", false),
        ("vendor < 99999999999", "vendor IS NOT NULL", false),
        ("vendor > 1e30", "FALSE", false),
        ("vendor > -1e30", "vendor IS NOT NULL", false),
        ("vendor = 99999999999", "FALSE", false),
        // Beyond BIGINT's range (a decimal literal in Spark, at most 38 digits): Spark folds
        // the comparison that holds for every value to TRUE before reading, NULL rows
        // included; DuckDB and DataFusion match the non-NULL rows. The union is TRUE.
        ("vendor > -9223372036854775809", "TRUE", false),
        ("vendor >= -9223372036854775809", "TRUE", false),
        ("passenger_count < 9223372036854775808", "TRUE", false),
        ("passenger_count <= 9223372036854775808", "TRUE", false),
        ("bucket > -9223372036854775809.5", "TRUE", false),
        (
            "passenger_count < 99999999999999999999999999999999999999",
            "TRUE",
            false,
        ),
        (
            "passenger_count > -9223372036854775809 AND vendor = 1",
            "vendor = 1",
            false,
        ),
        // Not folded: the other direction, equality, `!=`, 39 digits (a double in Spark),
        // an exponent (a double), within BIGINT's range, a decimal column.
        ("passenger_count < -9223372036854775809", "FALSE", false),
        ("passenger_count >= 9223372036854775808", "FALSE", false),
        ("passenger_count = 9223372036854775808", "FALSE", false),
        (
            "passenger_count != 9223372036854775808",
            "passenger_count IS NOT NULL",
            false,
        ),
        (
            "passenger_count < 999999999999999999999999999999999999999",
            "passenger_count IS NOT NULL",
            false,
        ),
        (
            "passenger_count > -9.3e18",
            "passenger_count IS NOT NULL",
            false,
        ),
        ("vendor > -2147483649", "vendor IS NOT NULL", false),
        ("price > -100000000000000000000", "price IS NOT NULL", false),
        (
            "NOT (passenger_count < -9223372036854775809)",
            "TRUE",
            false,
        ),
        (
            "NOT (passenger_count > -9223372036854775809)",
            "FALSE",
            false,
        ),
    ];
    for (sql, expected, disagree) in cases {
        check_retype(sql, expected, *disagree);
    }
}

#[test]
fn quoted_numbers_and_scales_run_as_engines_run_them() {
    let cases: &[(&str, &str, bool)] = &[
        // A quoted number is the number.
        ("vendor = '5'", "vendor = 5", false),
        // A quoted fraction: Spark (ANSI off) cuts it toward zero, DuckDB rounds it half away
        // from zero, Spark with ANSI on refuses it; the union of the readings is kept.
        ("passenger_count > '2.5'", "passenger_count > 2", true),
        ("passenger_count >= '2.5'", "passenger_count >= 2", true),
        (
            "passenger_count = '2.5'",
            "passenger_count >= 2 AND passenger_count <= 3",
            true,
        ),
        ("passenger_count = '2.4'", "passenger_count = 2", true),
        (
            "passenger_count = '-2.5'",
            "passenger_count >= -3 AND passenger_count <= -2",
            true,
        ),
        ("passenger_count < '2.5'", "passenger_count < 3", true),
        (
            "passenger_count != '2.5'",
            "passenger_count IS NOT NULL",
            true,
        ),
        (
            "passenger_count IN ('2.5', 7)",
            "passenger_count = 7 OR passenger_count >= 2 AND passenger_count <= 3",
            true,
        ),
        // A quoted number with more digits than a decimal's scale: DuckDB rounds it to the
        // scale, Spark compares as doubles.
        ("price = '1.234'", "price = 1.23", true),
        ("price = '1.235'", "price >= 1.23 AND price <= 1.24", true),
        // A decimal column against more fractional digits than its scale.
        ("price > 1.234", "price >= 1.24", false),
        ("price < -1.234", "price <= -1.24", false),
        ("price = 1.234", "FALSE", false),
        ("price = 1.5", "price = 1.5", false),
        ("price > 1000", "FALSE", false),
        // DataFusion reads a number with a decimal point as a double and compares it with a
        // decimal column at 15 fractional digits (measured): below 1e-15 it is 0.
        ("price = 0.0000000000000001", "price = 0.00", true),
        ("price = 0.000000000000001", "FALSE", false),
        ("price > -0.0000000000000001", "price >= 0.00", true),
        // ... computing the cast in doubles (arrow's `round(v * 10^15)`): 128.01 is read as
        // 128.009999999999984 there, 128.02 as 128.020000000000016.
        ("price > 128.01", "price >= 128.01", true),
        ("price < 128.02", "price <= 128.02", true),
        ("price = 128.01", "price = 128.01", true),
        ("price > 128.5", "price > 128.5", false),
        // A float column against a number with no exact float: engines disagree, both kept.
        ("ratio = 0.1", "ratio = 0.10000000149011612", true),
        ("ratio < 0.1", "ratio <= 0.09999999403953552", true),
        ("ratio <= 0.1", "ratio <= 0.10000000149011612", true),
        ("ratio > 0.1", "ratio >= 0.10000000149011612", true),
        ("ratio != 0.1", "ratio IS NOT NULL", true),
        ("ratio = 0.5", "ratio = 0.5", false),
        // Doubles take every number; strings and dates are left to the coercion.
        ("trip_distance = 0.1", "trip_distance = 0.1", false),
    ];
    for (sql, expected, disagree) in cases {
        check_retype(sql, expected, *disagree);
    }
}

#[test]
fn timestamp_texts_below_the_microsecond_are_read_as_the_engines_read_them() {
    // Spark and DuckDB cut the digits (measured); DataFusion compares in nanoseconds.
    check_retype(
        "ts = '2021-01-01 00:00:00.0000009'",
        "ts = '2021-01-01 00:00:00.000000'",
        true,
    );
    check_retype(
        "ts < '2021-01-01 00:00:00.0000009'",
        "ts <= '2021-01-01 00:00:00.000000'",
        true,
    );
    check_retype(
        "ts != '2021-01-01 00:00:00.0000009'",
        "ts IS NOT NULL",
        true,
    );
    check_retype(
        "ts > '2021-01-01 00:00:00.000001'",
        "ts > '2021-01-01 00:00:00.000001'",
        false,
    );
}

/// Class 7 of the engines' readings (mistyped.rs, sql.rs): literals of a type the column cannot
/// hold and Spark's spellings, read as the engines that run them (harness/tests/it/
/// engine_readings.rs holds each against the engines).
#[test]
fn literals_of_another_type_are_read_as_the_engines_that_run_them() {
    let cases: &[(&str, &str)] = &[
        ("vendor = TRUE", "vendor = 1"),
        ("price > FALSE", "price > 0"),
        ("vendor = 'abc'", "FALSE"),
        ("vendor != 'abc'", "FALSE"),
        (
            "day < TIMESTAMP '2024-01-03 10:30:00'",
            "day <= DATE '2024-01-03'",
        ),
        (
            "day >= TIMESTAMP '2024-01-03 10:30:00'",
            "day > DATE '2024-01-03'",
        ),
        ("day = TIMESTAMP '2024-01-03 10:30:00'", "FALSE"),
        ("day != TIMESTAMP '2024-01-03 10:30:00'", "day IS NOT NULL"),
        (
            "day = TIMESTAMP '2024-01-03 00:00:00'",
            "day = DATE '2024-01-03'",
        ),
    ];
    for (sql, expected) in cases {
        check_retype(sql, expected, true);
    }
    // Readings that depend on the data or the session: the leaf keeps every file.
    for sql in [
        "trip_distance = 'NaN!'",
        "vendor = '0x10'",
        "name = 5",
        "ts > 'yesterday'",
        "vendor IN (1, 'x')",
        "ts_ntz > TIMESTAMP '2024-01-03 10:00:00+00:00'",
    ] {
        let cols = columns();
        let (nnf, notes) = crate::retype::retype(
            &normalize(&parse_predicate(sql).unwrap(), &cols).unwrap(),
            &cols,
        );
        assert!(
            matches!(nnf, Nnf::Leaf(Leaf::Unsupported { .. })),
            "`{sql}` -> {nnf:?}"
        );
        assert_eq!(notes.len(), 1, "`{sql}`: {notes:?}");
    }
    // Spark's suffixed numbers, and a double-quoted text naming no column (Spark's string).
    check_retype("vendor = 2Y", "vendor = 2", false);
    check_retype(
        "vendor = 2s AND vendor < 3L",
        "vendor = 2 AND vendor < 3",
        false,
    );
    check_retype("trip_distance > 1.5D", "trip_distance > 1.5E0", false);
    check_retype("price < 1.5BD", "price < 1.5", false);
    check_normalized("name = \"abc\"", "name = 'abc'");
    // In a list, Spark's strings (a list naming a column is kept); as BETWEEN's bounds, the
    // comparisons BETWEEN stands for, each settled so.
    check_normalized("name IN (\"ab\", \"AB\")", "name IN ('ab', 'AB')");
    check_normalized("name IN (\"ab\", 'cd')", "name IN ('ab', 'cd')");
    check_normalized(
        "name NOT IN (\"ab\", \"AB\")",
        "name != 'ab' AND name != 'AB'",
    );
    check_normalized("name IN (\"vendor\", 'cd')", "name IN (\"vendor\", 'cd')");
    check_normalized("name BETWEEN \"a\" AND 'b'", "name >= 'a' AND name <= 'b'");
    check_normalized(
        "NOT name NOT BETWEEN \"a\" AND \"b\"",
        "name >= 'a' AND name <= 'b'",
    );
    for (sql, expected) in [
        ("vendor = 200Y", "out of the type's range"),
        ("vendor = 1.5Y", "digits only"),
        ("price = 1e2BD", "exponent"),
    ] {
        let err = parse_predicate(sql).expect_err(sql).to_string();
        assert!(err.contains(expected), "`{sql}`: {err}");
    }
    // Names ignoring case as Spark compares them: one character for one.
    check_normalized("GRÖßE > 5", "`größe` > 5");
    assert!(normalize(&parse_predicate("GRÖSSE > 5").unwrap(), &columns()).is_err());
}

#[test]
fn a_float_against_a_number_beyond_its_range_compares_with_infinity() {
    check_retype("ratio > 1e300", "ratio >= 'Infinity'", true);
    check_retype("ratio < -1e300", "ratio <= '-Infinity'", true);
    check_retype("ratio = 1e300", "ratio = 'Infinity'", true);
}

#[test]
fn an_in_list_mixing_numbers_and_special_values_is_retyped_item_by_item() {
    check_retype(
        "ratio IN (0.1, 'NaN')",
        "ratio IN (0.10000000149011612, 'NaN')",
        true,
    );
    check_retype("vendor IN (1.5, '7')", "vendor = 7", false);
}

/// Spark with ANSI off compares an IN list holding a string with a number or date column as
/// strings: `NOT IN` leaves out only the rows whose own text is an item (string_lists.rs).
#[test]
fn not_in_lists_holding_a_string_leave_out_only_the_values_spark_spells() {
    for (sql, expected) in [
        (
            "trip_distance NOT IN ('NaN', 'no such text')",
            "trip_distance IS NOT NULL",
        ),
        (
            "trip_distance NOT IN (\"NaN\", 'no such text')",
            "trip_distance IS NOT NULL",
        ),
        (
            "ts NOT IN ('2024-01-03 00:00:00')",
            "ts != '2024-01-03 00:00:00'",
        ),
        (
            "ts NOT IN ('2024-01-03 00:00:00.000000', '2024-01-03T01:00:00', '2024-01-03 02:00:00.5')",
            "ts != '2024-01-03 02:00:00.5'",
        ),
        ("ts NOT IN ('2024-01-03 00:00:00.100')", "ts IS NOT NULL"),
        ("vendor NOT IN ('x')", "vendor IS NOT NULL"),
        (
            "vendor NOT IN ('3', 'x', '03', 4)",
            "vendor != '3' AND vendor != 4",
        ),
        ("NOT vendor IN ('3', 4.0)", "vendor != '3'"),
        ("price NOT IN ('1.50', '1.5', 2)", "price != '1.50'"),
        (
            "day NOT IN ('2024-01-03', '2024-1-4')",
            "day != '2024-01-03'",
        ),
        ("day NOT IN ('2024-01-03', NULL)", "FALSE"),
        // Without a string, or on a string or boolean column: as written.
        ("vendor NOT IN (3, 4)", "vendor != 3 AND vendor != 4"),
        ("name NOT IN ('3', 4)", "name != '3' AND name != 4"),
        // IN: the string reading matches no row the cast reading does not.
        (
            "trip_distance IN ('1.5', 'x')",
            "trip_distance IN ('1.5', 'x')",
        ),
    ] {
        check_normalized(sql, expected);
    }
    let parsed = parse_predicate("vendor NOT IN ('3', 'x') OR vendor IN ('x', 'y')").unwrap();
    let notes = crate::string_lists::notes(&parsed, &columns());
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].message.starts_with("`vendor NOT IN ('3', 'x')`:"),
        "{}",
        notes[0].message
    );
}
