//! The protocol's gate on recorded type changes. A column whose type was widened carries, in
//! its field metadata, `delta.typeChanges`: a list of `{fromType, toType, tableVersion,
//! fieldPath?}`. The protocol (Type Widening, reader requirements): "Readers must validate that
//! they support all type changes in the `delta.typeChanges` field ... and fail when finding any
//! unsupported type change." A change outside the protocol's list (`long` -> `double`, `date`
//! -> `timestamp`, a decimal losing integral digits) means files written before it hold values
//! the new type does not read back, and their statistics bound values in a type the pruning does
//! not know: the table is refused (exit 3), naming the column and the change. The schema checked
//! is the one of the version read, so time travel to before the change stays readable.
//!
//! The oracle holds its own reading of the same list (`oracle/src/delta_schema.rs`); the two are
//! held to the same fixtures (`delta-explain/tests/it/features.rs`, `oracle/tests/it/cli.rs`).

use delta_kernel::schema::{DataType, MetadataValue, StructType};

/// The field metadata key of the recorded type changes.
pub(super) const TYPE_CHANGES: &str = "delta.typeChanges";

/// The first recorded type change of `schema` the protocol does not allow, said as the reason
/// the table is refused; `Ok` when every recorded change is allowed (or none is recorded).
pub(super) fn check(schema: &StructType) -> Result<(), String> {
    check_struct(schema, &mut Vec::new())
}

fn check_struct(fields: &StructType, path: &mut Vec<String>) -> Result<(), String> {
    for field in fields.fields() {
        path.push(field.name().clone());
        if let Some(changes) = field.metadata().get(TYPE_CHANGES) {
            check_changes(changes, path)?;
        }
        check_type(field.data_type(), path)?;
        path.pop();
    }
    Ok(())
}

/// Recurses into the fields a type nests: a struct's, an array's element's, a map's key's and
/// value's (each may be a struct whose fields record changes of their own).
fn check_type(data_type: &DataType, path: &mut Vec<String>) -> Result<(), String> {
    match data_type {
        DataType::Struct(inner) => check_struct(inner, path),
        DataType::Array(array) => {
            path.push("element".into());
            let checked = check_type(array.element_type(), path);
            path.pop();
            checked
        }
        DataType::Map(map) => {
            path.push("key".into());
            check_type(map.key_type(), path)?;
            path.pop();
            path.push("value".into());
            let checked = check_type(map.value_type(), path);
            path.pop();
            checked
        }
        // No field below: nothing more records a change.
        DataType::Primitive(_) | DataType::Variant(_) => Ok(()),
    }
}

/// Checks one field's `delta.typeChanges`: each entry's `fromType` -> `toType` must be a change
/// the protocol lists. An entry this reader cannot read is refused too: it cannot be validated.
fn check_changes(changes: &MetadataValue, path: &[String]) -> Result<(), String> {
    let column = path.join(".");
    let unreadable = |what: &str| {
        format!(
            "column `{column}`: its `{TYPE_CHANGES}` cannot be validated ({what}); the protocol requires readers to refuse a type change they cannot validate"
        )
    };
    let MetadataValue::Other(serde_json::Value::Array(entries)) = changes else {
        return Err(unreadable("not a list"));
    };
    for entry in entries {
        let text = |key: &str| entry.get(key).and_then(serde_json::Value::as_str);
        let (Some(from), Some(to)) = (text("fromType"), text("toType")) else {
            return Err(unreadable("an entry without `fromType` and `toType`"));
        };
        if !allowed(from, to) {
            let at = match text("fieldPath") {
                Some(field_path) => format!("{column}.{field_path}"),
                None => column.clone(),
            };
            let version = entry
                .get("tableVersion")
                .and_then(serde_json::Value::as_u64)
                .map_or(String::new(), |v| format!(" at version {v}"));
            return Err(format!(
                "column `{at}`: the type change {from} -> {to}{version} recorded in `{TYPE_CHANGES}` is not one the Delta protocol allows (type widening); the table cannot be read faithfully"
            ));
        }
    }
    Ok(())
}

/// A Delta primitive type name, as `fromType` and `toType` spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Named {
    Byte,
    Short,
    Integer,
    Long,
    Float,
    Double,
    Date,
    TimestampNtz,
    Decimal {
        precision: u32,
        scale: u32,
    },
    /// Any other name (`string`, `timestamp`, `boolean` ...): no widening starts or ends there.
    Other,
}

