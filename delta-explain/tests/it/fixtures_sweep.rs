//! Every shared fixture table explains without error for predicates over each of its
//! partition and data columns, and the survivor sets nest.

use delta_kernel::schema::{DataType, PrimitiveType};
use explain_compiler::ast::ColumnRef;
use explain_core::explain::explain;
use explain_core::replay::ReplayedTable;

use explain_core::diagnose::diagnose;
use explain_core::report::Report;
use explain_core::report::layers::Layers;

use crate::support::{assert_valid_report, fixtures};

/// A literal of the column's type, for a comparison that must coerce.
fn sample_literal(data_type: &DataType) -> Option<&'static str> {
    Some(match data_type {
        DataType::Primitive(p) => match p {
            PrimitiveType::Byte
            | PrimitiveType::Short
            | PrimitiveType::Integer
            | PrimitiveType::Long => "1",
            PrimitiveType::Float | PrimitiveType::Double => "1.5",
            PrimitiveType::Decimal(_) => "1",
            PrimitiveType::String => "'a'",
            PrimitiveType::Boolean => "TRUE",
            PrimitiveType::Date => "'2021-01-01'",
            PrimitiveType::Timestamp | PrimitiveType::TimestampNtz => "'2021-01-01 00:00:00'",
            _ => return None,
        },
        _ => return None,
    })
}

fn quoted(column: &str) -> String {
    column
        .split('.')
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(".")
}

#[test]
fn every_fixture_explains_over_every_column() {
    let mut checked = 0usize;
    for table_dir in testkit::all_tables() {
        let location = table_dir.to_string_lossy().into_owned();
        let table =
            ReplayedTable::open(&location, None).unwrap_or_else(|e| panic!("{location}: {e}"));
        assert!(!table.files().is_empty(), "{location} has live files");
        for name in table.columns().leaf_names() {
            let parts: Vec<String> = name.split('.').map(str::to_string).collect();
            let info = table.columns().resolve(&ColumnRef { path: parts }).unwrap();
            let col = quoted(&name);
            let mut predicates = vec![format!("{col} IS NULL"), format!("{col} IS NOT NULL")];
            if let Some(lit) = sample_literal(&info.data_type) {
                for op in ["=", "!=", "<", ">=", ">"] {
                    predicates.push(format!("{col} {op} {lit}"));
                }
                predicates.push(format!("NOT ({col} = {lit} OR {col} IS NULL)"));
                predicates.push(format!("{col} IN ({lit}, {lit})"));
            }
            for predicate in predicates {
                let ex = explain(&table, Some(&predicate))
                    .unwrap_or_else(|e| panic!("{location}: `{predicate}` failed: {e}"));
                // Nesting: final survivors are a subset of the partition survivors.
                for (i, kept) in ex.kept.iter().enumerate() {
                    assert!(
                        !kept || ex.after_partition[i],
                        "{location}: `{predicate}`: sets must nest"
                    );
                }
                let mut input = ex.total_files();
                for phase in &ex.phases {
                    assert_eq!(
                        phase.input_files, input,
                        "{location}: `{predicate}`: phases chain"
                    );
                    assert!(phase.output_files <= phase.input_files);
                    input = phase.output_files;
                }
                assert_eq!(input, ex.final_files(), "{location}: `{predicate}`");
                if info.is_partition {
                    check_accepted_matches_partition_phase(
                        &table, &ex, &info, &location, &predicate,
                    );
                }
                // The full report, every optional section on, fits the schema.
                let mut report = Report::build(&table, &ex, 0).with_files(&table, &ex, Some(3));
                report.layers = Layers::build(&table, &ex, Some(3));
                report.diagnoses = Some(
                    diagnose(&table, &ex)
                        .unwrap_or_else(|e| panic!("{location}: `{predicate}`: diagnose: {e}")),
                );
                assert_valid_report(&serde_json::to_value(&report).unwrap());
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "only {checked} predicates checked");
}

/// Over one partition column, the partition phase is exact: a file survives it exactly when
/// its value is among the accepted values. Two interpreters (the kernel's partition pruning
/// with the evaluator, and the accepted-set extractor) must agree file by file.
fn check_accepted_matches_partition_phase(
    table: &ReplayedTable,
    ex: &explain_core::explain::Explanation,
    info: &explain_compiler::schema::ColumnInfo,
    location: &str,
    predicate: &str,
) {
    let accepted = ex
        .accepted
        .get(&info.column.dotted())
        .unwrap_or_else(|| panic!("{location}: `{predicate}`: column listed"));
    let accepted = accepted
        .as_ref()
        .unwrap_or_else(|| panic!("{location}: `{predicate}`: the column is constrained"));
    for (i, file) in table.files().iter().enumerate() {
        let value = table
            .partitions()
            .partition(file.partition)
            .get(&info.partition_key)
            .flatten()
            .map(str::to_string);
        assert_eq!(
            accepted.contains(&value),
            ex.after_partition[i],
            "{location}: `{predicate}`: file {} with {}={value:?}: accepted set {accepted:?} and partition phase disagree",
            table.path(i),
            info.column.dotted()
        );
    }
}

/// Table features are declared with their note codes.
#[test]
fn table_features_are_declared() {
    let root = fixtures();
    let cases: &[(&str, &str, Option<&str>)] = &[
        (
            "real/dv-partitioned-with-checkpoint",
            "none",
            Some("DELETION_VECTORS"),
        ),
        (
            "real/table-with-columnmapping-mode-name",
            "name",
            Some("COLUMN_MAPPING"),
        ),
        ("taxi-nyc", "none", None),
    ];
    for (name, mapping, note) in cases {
        let location = root.join(name).to_string_lossy().into_owned();
        let table = ReplayedTable::open(&location, None).unwrap();
        let ex = explain(&table, None).unwrap();
        let report = Report::build(&table, &ex, 0);
        assert_eq!(
            report.table_features.column_mapping_mode.as_deref(),
            (*mapping != "none").then_some(*mapping),
            "{name}"
        );
        let codes: Vec<&str> = report.table_features.notes.iter().map(|n| n.code).collect();
        match note {
            Some(code) => assert!(codes.contains(code), "{name}: {codes:?}"),
            None => assert!(codes.is_empty(), "{name}: {codes:?}"),
        }
        if name.starts_with("real/dv") {
            assert!(
                report
                    .table_features
                    .deletion_vectors
                    .files_with_deletion_vectors
                    > 0,
                "{name}"
            );
        }
    }
}
