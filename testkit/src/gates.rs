//! Tables the protocol tells readers to refuse, beside readable neighbours: the fixtures both
//! binaries' gates are held to (`delta-explain` and `delta-oracle` must agree on each; the
//! decisions are in docs/semantics.md, *Protocol gates*). Each is
//! a copy of `taxi-nyc` (versions 0 to 3) with a commit 4 that changes the protocol or the
//! schema; version 3 of every one reads as taxi-nyc does.

use std::path::PathBuf;

use serde_json::{Value, json};

/// One gate table.
pub struct GateCase {
    pub name: &'static str,
    pub table: PathBuf,
    /// A fragment of the refusal (exit 3) at the latest version; `None` when the table must be
    /// read (exit 0).
    pub refused: Option<&'static str>,
}

/// The gate tables, in a temp dir that lives as long as this value.
pub struct GateTables {
    _dir: tempfile::TempDir,
    pub cases: Vec<GateCase>,
}

/// The version before every gate table's commit 4.
pub const VERSION_BEFORE: u64 = 3;

/// A table's edit of taxi-nyc's schema fields at commit 4.
type Edit = Box<dyn Fn(&mut Vec<Value>)>;

/// One gate table's recipe: name, commit 4's protocol, its edit of the schema, and the
/// refusal's fragment (`None`: readable).
type Recipe = (&'static str, Value, Edit, Option<&'static str>);

/// The protocol of a table with type widening.
fn widening() -> Value {
    json!({"minReaderVersion": 3, "minWriterVersion": 7,
        "readerFeatures": ["timestampNtz", "typeWidening"],
        "writerFeatures": ["timestampNtz", "typeWidening"]})
}

/// The protocol of a table with column mapping.
fn mapping() -> Value {
    json!({"minReaderVersion": 3, "minWriterVersion": 7,
        "readerFeatures": ["timestampNtz", "columnMapping"],
        "writerFeatures": ["timestampNtz", "columnMapping"]})
}

/// A type change recorded at commit 4.
fn change(from: &str, to: &str) -> Value {
    json!([{"fromType": from, "toType": to, "tableVersion": 4}])
}

/// `column` retyped to `to`, with `changes` recorded in its metadata.
fn retype(column: &'static str, to: &'static str, changes: Value) -> Edit {
    Box::new(move |fields: &mut Vec<Value>| {
        let field = fields
            .iter_mut()
            .find(|f| f["name"] == column)
            .expect("a taxi-nyc column");
        field["type"] = json!(to);
        field["metadata"] = json!({"delta.typeChanges": changes.clone()});
    })
}

/// Column mapping annotations on every field: the physical name `prefix` + the name (the
/// data files hold the logical names, so only an empty prefix finds the columns), and, with
/// `ids`, the field's id from `ids(position)`.
fn annotate(prefix: &'static str, ids: Option<fn(usize) -> usize>) -> Edit {
    Box::new(move |fields: &mut Vec<Value>| {
        for (i, field) in fields.iter_mut().enumerate() {
            let name = field["name"].as_str().expect("a field name").to_string();
            let mut metadata =
                json!({"delta.columnMapping.physicalName": format!("{prefix}{name}")});
            if let Some(id) = ids {
                metadata["delta.columnMapping.id"] = json!(id(i));
            }
            field["metadata"] = metadata;
        }
    })
}

/// The tables every reader must refuse at the latest version.
fn refused() -> Vec<Recipe> {
    vec![
        (
            "long-to-double",
            widening(),
            retype("passenger_count", "double", change("long", "double")),
            Some("passenger_count"),
        ),
        (
            "timestamp-ntz-to-timestamp",
            widening(),
            retype(
                "tpep_pickup_datetime",
                "timestamp",
                change("timestamp_ntz", "timestamp"),
            ),
            Some("tpep_pickup_datetime"),
        ),
        (
            "date-to-timestamp",
            widening(),
            Box::new(|fields: &mut Vec<Value>| {
                fields.push(
                    json!({"name": "booked", "type": "timestamp", "nullable": true,
                "metadata": {"delta.typeChanges":
                    [{"fromType": "date", "toType": "timestamp", "tableVersion": 4}]}}),
                );
            }),
            Some("booked"),
        ),
        (
            "decimal-losing-integral-digits",
            widening(),
            Box::new(|fields: &mut Vec<Value>| {
                fields.push(json!({"name": "price", "type": "decimal(10,3)", "nullable": true,
                "metadata": {"delta.typeChanges":
                    [{"fromType": "decimal(10,2)", "toType": "decimal(10,3)", "tableVersion": 4}]}}));
            }),
            Some("price"),
        ),
        (
            "nested-long-to-double",
            widening(),
            Box::new(|fields: &mut Vec<Value>| {
                fields.push(json!({"name": "extra", "nullable": true, "metadata": {},
                "type": {"type": "struct", "fields": [
                    {"name": "a", "type": "double", "nullable": true, "metadata":
                        {"delta.typeChanges":
                            [{"fromType": "long", "toType": "double", "tableVersion": 4}]}}]}}));
            }),
            Some("extra.a"),
        ),
        (
            "reader-version-4",
            json!({"minReaderVersion": 4, "minWriterVersion": 7,
            "readerFeatures": ["timestampNtz"], "writerFeatures": ["timestampNtz"]}),
            Box::new(|_: &mut Vec<Value>| {}),
            Some("4"),
        ),
        (
            "reader-features-below-version-3",
            json!({"minReaderVersion": 2, "minWriterVersion": 7,
            "readerFeatures": ["timestampNtz"], "writerFeatures": ["timestampNtz"]}),
            Box::new(|_: &mut Vec<Value>| {}),
            Some("eader"),
        ),
        (
            // Column mapping in name mode (set below, in the configuration) over a schema
            // whose fields have no physical names.
            "column-mapping-without-physical-names",
            mapping(),
            Box::new(|_: &mut Vec<Value>| {}),
            Some("physicalName"),
        ),
        (
            // Name mode over fields with physical names but no ids: the kernel requires both
            // annotations of every field (as Delta Spark validates them).
            "column-mapping-without-field-ids",
            mapping(),
            annotate("", None),
            Some("columnMapping.id"),
        ),
        (
            // Name mode with every field's id 1: an id names one field.
            "column-mapping-duplicate-field-ids",
            mapping(),
            annotate("", Some(|_| 1)),
            Some("Duplicate"),
        ),
        (
            "unknown-reader-feature",
            json!({"minReaderVersion": 3, "minWriterVersion": 7,
            "readerFeatures": ["timestampNtz", "aFutureReaderFeature"],
            "writerFeatures": ["timestampNtz", "aFutureReaderFeature"]}),
            Box::new(|_: &mut Vec<Value>| {}),
            Some("aFutureReaderFeature"),
        ),
    ]
}