fn named(text: &str) -> Named {
    let text = text.trim().to_ascii_lowercase();
    match text.as_str() {
        "byte" | "tinyint" => Named::Byte,
        "short" | "smallint" => Named::Short,
        "integer" | "int" => Named::Integer,
        "long" | "bigint" => Named::Long,
        "float" | "real" => Named::Float,
        "double" => Named::Double,
        "date" => Named::Date,
        "timestamp_ntz" => Named::TimestampNtz,
        other => other
            .strip_prefix("decimal(")
            .and_then(|rest| rest.strip_suffix(')'))
            .and_then(|inner| inner.split_once(','))
            .and_then(|(p, s)| Some((p.trim().parse().ok()?, s.trim().parse().ok()?)))
            .map_or(Named::Other, |(precision, scale)| Named::Decimal {
                precision,
                scale,
            }),
    }
}

/// Whether `from` -> `to` is a widening this reader reads faithfully: the protocol's list
/// (byte -> short -> int -> long; float -> double; byte, short or int -> double; date ->
/// timestamp_ntz; decimal(p, s) -> decimal(p + k1, s + k2) with k1 >= k2 >= 0; an integer to a
/// decimal with at least its integral digits), an integer read as the decimal Delta Spark reads
/// it as (byte decimal(3,0), short decimal(5,0), int decimal(10,0), long decimal(20,0)). The
/// protocol writes the int bound, decimal(10 + k1, k2), for byte and short too; Delta Spark
/// writes and reads byte -> decimal(4,1) (the fixture `real/type-widening`), and every byte fits
/// it, so the narrower bounds stand.
pub(crate) fn allowed(from: &str, to: &str) -> bool {
    use Named::*;
    let widens_decimal = |(p, s): (u32, u32), (p2, s2): (u32, u32)| {
        s2 >= s && i64::from(p2) - i64::from(p) >= i64::from(s2) - i64::from(s)
    };
    match (named(from), named(to)) {
        (Byte, Short | Integer | Long) | (Short, Integer | Long) | (Integer, Long) => true,
        (Float, Double) => true,
        (Byte | Short | Integer, Double) => true,
        (Date, TimestampNtz) => true,
        (
            Decimal { precision, scale },
            Decimal {
                precision: p2,
                scale: s2,
            },
        ) => widens_decimal((precision, scale), (p2, s2)),
        (Byte, Decimal { precision, scale }) => widens_decimal((3, 0), (precision, scale)),
        (Short, Decimal { precision, scale }) => widens_decimal((5, 0), (precision, scale)),
        (Integer, Decimal { precision, scale }) => widens_decimal((10, 0), (precision, scale)),
        (Long, Decimal { precision, scale }) => widens_decimal((20, 0), (precision, scale)),
        // Everything else, narrowing and changes of kind alike: long -> double loses digits,
        // date -> timestamp needs a zone, float -> decimal rounds. Listed by source, no
        // catch-all: a new name has to be decided here.
        (
            Byte | Short | Integer | Long | Float | Double | Date | TimestampNtz | Decimal { .. },
            _,
        )
        | (Other, _) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_protocols_list_and_nothing_else() {
        for (from, to) in [
            ("byte", "short"),
            ("byte", "long"),
            ("short", "integer"),
            ("integer", "long"),
            ("float", "double"),
            ("integer", "double"),
            ("date", "timestamp_ntz"),
            ("decimal(10,2)", "decimal(12,4)"),
            ("decimal(10,2)", "decimal(20,2)"),
            ("decimal(5, 2)", "decimal(8,4)"),
            ("integer", "decimal(10,0)"),
            ("short", "decimal(12,2)"),
            // Delta Spark's bounds for byte and short (the fixture real/type-widening).
            ("byte", "decimal(4,1)"),
            ("short", "decimal(6,1)"),
            ("long", "decimal(20,0)"),
            ("long", "decimal(38,18)"),
        ] {
            assert!(allowed(from, to), "{from} -> {to} is allowed");
        }
        for (from, to) in [
            ("long", "double"),
            ("long", "integer"),
            ("double", "float"),
            ("integer", "float"),
            ("date", "timestamp"),
            ("timestamp_ntz", "timestamp"),
            ("timestamp", "timestamp_ntz"),
            ("decimal(10,2)", "decimal(10,3)"),
            ("decimal(10,2)", "decimal(11,4)"),
            ("decimal(10,2)", "decimal(9,2)"),
            ("decimal(10,2)", "decimal(12,1)"),
            ("integer", "decimal(9,0)"),
            ("integer", "decimal(11,2)"),
            ("byte", "decimal(3,1)"),
            ("short", "decimal(4,0)"),
            ("long", "decimal(19,0)"),
            ("float", "decimal(38,10)"),
            ("string", "long"),
            ("integer", "string"),
            ("decimal(10,x)", "decimal(12,2)"),
        ] {
            assert!(!allowed(from, to), "{from} -> {to} is refused");
        }
    }
}
