//! Accepted partition values (accepted.rs): the values of a partition column a predicate
//! accepts, decided once per present value over the table's partitions.

use delta_kernel::schema::{ColumnMetadataKey, DataType, MetadataValue, StructField, StructType};
use explain_compiler::normalize::normalize;
use explain_compiler::schema::TableColumns;
use explain_compiler::sql::parse_predicate;

use crate::accepted::{accepted_partition_values, present_values};
use crate::partition_table::PartitionTable;

/// `pickup_date`, `region` (stored as `col-region`) and `bucket` are partition columns.
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
        StructField::nullable("trip_distance", DataType::DOUBLE),
        StructField::nullable("vendor", DataType::INTEGER),
        StructField::nullable("bucket", DataType::INTEGER),
    ])
    .unwrap();
    TableColumns::new(
        schema,
        vec!["pickup_date".into(), "region".into(), "bucket".into()],
    )
}

/// Partitions with these `(pickup_date, region, bucket)` values (`region` under its physical
/// name), one per file.
fn partitions_with(values: &[(Option<&str>, Option<&str>, Option<&str>)]) -> PartitionTable {
    values
        .iter()
        .map(|(date, region, bucket)| {
            [
                ("pickup_date", *date),
                ("col-region", *region),
                ("bucket", *bucket),
            ]
        })
        .collect()
}

fn check_accepted(sql: &str, column: &str, expected: Option<&[Option<&str>]>) {
    let cols = columns();
    let partitions = partitions_with(&[
        (Some("2024-01-01"), Some("eu"), Some("9")),
        (Some("2024-01-02"), Some("us"), Some("10")),
        (Some("2024-01-03"), Some(""), Some("-1")),
        (None, None, None),
    ]);
    let nnf = normalize(&parse_predicate(sql).unwrap(), &cols).unwrap();
    let accepted = accepted_partition_values(
        &nnf,
        &present_values(std::sync::Arc::new(partitions), &cols),
        &cols,
    );
    let got = accepted
        .get(column)
        .unwrap_or_else(|| panic!("`{sql}`: {column} is listed"));
    let expected: Option<Vec<Option<String>>> =
        expected.map(|v| v.iter().map(|s| s.map(str::to_string)).collect());
    assert_eq!(got, &expected, "`{sql}`: accepted values of {column}");
}

/// A partition key's present values are collected only when a predicate constrains its
/// column (a table partitioned by a column of high cardinality has as many as files), and
/// then once: a second predicate reads the same set.
#[test]
fn present_values_are_collected_for_the_columns_a_predicate_constrains() {
    let cols = columns();
    let present = present_values(
        std::sync::Arc::new(partitions_with(&[
            (Some("2024-01-01"), Some("eu"), Some("9")),
            (Some("2024-01-02"), Some("us"), Some("10")),
        ])),
        &cols,
    );
    let keys = ["pickup_date", "col-region", "bucket"];
    let collected = || keys.map(|k| present.is_collected(k));
    let accept = |sql: &str| {
        let nnf = normalize(&parse_predicate(sql).unwrap(), &cols).unwrap();
        accepted_partition_values(&nnf, &present, &cols)
    };
    let data_only = accept("trip_distance > 5 AND vendor = 2");
    assert!(data_only.values().all(Option::is_none), "{data_only:?}");
    assert_eq!(
        collected(),
        [false; 3],
        "no partition column is constrained"
    );
    accept("pickup_date = '2024-01-02' OR trip_distance > 5");
    accept("pickup_date = '2024-01-02'");
    assert_eq!(collected(), [true, false, false]);
    let first = present.get("pickup_date").unwrap();
    accept("pickup_date > '2024-01-01' AND region = 'us'");
    assert_eq!(collected(), [true, true, false]);
    assert!(
        first.is_same_set(&present.get("pickup_date").unwrap()),
        "collected once"
    );
    assert!(present.get("no-such-key").is_none());
}

