//! Table specifications: everything a generated table is made of, as plain data (JSON), so a
//! case can be named, stored and reproduced. The same spec (seed included) gives the same
//! bytes.

use serde::{Deserialize, Serialize};

/// A column type the generator can write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    /// `decimal(10, 2)`.
    Decimal,
    /// `decimal(38, 18)`: more digits than a double carries (pitfall 23).
    WideDecimal,
    String,
    Boolean,
    Date,
    Timestamp,
    TimestampNtz,
    /// `struct<a: int, b: string>`.
    Struct,
}

impl Kind {
    /// The Delta type name in `schemaString`.
    pub fn delta_type(self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Kind::Int8 => json!("byte"),
            Kind::Int16 => json!("short"),
            Kind::Int32 => json!("integer"),
            Kind::Int64 => json!("long"),
            Kind::Float32 => json!("float"),
            Kind::Float64 => json!("double"),
            Kind::Decimal => json!("decimal(10,2)"),
            Kind::WideDecimal => json!("decimal(38,18)"),
            Kind::String => json!("string"),
            Kind::Boolean => json!("boolean"),
            Kind::Date => json!("date"),
            Kind::Timestamp => json!("timestamp"),
            Kind::TimestampNtz => json!("timestamp_ntz"),
            Kind::Struct => json!({"type": "struct", "fields": [
                {"name": "a", "type": "integer", "nullable": true, "metadata": {}},
                {"name": "b", "type": "string", "nullable": true, "metadata": {}}
            ]}),
        }
    }

    /// An integer, float or decimal column: one a number literal compares with.
    pub fn is_number(self) -> bool {
        matches!(
            self,
            Kind::Int8
                | Kind::Int16
                | Kind::Int32
                | Kind::Int64
                | Kind::Float32
                | Kind::Float64
                | Kind::Decimal
                | Kind::WideDecimal
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, Kind::Float32 | Kind::Float64)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColumnSpec {
    pub name: String,
    pub kind: Kind,
    /// A partition column (never a struct).
    #[serde(default)]
    pub partition: bool,
}

/// How values are laid out across files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Each file holds a disjoint, increasing slice of the value range: data skipping prunes.
    Sorted,
    /// Each file draws from a narrow window that may overlap its neighbours.
    Clustered,
    /// Uniform over the whole range: every file overlaps every other.
    Random,
}

/// How a file's statistics are recorded.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatsPolicy {
    /// Columns recorded with no min/max/nullCount at all.
    #[serde(default)]
    pub missing_columns: Vec<String>,
    /// Files (by index in the table) written with no statistics.
    #[serde(default)]
    pub files_without_stats: Vec<usize>,
    /// `delta.dataSkippingNumIndexedCols`: only the first N data columns get statistics.
    #[serde(default)]
    pub num_indexed_cols: Option<usize>,
    /// `delta.dataSkippingStatsColumns`: only these data columns get statistics (it takes
    /// precedence over `num_indexed_cols`, as in Delta Spark). Logical names (the spec's);
    /// under column mapping the files record the physical names they resolve to.
    #[serde(default)]
    pub stats_columns: Option<Vec<String>>,
    /// Truncate string bounds to this many characters.
    #[serde(default)]
    pub string_prefix: Option<StringTruncation>,
    /// Leave NaN out of float min/max, as arrow-rs and delta-rs write them (pitfall 2). When
    /// false, a float column holding NaN records no min/max (the sound choice).
    #[serde(default)]
    pub nan_excluded_bounds: bool,
    /// Truncate the timestamp max to milliseconds, as Spark does (pitfall 3).
    #[serde(default)]
    pub truncate_timestamp_max: bool,
    /// Declare `tightBounds: false` and widen numeric bounds by one unit.
    #[serde(default)]
    pub loose_bounds: bool,
    /// Write decimal bounds through a double, as delta-rs 1.6 does: past 15 significant
    /// digits they are rounded to the nearest double (pitfall 23).
    #[serde(default)]
    pub decimal_bounds_f64: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StringTruncation {
    /// Spark: the max gets a U+10FFFF tie-breaker after the prefix.
    SparkStyle(usize),
    /// A bare prefix as max: unsound for `>` (pitfall 4).
    BarePrefix(usize),
    /// Older Delta Spark: the max gets a U+FFFD tie-breaker whenever U+FFFD beats the next
    /// character's first UTF-16 unit, so a supplementary character at the cut (a surrogate
    /// there) leaves the recorded max below the real one in UTF-8 order (pitfall 24). When the
    /// tie-breaker does not win, no max is written.
    LegacyTieBreaker(usize),
}

