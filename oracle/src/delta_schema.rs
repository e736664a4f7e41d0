//! The table schema as the log writes it (`metaData.schemaString`), decoded here without any
//! Delta library, and its Arrow form. Each field keeps its column-mapping physical name and id,
//! so data files (which carry physical names or field ids) can be read under logical names.

use std::sync::Arc;

use arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use serde_json::Value;

use crate::error::OracleError;

/// A Delta data type.
#[derive(Clone, Debug, PartialEq)]
pub enum DeltaType {
    /// `string`, `long`, `integer`, `short`, `byte`, `float`, `double`, `boolean`, `binary`,
    /// `date`, `timestamp`, `timestamp_ntz`.
    Primitive(String),
    Decimal {
        precision: u8,
        scale: i8,
    },
    Struct(Vec<DeltaField>),
    Array {
        element: Box<DeltaType>,
        contains_null: bool,
    },
    Map {
        key: Box<DeltaType>,
        value: Box<DeltaType>,
        value_contains_null: bool,
    },
}

impl DeltaType {
    /// Whether the type holds one value per row (a primitive or a decimal), not a struct, an
    /// array or a map.
    pub fn is_primitive(&self) -> bool {
        match self {
            DeltaType::Primitive(_) | DeltaType::Decimal { .. } => true,
            DeltaType::Struct(_) | DeltaType::Array { .. } | DeltaType::Map { .. } => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeltaField {
    pub name: String,
    pub data_type: DeltaType,
    pub nullable: bool,
    /// `delta.columnMapping.physicalName`, when column mapping assigned one.
    pub physical_name: Option<String>,
    /// `delta.columnMapping.id`: the Parquet field id under `id` mode.
    pub field_id: Option<i64>,
    /// Whether type widening changed this field from `float` (its old files keep f32 stats).
    pub widened_from_float: bool,
    /// Spark's declared type where it is narrower than the Delta type (`char(10)`, from
    /// `__CHAR_VARCHAR_TYPE_STRING`).
    pub spark_type: Option<String>,
    /// The collation of a string field other than binary (`__COLLATIONS`, `spark.UTF8_LCASE.75`).
    pub collation: Option<String>,
}

impl DeltaField {
    /// The name data files and statistics use for this field under `mode`.
    pub fn physical(&self, mode: ColumnMapping) -> &str {
        match mode {
            ColumnMapping::None => &self.name,
            ColumnMapping::Name | ColumnMapping::Id => {
                self.physical_name.as_deref().unwrap_or(&self.name)
            }
        }
    }
}

/// `delta.columnMapping.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnMapping {
    None,
    Name,
    Id,
}

impl ColumnMapping {
    pub fn parse(mode: Option<&str>) -> Result<Self, OracleError> {
        match mode.map(str::to_ascii_lowercase).as_deref() {
            None | Some("none") => Ok(ColumnMapping::None),
            Some("name") => Ok(ColumnMapping::Name),
            Some("id") => Ok(ColumnMapping::Id),
            Some(other) => Err(OracleError::log(format!(
                "unknown column mapping mode `{other}`"
            ))),
        }
    }
}

/// Parses `schemaString` into its top-level fields.
pub fn parse_schema(schema_string: &str) -> Result<Vec<DeltaField>, OracleError> {
    let value: Value = serde_json::from_str(schema_string)
        .map_err(|e| OracleError::log(format!("schemaString is not JSON: {e}")))?;
    match parse_type(&value)? {
        DeltaType::Struct(fields) => Ok(fields),
        other => Err(OracleError::log(format!(
            "schemaString is not a struct: {other:?}"
        ))),
    }
}

/// The first type change recorded in `schema_string` (`delta.typeChanges` of a field at any
/// depth) that the protocol does not allow, as the reason the table is refused; `None` when
/// every recorded change widens as the protocol lists. The protocol tells readers to fail on
/// a change they do not support. An unreadable schema is left to [`parse_schema`].
pub fn unsupported_type_change(schema_string: &str) -> Option<String> {
    let value: Value = serde_json::from_str(schema_string).ok()?;
    let mut found = None;
    visit_fields(&value, "", &mut |path, field| {
        let Some(changes) = field
            .get("metadata")
            .and_then(|m| m.get("delta.typeChanges"))
        else {
            return;
        };
        let Some(list) = changes.as_array() else {
            found.get_or_insert(format!(
                "column `{path}`: `delta.typeChanges` is not a list, so its type changes cannot be validated"
            ));
            return;
        };
        for change in list {
            let name = |k: &str| change.get(k).and_then(Value::as_str).unwrap_or("?");
            if !widens(name("fromType"), name("toType")) {
                let at = match change.get("fieldPath").and_then(Value::as_str) {
                    Some(inner) => format!("{path}.{inner}"),
                    None => path.to_string(),
                };
                found.get_or_insert(format!(
                    "column `{at}`: the type change {} -> {} recorded in `delta.typeChanges` is not one the Delta protocol allows",
                    name("fromType"),
                    name("toType")
                ));
            }
        }
    });
    found
}

/// Why the fields of `schema_string` cannot be read under column mapping (name or id mode),
/// as delta_kernel and Delta Spark validate them: every field (at any depth) carries a string
/// `delta.columnMapping.physicalName` and a numeric `delta.columnMapping.id`, no two fields
/// share an id, no two siblings share a physical name. `None` when they can.
pub fn column_mapping_violation(schema_string: &str) -> Option<String> {
    let value: Value = serde_json::from_str(schema_string).ok()?;
    let mut found = None;
    let mut ids: std::collections::HashMap<i64, String> = Default::default();
    let mut siblings: std::collections::HashSet<(String, String)> = Default::default();
    visit_fields(&value, "", &mut |path, field| {
        if found.is_some() {
            return;
        }
        let metadata = field.get("metadata");
        let annotation = |key: &str| metadata.and_then(|m| m.get(key));
        let Some(physical) = annotation("delta.columnMapping.physicalName").and_then(Value::as_str)
        else {
            found = Some(format!(
                "column mapping is on but field `{path}` has no delta.columnMapping.physicalName"
            ));
            return;
        };
        let Some(id) = annotation("delta.columnMapping.id").and_then(Value::as_i64) else {
            found = Some(format!(
                "column mapping is on but field `{path}` has no numeric delta.columnMapping.id"
            ));
            return;
        };
        if let Some(first) = ids.insert(id, path.to_string()) {
            found = Some(format!(
                "Duplicate column mapping id {id}: fields `{first}` and `{path}`"
            ));
            return;
        }
        let parent = path.rsplit_once('.').map_or("", |(p, _)| p).to_string();
        if !siblings.insert((parent, physical.to_string())) {
            found = Some(format!(
                "Duplicate delta.columnMapping.physicalName `{physical}` among the siblings of `{path}`"
            ));
        }
    });
    found
}

/// Calls `f` with the dotted path and the JSON of every field under the type `value`.
fn visit_fields(value: &Value, prefix: &str, f: &mut dyn FnMut(&str, &Value)) {
    let Some(object) = value.as_object() else {
        return;
    };
    let join = |name: &str| {
        if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}.{name}")
        }
    };
    match object.get("type").and_then(Value::as_str) {
        Some("struct") => {
            for field in object
                .get("fields")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let path = join(field.get("name").and_then(Value::as_str).unwrap_or("?"));
                f(&path, field);
                if let Some(inner) = field.get("type") {
                    visit_fields(inner, &path, f);
                }
            }
        }
        Some("array") => {
            if let Some(element) = object.get("elementType") {
                visit_fields(element, &join("element"), f);
            }
        }
        Some("map") => {
            for (key, part) in [("keyType", "key"), ("valueType", "value")] {
                if let Some(inner) = object.get(key) {
                    visit_fields(inner, &join(part), f);
                }
            }
        }
        _ => {}
    }
}