#[test]
fn accepted_partition_values_are_decided_per_present_value() {
    type Case<'a> = (&'a str, &'a str, Option<&'a [Option<&'a str>]>);
    let cases: &[Case] = &[
        // Equality, IN, IS NULL, as a simple extractor would find them.
        (
            "pickup_date = '2024-01-02' AND trip_distance > 5",
            "pickup_date",
            Some(&[Some("2024-01-02")]),
        ),
        (
            "pickup_date IN ('2024-01-01', '2024-01-03')",
            "pickup_date",
            Some(&[Some("2024-01-01"), Some("2024-01-03")]),
        ),
        ("pickup_date IS NULL", "pickup_date", Some(&[None])),
        // Unconstrained: any value; a constrained column with no present value: empty.
        ("trip_distance > 5", "pickup_date", None),
        ("pickup_date = '2030-01-01'", "pickup_date", Some(&[])),
        (
            "pickup_date = '2024-01-01' AND pickup_date = '2024-01-02'",
            "pickup_date",
            Some(&[]),
        ),
        // Ranges, !=, NOT and LIKE, decided against the present values.
        (
            "pickup_date >= '2024-01-02'",
            "pickup_date",
            Some(&[Some("2024-01-02"), Some("2024-01-03")]),
        ),
        (
            "pickup_date != '2024-01-02'",
            "pickup_date",
            Some(&[Some("2024-01-01"), Some("2024-01-03")]),
        ),
        (
            "NOT (pickup_date LIKE '%3' OR pickup_date IS NULL)",
            "pickup_date",
            Some(&[Some("2024-01-01"), Some("2024-01-02")]),
        ),
        (
            "pickup_date LIKE '%-0_-0%'",
            "pickup_date",
            Some(&[Some("2024-01-01"), Some("2024-01-02"), Some("2024-01-03")]),
        ),
        // Typed comparison, never text: '10' > '9' as integers, ordered as integers.
        ("bucket > 5", "bucket", Some(&[Some("9"), Some("10")])),
        ("bucket < 10", "bucket", Some(&[Some("-1"), Some("9")])),
        // The empty string on a string column is a value, not NULL; physical keys are honoured.
        ("region = ''", "region", Some(&[Some("")])),
        ("region IS NULL", "region", Some(&[None])),
        // A string column's values in their text's order (bytewise), NULL first, whatever
        // order the partitions came in.
        (
            "region = 'eu' OR trip_distance > 5",
            "region",
            Some(&[None, Some(""), Some("eu"), Some("us")]),
        ),
        ("region > 'a'", "region", Some(&[Some("eu"), Some("us")])),
        // OR: a branch that does not constrain the column accepts every value.
        (
            "pickup_date = '2024-01-01' OR trip_distance > 5",
            "pickup_date",
            Some(&[
                None,
                Some("2024-01-01"),
                Some("2024-01-02"),
                Some("2024-01-03"),
            ]),
        ),
        (
            "pickup_date = '2024-01-01' OR pickup_date = '2024-01-03'",
            "pickup_date",
            Some(&[Some("2024-01-01"), Some("2024-01-03")]),
        ),
        // Another partition column's constraint does not narrow this one.
        (
            "pickup_date = '2024-01-01' AND bucket = 10",
            "pickup_date",
            Some(&[Some("2024-01-01")]),
        ),
        (
            "pickup_date = '2024-01-01' AND bucket = 10",
            "bucket",
            Some(&[Some("10")]),
        ),
        // Unsupported expressions decide nothing: every value stays.
        (
            "UPPER(pickup_date) = 'X'",
            "pickup_date",
            Some(&[
                None,
                Some("2024-01-01"),
                Some("2024-01-02"),
                Some("2024-01-03"),
            ]),
        ),
    ];
    for (sql, column, expected) in cases {
        check_accepted(sql, column, *expected);
    }
}