/// The shape of the log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogShape {
    /// Data files are appended over this many commits (after the metadata commit).
    pub commits: usize,
    /// Files removed in a final commit (by index in write order).
    #[serde(default)]
    pub removed_files: Vec<usize>,
    #[serde(default)]
    pub checkpoint: Checkpoint,
    /// What `_last_checkpoint` says (a hint, the protocol's word).
    #[serde(default)]
    pub hint: Hint,
}

/// What `_last_checkpoint` says of the checkpoints, as writers leave it: each a state of the
/// hint readers must read past (docs/semantics.md, *Checkpoint hints*).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hint {
    /// The newest checkpoint, as its writer records it (none without a checkpoint).
    #[default]
    Accurate,
    /// No `_last_checkpoint` (a writer that never writes one): readers list the log.
    Absent,
    /// Not JSON (a torn write of the hint alone): readers list the log.
    Unreadable,
    /// Names a checkpoint this many versions past the last commit (a writer that crashed
    /// after writing the hint, or a cleanup that removed the checkpoint): readers list the
    /// log, from the newest complete checkpoint or from commit 0.
    Ahead(u64),
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Checkpoint {
    #[default]
    None,
    /// A classic single-file checkpoint at the last version.
    Classic,
    /// A multi-part checkpoint with this many parts at the last version.
    MultiPart(usize),
    /// A classic checkpoint at the last version that records statistics only as the typed
    /// `add.stats_parsed` struct, with no JSON `add.stats` column, as Databricks writes with
    /// `delta.checkpoint.writeStatsAsJson = false`.
    StructStatsOnly,
    /// A V2 checkpoint at the last version: a UUID-named JSON manifest (checkpoint metadata,
    /// protocol, metadata and a sidecar action per sidecar) with the adds in this many
    /// Parquet sidecars under `_delta_log/_sidecars/`, as Spark writes with
    /// `delta.checkpointPolicy = v2`; the table has the `v2Checkpoint` feature from commit 0.
    V2Sidecars(usize),
}

/// A whole table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableSpec {
    pub name: String,
    pub seed: u64,
    pub columns: Vec<ColumnSpec>,
    /// Distinct values per partition column (a NULL partition value is one of them when
    /// `null_fraction > 0`).
    pub partition_values: usize,
    pub files_per_partition: usize,
    pub rows_per_file: usize,
    /// Rows per Parquet row group of a data file (one row group per file when unset), so
    /// footer statistics have several row groups to tell apart.
    #[serde(default)]
    pub rows_per_row_group: Option<usize>,
    pub layout: Layout,
    /// Share of NULL values in data columns (and chance of a NULL partition value).
    pub null_fraction: f64,
    /// Mix in NaN, +-0, +-inf, type extremes, long strings and edge code points.
    pub special_values: bool,
    pub stats: StatsPolicy,
    pub log: LogShape,
    /// What real writers do to values that the readers' semantics then get wrong (pitfalls
    /// 21-24); each off by default.
    #[serde(default)]
    pub quirks: Quirks,
}