/// Whether `from` -> `to` widens as the protocol lists it: along byte, short, integer, long;
/// float to double; byte, short or integer to double; date to timestamp_ntz; a decimal to one
/// gaining at least as many digits as scale (an integer read as the decimal of its digits:
/// byte decimal(3,0), short (5,0), integer (10,0), long (20,0), as Delta Spark reads them).
fn widens(from: &str, to: &str) -> bool {
    const INTEGERS: [(&str, u32); 4] = [("byte", 3), ("short", 5), ("integer", 10), ("long", 20)];
    let integer = |name: &str| INTEGERS.iter().position(|(n, _)| *n == name);
    let decimal = |name: &str| -> Option<(u32, u32)> {
        let inner = name.strip_prefix("decimal(")?.strip_suffix(')')?;
        let (p, s) = inner.split_once(',')?;
        Some((p.trim().parse().ok()?, s.trim().parse().ok()?))
    };
    if let (Some(a), Some(b)) = (integer(from), integer(to)) {
        return a < b;
    }
    let from_decimal = decimal(from).or_else(|| integer(from).map(|i| (INTEGERS[i].1, 0)));
    if let (Some((p, s)), Some((p2, s2))) = (from_decimal, decimal(to)) {
        return s2 >= s && p2 >= p && p2 - p >= s2 - s;
    }
    matches!(
        (from, to),
        ("float", "double") | ("byte" | "short" | "integer", "double") | ("date", "timestamp_ntz")
    )
}