/// The readable neighbours.
fn readable() -> Vec<Recipe> {
    vec![
        // Readable: an unknown writer-only feature, widenings the protocol lists, and one Delta
        // Spark writes (byte -> decimal(4,1)).
        (
            "unknown-writer-feature",
            json!({"minReaderVersion": 3, "minWriterVersion": 7,
            "readerFeatures": ["timestampNtz"],
            "writerFeatures": ["timestampNtz", "aFutureWriterFeature"]}),
            Box::new(|_: &mut Vec<Value>| {}),
            None,
        ),
        (
            // `delta.columnMapping.mode` set while the protocol does not support the feature:
            // the protocol allows the property there and tells readers to ignore it, so the
            // fields read by their logical names (the stale `col-` physical names name
            // nothing in the data files).
            "column-mapping-mode-without-the-feature",
            json!({"minReaderVersion": 3, "minWriterVersion": 7,
            "readerFeatures": ["timestampNtz"], "writerFeatures": ["timestampNtz"]}),
            annotate("col-", Some(|i| i + 1)),
            None,
        ),
        (
            "int-to-long",
            widening(),
            retype("PULocationID", "long", change("integer", "long")),
            None,
        ),
        (
            "added-widened-columns",
            widening(),
            Box::new(|fields: &mut Vec<Value>| {
                fields.push(json!({"name": "price", "type": "decimal(12,3)", "nullable": true,
                "metadata": {"delta.typeChanges":
                    [{"fromType": "decimal(10,2)", "toType": "decimal(12,3)", "tableVersion": 4}]}}));
                fields.push(
                    json!({"name": "tiny", "type": "decimal(4,1)", "nullable": true,
                "metadata": {"delta.typeChanges":
                    [{"fromType": "byte", "toType": "decimal(4,1)", "tableVersion": 4}]}}),
                );
                fields.push(
                    json!({"name": "day", "type": "timestamp_ntz", "nullable": true,
                "metadata": {"delta.typeChanges":
                    [{"fromType": "date", "toType": "timestamp_ntz", "tableVersion": 4}]}}),
                );
            }),
            None,
        ),
    ]
}

/// Writes every gate table.
pub fn gate_tables() -> GateTables {
    let dir = tempfile::tempdir().expect("temp dir");
    let source = crate::fixtures().join("taxi-nyc");
    let cases: Vec<Recipe> = refused().into_iter().chain(readable()).collect();
    let first = std::fs::read_to_string(source.join("_delta_log/00000000000000000000.json"))
        .expect("taxi-nyc's first commit");
    let metadata: Value = first
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|a| a.get("metaData").cloned())
        .expect("a metaData action");
    let schema: Value = serde_json::from_str(metadata["schemaString"].as_str().expect("a schema"))
        .expect("schema JSON");
    let cases = cases
        .into_iter()
        .map(|(name, protocol, edit, refused)| {
            let table = dir.path().join(name);
            crate::copy_tree(&source, &table);
            let mut schema = schema.clone();
            let mut fields = schema["fields"].as_array().expect("fields").clone();
            edit(&mut fields);
            schema["fields"] = Value::Array(fields);
            let mut meta = metadata.clone();
            meta["schemaString"] = json!(schema.to_string());
            if name.starts_with("column-mapping") {
                meta["configuration"] = json!({"delta.columnMapping.mode": "name",
                    "delta.columnMapping.maxColumnId": "20"});
            }
            let commit = [
                json!({"commitInfo": {"timestamp": 1_783_261_100_000_i64, "operation": "CHANGE COLUMN"}}),
                json!({"protocol": protocol}),
                json!({"metaData": meta}),
            ];
            let text: String = commit.iter().map(|a| format!("{a}\n")).collect();
            std::fs::write(
                table.join(format!("_delta_log/{:020}.json", VERSION_BEFORE + 1)),
                text,
            )
            .expect("write commit 4");
            GateCase {
                name,
                table,
                refused,
            }
        })
        .collect();
    GateTables { _dir: dir, cases }
}
