//! The table's columns as the predicate compiler sees them: name resolution, types, which
//! columns are partition columns, and their physical names under column mapping.

use delta_kernel::schema::{ColumnMetadataKey, DataType, MetadataValue, PrimitiveType, StructType};

use crate::ast::ColumnRef;
use crate::error::ExplainError;

/// A resolved column.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnInfo {
    /// The column's logical path with the schema's spelling (case) of each part.
    pub column: ColumnRef,
    pub data_type: DataType,
    pub is_partition: bool,
    /// The key of this column in a file's `partitionValues` map: the physical name under
    /// column mapping, else the logical name (pitfall 18).
    pub partition_key: String,
    /// The path of this column in the stats JSON: physical names under column mapping.
    pub stats_path: Vec<String>,
    /// Type widening changed this column from `float`: files written before keep f32
    /// statistics, which may not bound the double values they hold (pitfall 7).
    pub widened_from_float: bool,
    /// A string column's collation other than binary (`__COLLATIONS` in its field's metadata,
    /// writer feature `collations-preview`): Spark compares by it, the statistics are binary.
    pub collation: Option<String>,
    /// `n` of a Spark `CHAR(n)` column (`__CHAR_VARCHAR_TYPE_STRING`): Spark pads values and
    /// the literals compared with them to `n` characters.
    pub char_length: Option<usize>,
}

impl ColumnInfo {
    pub fn primitive(&self) -> Option<&PrimitiveType> {
        match &self.data_type {
            DataType::Primitive(p) => Some(p),
            _ => None,
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self.primitive(), Some(PrimitiveType::String))
    }

    pub fn is_float(&self) -> bool {
        matches!(
            self.primitive(),
            Some(PrimitiveType::Float | PrimitiveType::Double)
        )
    }
}

/// The columns of one table snapshot.
#[derive(Clone, Debug)]
pub struct TableColumns {
    schema: StructType,
    partition_columns: Vec<String>,
}

impl TableColumns {
    pub fn new(schema: StructType, partition_columns: Vec<String>) -> Self {
        Self {
            schema,
            partition_columns,
        }
    }

    /// The columns of a snapshot: its logical schema and partition columns.
    pub fn of_snapshot(snapshot: &delta_kernel::Snapshot) -> Self {
        let partition_columns = snapshot
            .table_configuration()
            .metadata()
            .partition_columns()
            .to_vec();
        Self::new(snapshot.schema().as_ref().clone(), partition_columns)
    }

    pub fn partition_columns(&self) -> &[String] {
        &self.partition_columns
    }

    pub fn schema(&self) -> &StructType {
        &self.schema
    }

    /// The columns of `predicate` that resolve, split into (partition, data) columns, each in
    /// order of first appearance. (Columns of a compiled predicate always resolve.)
    pub fn split_columns(&self, predicate: &crate::nnf::Nnf) -> (Vec<ColumnInfo>, Vec<ColumnInfo>) {
        predicate
            .columns()
            .iter()
            .filter_map(|c| self.resolve(c).ok())
            .partition(|i| i.is_partition)
    }

    /// Resolves a column reference. Each part matches a field of the same name exactly, or else
    /// the single field whose name matches ignoring ASCII case (Spark's default resolution);
    /// two case-insensitive matches are ambiguous and rejected rather than guessed.
    pub fn resolve(&self, column: &ColumnRef) -> Result<ColumnInfo, ExplainError> {
        let unknown = || ExplainError::UnknownColumn {
            column: column.dotted(),
            hint: unknown_column_hint(&column.dotted(), &self.leaf_names()),
            available: self.leaf_names().join(", "),
        };
        let mut current = &self.schema;
        let mut canonical = Vec::with_capacity(column.path.len());
        let mut top_physical = None;
        let mut stats_path = Vec::with_capacity(column.path.len());
        let mut data_type = None;
        let mut widened_from_float = false;
        let mut collation = None;
        let mut char_length = None;
        for (depth, part) in column.path.iter().enumerate() {
            let exact = current.fields().find(|f| f.name() == part);
            let field = match exact {
                Some(f) => f,
                None => {
                    let mut folded = current
                        .fields()
                        .filter(|f| same_ignoring_case(f.name(), part));
                    match (folded.next(), folded.next()) {
                        (Some(f), None) => f,
                        (Some(_), Some(_)) => {
                            return Err(ExplainError::InvalidPredicate(format!(
                                "column `{}` is ambiguous: several columns match it ignoring case",
                                column.dotted()
                            )));
                        }
                        _ => return Err(unknown()),
                    }
                }
            };
            canonical.push(field.name().clone());
            let physical =
                match field.get_config_value(&ColumnMetadataKey::ColumnMappingPhysicalName) {
                    Some(MetadataValue::String(p)) => p.clone(),
                    _ => field.name().clone(),
                };
            if depth == 0 {
                top_physical = Some(physical.clone());
            }
            stats_path.push(physical);
            if depth + 1 < column.path.len() {
                match field.data_type() {
                    DataType::Struct(inner) => current = inner,
                    _ => return Err(unknown()),
                }
            } else {
                data_type = Some(field.data_type().clone());
                collation = field_collation(field);
                char_length = match field.metadata().get("__CHAR_VARCHAR_TYPE_STRING") {
                    Some(MetadataValue::String(t)) => char_length_of(t),
                    _ => None,
                };
                widened_from_float = matches!(
                    field.get_config_value(&ColumnMetadataKey::TypeChanges),
                    Some(MetadataValue::Other(serde_json::Value::Array(changes)))
                        if changes.iter().any(|c| c.get("fromType").and_then(serde_json::Value::as_str) == Some("float"))
                );
            }
        }
        let data_type = data_type.ok_or_else(unknown)?;
        let is_partition =
            canonical.len() == 1 && self.partition_columns.iter().any(|p| p == &canonical[0]);
        Ok(ColumnInfo {
            column: ColumnRef { path: canonical },
            data_type,
            is_partition,
            widened_from_float,
            collation,
            char_length,
            partition_key: top_physical.unwrap_or_default(),
            stats_path,
        })
    }