fn parse_type(value: &Value) -> Result<DeltaType, OracleError> {
    let bad = || OracleError::log(format!("unreadable type in schemaString: {value}"));
    match value {
        Value::String(name) => {
            if let Some(inner) = name
                .strip_prefix("decimal(")
                .and_then(|r| r.strip_suffix(')'))
            {
                let (p, s) = inner.split_once(',').ok_or_else(bad)?;
                return Ok(DeltaType::Decimal {
                    precision: p.trim().parse().map_err(|_| bad())?,
                    scale: s.trim().parse().map_err(|_| bad())?,
                });
            }
            const PRIMITIVES: &[&str] = &[
                "string",
                "long",
                "integer",
                "short",
                "byte",
                "float",
                "double",
                "boolean",
                "binary",
                "date",
                "timestamp",
                "timestamp_ntz",
            ];
            if PRIMITIVES.contains(&name.as_str()) {
                Ok(DeltaType::Primitive(name.clone()))
            } else {
                Err(OracleError::log(format!(
                    "unsupported type `{name}` in schemaString"
                )))
            }
        }
        Value::Object(o) => match o.get("type").and_then(Value::as_str) {
            Some("struct") => {
                let fields = o.get("fields").and_then(Value::as_array).ok_or_else(bad)?;
                fields
                    .iter()
                    .map(parse_field)
                    .collect::<Result<_, _>>()
                    .map(DeltaType::Struct)
            }
            Some("array") => Ok(DeltaType::Array {
                element: Box::new(parse_type(o.get("elementType").ok_or_else(bad)?)?),
                contains_null: o
                    .get("containsNull")
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
            }),
            Some("map") => Ok(DeltaType::Map {
                key: Box::new(parse_type(o.get("keyType").ok_or_else(bad)?)?),
                value: Box::new(parse_type(o.get("valueType").ok_or_else(bad)?)?),
                value_contains_null: o
                    .get("valueContainsNull")
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
            }),
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

fn parse_field(value: &Value) -> Result<DeltaField, OracleError> {
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| OracleError::log(format!("schema field without a name: {value}")))?;
    let metadata = value.get("metadata");
    let meta = |key: &str| metadata.and_then(|m| m.get(key));
    let widened_from_float = meta("delta.typeChanges")
        .and_then(Value::as_array)
        .is_some_and(|changes| {
            changes
                .iter()
                .any(|c| c.get("fromType").and_then(Value::as_str) == Some("float"))
        });
    Ok(DeltaField {
        name: name.to_string(),
        data_type: parse_type(
            value
                .get("type")
                .ok_or_else(|| OracleError::log(format!("field `{name}` has no type")))?,
        )?,
        nullable: value
            .get("nullable")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        physical_name: meta("delta.columnMapping.physicalName")
            .and_then(Value::as_str)
            .map(str::to_string),
        field_id: meta("delta.columnMapping.id").and_then(Value::as_i64),
        widened_from_float,
        spark_type: meta("__CHAR_VARCHAR_TYPE_STRING")
            .and_then(Value::as_str)
            .map(str::to_string),
        collation: meta("__COLLATIONS")
            .and_then(Value::as_object)
            .and_then(|m| {
                m.values()
                    .filter_map(Value::as_str)
                    .find(|c| !c.to_ascii_uppercase().contains("UTF8_BINARY"))
            })
            .map(str::to_string),
    })
}

/// The Arrow type of a Delta type: timestamps are microseconds, `timestamp` in UTC.
pub fn arrow_type(t: &DeltaType) -> DataType {
    match t {
        DeltaType::Primitive(p) => match p.as_str() {
            "string" => DataType::Utf8,
            "long" => DataType::Int64,
            "integer" => DataType::Int32,
            "short" => DataType::Int16,
            "byte" => DataType::Int8,
            "float" => DataType::Float32,
            "double" => DataType::Float64,
            "boolean" => DataType::Boolean,
            "binary" => DataType::Binary,
            "date" => DataType::Date32,
            "timestamp" => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            _ => DataType::Timestamp(TimeUnit::Microsecond, None),
        },
        DeltaType::Decimal { precision, scale } => DataType::Decimal128(*precision, *scale),
        DeltaType::Struct(fields) => DataType::Struct(arrow_fields(fields)),
        DeltaType::Array {
            element,
            contains_null,
        } => DataType::List(Arc::new(Field::new(
            "element",
            arrow_type(element),
            *contains_null,
        ))),
        DeltaType::Map {
            key,
            value,
            value_contains_null,
        } => DataType::Map(
            Arc::new(Field::new(
                "key_value",
                DataType::Struct(Fields::from(vec![
                    Field::new("key", arrow_type(key), false),
                    Field::new("value", arrow_type(value), *value_contains_null),
                ])),
                false,
            )),
            false,
        ),
    }
}

pub fn arrow_fields(fields: &[DeltaField]) -> Fields {
    // Every field is nullable in Arrow: a column added later reads as NULL in older files.
    fields
        .iter()
        .map(|f| Field::new(&f.name, arrow_type(&f.data_type), true))
        .collect()
}

/// The logical Arrow schema of the table.
pub fn arrow_schema(fields: &[DeltaField]) -> SchemaRef {
    Arc::new(Schema::new(arrow_fields(fields)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_types_and_mapping_metadata() {
        let schema = r#"{"type":"struct","fields":[
            {"name":"a","type":"long","nullable":true,"metadata":{"delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-a"}},
            {"name":"d","type":"decimal(10,2)","nullable":true,"metadata":{}},
            {"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"timestamp_ntz","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},
            {"name":"l","type":{"type":"array","elementType":"string","containsNull":true},"nullable":true,"metadata":{}},
            {"name":"m","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":false},"nullable":true,"metadata":{}},
            {"name":"w","type":"double","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"float","toType":"double","tableVersion":1}]}}
        ]}"#;
        let fields = parse_schema(schema).unwrap();
        assert_eq!(fields[0].physical(ColumnMapping::Name), "col-a");
        assert_eq!(fields[0].physical(ColumnMapping::None), "a");
        assert_eq!(fields[0].field_id, Some(1));
        assert_eq!(
            arrow_type(&fields[1].data_type),
            DataType::Decimal128(10, 2)
        );
        let DataType::Struct(inner) = arrow_type(&fields[2].data_type) else {
            panic!("a struct")
        };
        assert_eq!(
            inner[0].data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, None)
        );
        assert!(matches!(
            arrow_type(&fields[3].data_type),
            DataType::List(_)
        ));
        assert!(matches!(
            arrow_type(&fields[4].data_type),
            DataType::Map(_, false)
        ));
        assert!(fields[5].widened_from_float && !fields[0].widened_from_float);
    }

    #[test]
    fn rejects_unknown_types() {
        assert!(
            parse_schema(r#"{"type":"struct","fields":[{"name":"v","type":"variant"}]}"#).is_err()
        );
        assert!(parse_schema("not json").is_err());
    }
}