/// Real writers' behaviours beyond their statistics policy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Quirks {
    /// NaN values carry the sign bit, as pandas' `0.0/0.0` on x86 does, written unchanged by
    /// delta-rs (pitfall 21): Arrow's order (DataFusion) sorts them below `-inf`.
    #[serde(default)]
    pub negative_nan: bool,
    /// Float partition values include zero as each writer spells it: `-0.0` (Spark), `0` and
    /// `-0` (delta-rs), in partitions of their own (pitfall 22).
    #[serde(default)]
    pub signed_zero_partitions: bool,
    /// String values carry U+1F33C (a supplementary character) at this character position,
    /// where a truncated max cuts them (pitfall 24).
    #[serde(default)]
    pub supplementary_at: Option<usize>,
    /// Decimal partition values as real writers spell some of them (pitfall 29): `2.5` in a
    /// decimal(10,2) column (fewer digits than the scale) and `0.-25` for -0.25 (delta-rs
    /// 1.6), which the kernel's parser refuses.
    #[serde(default)]
    pub writer_partition_spellings: bool,
    /// String values hold a backslash or a TAB after their first character, in turns (pitfall
    /// 28): Spark reads `'a\\b'` as `a\b` and `'a\tb'` as a TAB, DuckDB and DataFusion read
    /// both as written, and LIKE escapes with the backslash in Spark and DataFusion only.
    #[serde(default)]
    pub backslashes: bool,
    /// String data columns are Spark `CHAR(n)` (`__CHAR_VARCHAR_TYPE_STRING`), their values
    /// padded with spaces to `n` as Spark writes them (issue class 5).
    #[serde(default)]
    pub char_length: Option<usize>,
    /// String data columns carry this collation (`__COLLATIONS`, writer feature
    /// `collations-preview`; `spark.UTF8_LCASE.75`), every other value upper-cased: Spark
    /// compares by the collation while the statistics stay binary (issue class 6).
    #[serde(default)]
    pub collation: Option<String>,
    /// The first file of each partition holds NULL in every data column (statistics: no
    /// min or max, a null count equal to the row count): a predicate an engine folds to TRUE
    /// before reading (Spark: `x > -9223372036854775809` on an integer column) matches its
    /// rows, where `x IS NOT NULL` skips the file.
    #[serde(default)]
    pub null_files: bool,
    /// Column mapping (`delta.columnMapping.mode`) with a history of renames: see [`Mapping`].
    #[serde(default)]
    pub mapping: Option<Mapping>,
    /// Type widening (`typeWidening`) with a history: see [`Widening`].
    #[serde(default)]
    pub widening: Option<Widening>,
    /// The statistics policy of the first commit of adds, before a metaData action at version
    /// 2 sets the spec's own (`delta.dataSkippingNumIndexedCols` and
    /// `delta.dataSkippingStatsColumns` changed over the history): the first files record
    /// statistics as this policy says, later files as the spec's does.
    #[serde(default)]
    pub stats_before: Option<StatsPolicy>,
}

/// Type widening as Delta Spark records it (reader and writer feature `typeWidening`,
/// `delta.enableTypeWidening`): the table is written in narrower types and widened after its
/// first commit of adds, each widened field carrying `delta.typeChanges`. The first commit's
/// files keep their narrow Parquet types and statistics; later files are written in the wide
/// types. The spec's kinds are the kinds after the change; [`Widening::narrow`] gives each
/// column's kind before it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Widening {
    /// A checkpoint at the version before the change, recording statistics only as
    /// `stats_parsed` in the narrow types (`delta.checkpoint.writeStatsAsJson = false`), so a
    /// reader of the widened table meets narrow typed statistics.
    pub checkpoint_before: bool,
    /// The change of a double column is recorded as long -> double, a change the protocol
    /// does not list (a long does not fit a double exactly): readers must refuse every version
    /// from the change on, and read the versions before it.
    #[serde(default)]
    pub unsupported: bool,
}