    /// The path of every leaf column.
    pub fn leaf_paths(&self) -> Vec<Vec<String>> {
        fn walk(prefix: &[String], schema: &StructType, out: &mut Vec<Vec<String>>) {
            for f in schema.fields() {
                let mut path = prefix.to_vec();
                path.push(f.name().clone());
                match f.data_type() {
                    DataType::Struct(inner) => walk(&path, inner, out),
                    _ => out.push(path),
                }
            }
        }
        let mut out = Vec::new();
        walk(&[], &self.schema, &mut out);
        out
    }

    /// Dotted names of every leaf column, for error messages.
    pub fn leaf_names(&self) -> Vec<String> {
        fn walk(prefix: &str, schema: &StructType, out: &mut Vec<String>) {
            for f in schema.fields() {
                let name = if prefix.is_empty() {
                    f.name().clone()
                } else {
                    format!("{prefix}.{}", f.name())
                };
                match f.data_type() {
                    DataType::Struct(inner) => walk(&name, inner, out),
                    _ => out.push(name),
                }
            }
        }
        let mut out = Vec::new();
        walk("", &self.schema, &mut out);
        out
    }
}

/// What an unknown column name probably meant. A name that cannot be a column (it starts with a
/// digit, or holds spaces, dashes, colons) was most likely a string in double quotes, which SQL
/// reads as an identifier: the hint shows the single-quoted literal. Otherwise the nearest
/// existing column, when one is near enough to be a typo.
pub fn unknown_column_hint(name: &str, columns: &[String]) -> String {
    let looks_like_a_value = name.starts_with(|c: char| c.is_ascii_digit())
        || name.contains(|c: char| c.is_whitespace() || matches!(c, '-' | ':' | '/' | '%'));
    if looks_like_a_value {
        return format!(
            " (double quotes make an identifier in SQL; for a string write '{}')",
            name.replace('\'', "''")
        );
    }
    let lower = name.to_lowercase();
    let nearest = columns
        .iter()
        .map(|c| (strsim::jaro_winkler(&lower, &c.to_lowercase()), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match nearest {
        Some((_, column)) => format!(" (did you mean `{column}`?)"),
        None => String::new(),
    }
}

/// The collation a string field's metadata names, unless binary: `__COLLATIONS` maps a path
/// to a collation identifier (`spark.UTF8_LCASE.75`, `icu.de_DE.72`).
fn field_collation(field: &delta_kernel::schema::StructField) -> Option<String> {
    let Some(MetadataValue::Other(serde_json::Value::Object(map))) =
        field.metadata().get("__COLLATIONS")
    else {
        return None;
    };
    map.values()
        .filter_map(serde_json::Value::as_str)
        .find(|c| !c.to_ascii_uppercase().contains("UTF8_BINARY"))
        .map(str::to_string)
}

/// `n` of `char(n)` (any case), `None` for `varchar(n)` and anything else.
fn char_length_of(text: &str) -> Option<usize> {
    let t = text.trim().to_ascii_lowercase();
    t.strip_prefix("char(")?
        .strip_suffix(')')?
        .trim()
        .parse()
        .ok()
}

/// Whether two names are equal ignoring case as Spark resolves columns (Java's
/// `String.equalsIgnoreCase`): the same number of characters, each pair equal, or equal in
/// upper case or in lower case by the one-character mapping (`Ö` and `ö` match; `ß` and `SS`
/// do not). DuckDB and DataFusion fold ASCII and Unicode letters alike for such names.
pub fn same_ignoring_case(a: &str, b: &str) -> bool {
    fn single(mut it: impl Iterator<Item = char>) -> Option<char> {
        let c = it.next()?;
        it.next().is_none().then_some(c)
    }
    a.chars().count() == b.chars().count()
        && a.chars().zip(b.chars()).all(|(x, y)| {
            x == y
                || single(x.to_uppercase()).is_some_and(|u| Some(u) == single(y.to_uppercase()))
                || single(x.to_lowercase()).is_some_and(|l| Some(l) == single(y.to_lowercase()))
        })
}