impl Widening {
    /// The kind `column` had before this widening: [`Widening::narrow`], or `long` for a double
    /// column of an unsupported widening.
    pub fn before(&self, column: &ColumnSpec) -> Option<Kind> {
        if self.unsupported && column.kind == Kind::Float64 && !column.partition {
            return Some(Kind::Int64);
        }
        Self::narrow(column)
    }

    /// The version whose metaData widens the table (version 0 holds the protocol and the first
    /// metaData, version 1 the first adds).
    pub const VERSION: u64 = 2;

    /// The kind `column` had before the change, where the protocol lets it widen to its kind:
    /// each integer from the next narrower one, double from float, `decimal(38,18)` from
    /// `decimal(10,2)`, timestamp_ntz from date; a partition column's integers only (their
    /// values' text reads the same in both types).
    pub fn narrow(column: &ColumnSpec) -> Option<Kind> {
        let from = match column.kind {
            Kind::Int16 => Kind::Int8,
            Kind::Int32 => Kind::Int16,
            Kind::Int64 => Kind::Int32,
            Kind::Float64 => Kind::Float32,
            Kind::WideDecimal => Kind::Decimal,
            Kind::TimestampNtz => Kind::Date,
            Kind::Int8
            | Kind::Float32
            | Kind::Decimal
            | Kind::String
            | Kind::Boolean
            | Kind::Date
            | Kind::Timestamp
            | Kind::Struct => return None,
        };
        (!column.partition || from.is_number() && !from.is_float() && from != Kind::Decimal)
            .then_some(from)
    }
}

/// Column mapping as Spark writes it: every column, nested fields included, carries
/// `delta.columnMapping.id` and `delta.columnMapping.physicalName`; the Parquet files, the
/// statistics, `stats_parsed` and `partitionValues` name columns by their physical names (and
/// under `id` mode the Parquet fields carry the ids).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mapping {
    pub mode: MappingMode,
    /// The table was written under other names and renamed after its first commit of adds
    /// (a metaData action that changes only logical names): the first two data columns swap
    /// their names, and every partition column and struct field had the suffix `_v0`. The
    /// spec's names are the names after the rename.
    pub renamed: bool,
    /// At the same change, the last data column (not a struct, not one of the two that swap)
    /// is dropped and added again under its name: a new id and a new physical name. Files
    /// written before hold the old physical column, which readers of the new column must not
    /// read (its values are NULL there, its statistics are not the new column's).
    #[serde(default)]
    pub readded: bool,
    /// Under `id` mode, the Parquet fields are named unlike the physical names (readers find
    /// columns by field id; statistics still name the physical columns).
    #[serde(default)]
    pub parquet_names: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MappingMode {
    Name,
    Id,
}

impl Mapping {
    /// `name` of `column` (the spec's, the name after any rename) as it was before the rename.
    pub fn name_before(&self, spec: &TableSpec, column: &str) -> String {
        if !self.renamed {
            return column.to_string();
        }
        let data = spec.data_columns();
        match data.iter().position(|c| c.name == column) {
            Some(0) if data.len() > 1 => data[1].name.clone(),
            Some(1) => data[0].name.clone(),
            Some(_) => column.to_string(),
            None => format!("{column}_v0"),
        }
    }
}

impl TableSpec {
    /// The first version a reader must refuse (a recorded type change the protocol does not
    /// list), if any.
    pub fn refused_from(&self) -> Option<u64> {
        self.quirks
            .widening
            .as_ref()
            .filter(|w| w.unsupported)
            .map(|_| Widening::VERSION)
    }

    pub fn partition_columns(&self) -> Vec<&ColumnSpec> {
        self.columns.iter().filter(|c| c.partition).collect()
    }

    pub fn data_columns(&self) -> Vec<&ColumnSpec> {
        self.columns.iter().filter(|c| !c.partition).collect()
    }

    pub fn column(&self, name: &str) -> Option<&ColumnSpec> {
        self.columns.iter().find(|c| c.name == name)
    }
}
