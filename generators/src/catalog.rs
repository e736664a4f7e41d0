//! Named table specs: the fixed set the test suites use, and a reproducible name for every
//! fault knob. `gen-table <name> <dir>` writes any of them.

use crate::spec::{
    Checkpoint, ColumnSpec, Hint, Kind, Layout, LogShape, Mapping, MappingMode, Quirks,
    StatsPolicy, StringTruncation, TableSpec, Widening,
};

fn col(name: &str, kind: Kind) -> ColumnSpec {
    ColumnSpec {
        name: name.into(),
        kind,
        partition: false,
    }
}

fn part(name: &str, kind: Kind) -> ColumnSpec {
    ColumnSpec {
        name: name.into(),
        kind,
        partition: true,
    }
}

/// Every data type, two partition columns.
fn all_types(name: &str, seed: u64) -> TableSpec {
    TableSpec {
        name: name.into(),
        seed,
        columns: vec![
            part("p_int", Kind::Int32),
            part("p_str", Kind::String),
            col("i8", Kind::Int8),
            col("i16", Kind::Int16),
            col("i32", Kind::Int32),
            col("i64", Kind::Int64),
            col("f32", Kind::Float32),
            col("f64", Kind::Float64),
            col("dec", Kind::Decimal),
            col("s", Kind::String),
            col("b", Kind::Boolean),
            col("d", Kind::Date),
            col("ts", Kind::Timestamp),
            col("ntz", Kind::TimestampNtz),
            col("st", Kind::Struct),
        ],
        partition_values: 3,
        files_per_partition: 3,
        rows_per_file: 24,
        rows_per_row_group: None,
        layout: Layout::Sorted,
        null_fraction: 0.1,
        special_values: false,
        stats: StatsPolicy::default(),
        log: LogShape {
            commits: 2,
            removed_files: vec![],
            checkpoint: Checkpoint::None,
            hint: Hint::Accurate,
        },
        quirks: Quirks::default(),
    }
}

/// The names of the catalog.
pub const NAMES: &[&str] = &[
    "all-types",
    "edge-values",
    "clustered",
    "nan-floats",
    "strings-truncated",
    "strings-bare-prefix",
    "timestamps-truncated",
    "stats-missing",
    "stats-indexed-cols",
    "loose-bounds",
    "checkpoint-classic",
    "checkpoint-multipart",
    "checkpoint-struct-stats",
    "partition-types",
    "nan-negative",
    "signed-zero-partitions",
    "decimal-f64-bounds",
    "strings-legacy-tie-breaker",
    "row-groups",
    "partition-spellings",
    "strings-backslash",
    "strings-char",
    "strings-collated",
    "null-files",
    // Appended, so that the conformance campaign's short form (the first tables of this
    // list) draws the tables it always drew.
    "checkpoint-v2-sidecars",
    "checkpoint-hint-ahead",
    "checkpoint-hint-unreadable",
    "hint-ahead-no-checkpoint",
    "mapping-renames",
    "mapping-id",
    "widening-history",
    "widening-checkpoint",
    "mapping-readded",
    "mapping-id-parquet-names",
    "stats-settings-history",
    "mapping-stats-settings",
];

/// Tables every reader must refuse from a version on (a recorded type change the protocol does
/// not list, [`TableSpec::refused_from`]): apart from [`NAMES`], whose every table reads at its
/// last version; the engine-backed campaign draws from both and checks the refusal.
pub const REFUSED: &[&str] = &["widening-unsupported"];

/// The spec called `name`, with `seed` (each name has a default seed in `named`).
pub fn named_with_seed(name: &str, seed: u64) -> Option<TableSpec> {
    let base = all_types(name, seed);
    shapes(name, base.clone())
        .or_else(|| statistics(name, base.clone()))
        .or_else(|| logs(name, base.clone()))
        .or_else(|| values(name, base.clone()))
        .or_else(|| mappings(name, base.clone()))
        .or_else(|| evolutions(name, base))
}

/// The tables that differ from `all-types` in layout, partitioning or NULLs.
fn shapes(name: &str, base: TableSpec) -> Option<TableSpec> {
    Some(match name {
        "all-types" => base,
        "edge-values" => TableSpec {
            special_values: true,
            layout: Layout::Random,
            ..base
        },
        // Four row groups of six sorted rows per file: footers that prune within a file.
        "row-groups" => TableSpec {
            rows_per_row_group: Some(6),
            ..base
        },
        "clustered" => TableSpec {
            layout: Layout::Clustered,
            ..base
        },
        "partition-types" => TableSpec {
            columns: vec![
                part("pd", Kind::Date),
                part("pts", Kind::Timestamp),
                part("pb", Kind::Boolean),
                part("pdec", Kind::Decimal),
                part("pntz", Kind::TimestampNtz),
                part("pi8", Kind::Int8),
                part("pl", Kind::Int64),
                part("pf", Kind::Float64),
                col("v", Kind::Int64),
            ],
            partition_values: 4,
            files_per_partition: 2,
            null_fraction: 0.2,
            ..base
        },
        // Every type, the first file of each partition NULL in every data column, beside the
        // NULL partition: comparisons an engine folds to TRUE before reading keep them.
        "null-files" => TableSpec {
            quirks: Quirks {
                null_files: true,
                ..Quirks::default()
            },
            ..base
        },
        _ => return None,
    })
}

/// The tables whose writers record statistics as some writer does: truncated, missing, loose, rounded.
fn statistics(name: &str, base: TableSpec) -> Option<TableSpec> {
    Some(match name {
        "strings-truncated" => TableSpec {
            columns: vec![col("s", Kind::String), col("id", Kind::Int64)],
            special_values: true,
            stats: StatsPolicy {
                string_prefix: Some(StringTruncation::SparkStyle(3)),
                ..StatsPolicy::default()
            },
            ..base
        },
        "strings-bare-prefix" => TableSpec {
            columns: vec![col("s", Kind::String), col("id", Kind::Int64)],
            special_values: true,
            stats: StatsPolicy {
                string_prefix: Some(StringTruncation::BarePrefix(3)),
                ..StatsPolicy::default()
            },
            ..base
        },
        "timestamps-truncated" => TableSpec {
            columns: vec![
                part("day", Kind::Date),
                col("ts", Kind::Timestamp),
                col("ntz", Kind::TimestampNtz),
            ],
            stats: StatsPolicy {
                truncate_timestamp_max: true,
                ..StatsPolicy::default()
            },
            ..base
        },
        "stats-missing" => TableSpec {
            stats: StatsPolicy {
                missing_columns: vec!["i64".into(), "s".into()],
                files_without_stats: vec![0, 4],
                ..StatsPolicy::default()
            },
            ..base
        },
        "stats-indexed-cols" => TableSpec {
            stats: StatsPolicy {
                num_indexed_cols: Some(3),
                ..StatsPolicy::default()
            },
            ..base
        },
        "loose-bounds" => TableSpec {
            stats: StatsPolicy {
                loose_bounds: true,
                ..StatsPolicy::default()
            },
            ..base
        },
        // pitfall 23: delta-rs 1.6 writes decimal bounds through a double.
        "decimal-f64-bounds" => TableSpec {
            columns: vec![
                col("w", Kind::WideDecimal),
                col("dec", Kind::Decimal),
                col("id", Kind::Int64),
            ],
            special_values: true,
            stats: StatsPolicy {
                decimal_bounds_f64: true,
                ..StatsPolicy::default()
            },
            ..base
        },
        // pitfall 24: older Delta Spark's U+FFFD tie-breaker against a supplementary character.
        "strings-legacy-tie-breaker" => TableSpec {
            columns: vec![col("s", Kind::String), col("id", Kind::Int64)],
            stats: StatsPolicy {
                string_prefix: Some(StringTruncation::LegacyTieBreaker(3)),
                ..StatsPolicy::default()
            },
            quirks: Quirks {
                supplementary_at: Some(3),
                ..Quirks::default()
            },
            ..base
        },
        _ => return None,
    })
}

/// The tables whose logs hold checkpoints (classic, multi-part, struct statistics, V2) and hints, broken or not.
fn logs(name: &str, base: TableSpec) -> Option<TableSpec> {
    Some(match name {
        "checkpoint-classic" => TableSpec {
            log: LogShape {
                commits: 3,
                removed_files: vec![1, 5],
                checkpoint: Checkpoint::Classic,
                hint: Hint::Accurate,
            },
            ..base
        },
        "checkpoint-multipart" => TableSpec {
            log: LogShape {
                commits: 3,
                removed_files: vec![2],
                checkpoint: Checkpoint::MultiPart(3),
                hint: Hint::Accurate,
            },
            ..base
        },
        // `checkpoint-classic` with statistics only as `stats_parsed` (Databricks,
        // `writeStatsAsJson = false`): the same files, the same statistics, read from the struct.
        "checkpoint-struct-stats" => TableSpec {
            log: LogShape {
                commits: 3,
                removed_files: vec![1, 5],
                checkpoint: Checkpoint::StructStatsOnly,
                hint: Hint::Accurate,
            },
            ..base
        },
        // A V2 checkpoint whose adds live in two sidecars (the v2Checkpoint feature).
        "checkpoint-v2-sidecars" => TableSpec {
            log: LogShape {
                commits: 3,
                removed_files: vec![1, 5],
                checkpoint: Checkpoint::V2Sidecars(2),
                hint: Hint::Accurate,
            },
            ..base
        },
        // Broken hints (docs/semantics.md, *Checkpoint hints*): `_last_checkpoint` naming a
        // checkpoint past the log, over a classic checkpoint and over none (read from commit
        // 0), and a hint that is not JSON. Every reader must read these tables as the commits
        // say.
        "checkpoint-hint-ahead" => TableSpec {
            log: LogShape {
                commits: 3,
                removed_files: vec![1, 5],
                checkpoint: Checkpoint::Classic,
                hint: Hint::Ahead(2),
            },
            ..base
        },
        "checkpoint-hint-unreadable" => TableSpec {
            log: LogShape {
                commits: 3,
                removed_files: vec![2],
                checkpoint: Checkpoint::MultiPart(2),
                hint: Hint::Unreadable,
            },
            ..base
        },
        "hint-ahead-no-checkpoint" => TableSpec {
            log: LogShape {
                commits: 3,
                removed_files: vec![1],
                checkpoint: Checkpoint::None,
                hint: Hint::Ahead(1),
            },
            ..base
        },
        _ => return None,
    })
}

/// The tables whose values or partition values a writer or an engine spells its own way.
fn values(name: &str, base: TableSpec) -> Option<TableSpec> {
    Some(match name {
        "nan-floats" => TableSpec {
            columns: vec![
                part("p", Kind::Int32),
                col("x", Kind::Float64),
                col("y", Kind::Float32),
                col("id", Kind::Int64),
            ],
            special_values: true,
            files_per_partition: 4,
            stats: StatsPolicy {
                nan_excluded_bounds: true,
                ..StatsPolicy::default()
            },
            ..base
        },
        // pitfall 28: strings holding a backslash or a TAB, read differently by the engines.
        "strings-backslash" => TableSpec {
            columns: vec![
                part("ps", Kind::String),
                col("s", Kind::String),
                col("id", Kind::Int64),
            ],
            partition_values: 6,
            files_per_partition: 1,
            quirks: Quirks {
                backslashes: true,
                ..Quirks::default()
            },
            ..base
        },
        // Spark CHAR(10) string columns: padded values and statistics.
        "strings-char" => TableSpec {
            columns: vec![
                part("p", Kind::Int32),
                col("c", Kind::String),
                col("id", Kind::Int64),
            ],
            quirks: Quirks {
                char_length: Some(10),
                ..Quirks::default()
            },
            // A value a file: a wrong reading of one literal drops its file.
            rows_per_file: 1,
            files_per_partition: 4,
            null_fraction: 0.0,
            ..base
        },
        // A UTF8_LCASE collation: Spark compares ignoring case, the statistics are binary.
        "strings-collated" => TableSpec {
            columns: vec![
                part("p", Kind::Int32),
                col("s", Kind::String),
                col("id", Kind::Int64),
            ],
            quirks: Quirks {
                collation: Some("spark.UTF8_LCASE.75".into()),
                ..Quirks::default()
            },
            // A value a file: a wrong reading of one literal drops its file.
            rows_per_file: 1,
            files_per_partition: 4,
            null_fraction: 0.0,
            ..base
        },
        // pitfall 29: decimal partition values as writers spell them (`2.5` in decimal(10,2),
        // delta-rs 1.6's `0.-25`), which the kernel's parser refuses.
        "partition-spellings" => TableSpec {
            columns: vec![
                part("pdec", Kind::Decimal),
                part("pl", Kind::Int64),
                col("v", Kind::Int64),
                col("w", Kind::Decimal),
            ],
            partition_values: 4,
            files_per_partition: 2,
            null_fraction: 0.2,
            quirks: Quirks {
                writer_partition_spellings: true,
                ..Quirks::default()
            },
            ..base
        },
        // pitfall 21: pandas' 0.0/0.0 on x86 has its sign bit set; delta-rs writes it as is.
        "nan-negative" => TableSpec {
            columns: vec![
                part("p", Kind::Int32),
                col("x", Kind::Float64),
                col("y", Kind::Float32),
                col("id", Kind::Int64),
            ],
            special_values: true,
            files_per_partition: 4,
            stats: StatsPolicy {
                nan_excluded_bounds: true,
                ..StatsPolicy::default()
            },
            quirks: Quirks {
                negative_nan: true,
                ..Quirks::default()
            },
            ..base
        },
        // pitfall 22: `-0.0` (Spark), `0` and `-0` (delta-rs) partitions side by side.
        "signed-zero-partitions" => TableSpec {
            columns: vec![
                part("pf", Kind::Float64),
                col("x", Kind::Float64),
                col("id", Kind::Int64),
            ],
            partition_values: 5,
            files_per_partition: 2,
            null_fraction: 0.0,
            special_values: true,
            stats: StatsPolicy {
                nan_excluded_bounds: true,
                ..StatsPolicy::default()
            },
            quirks: Quirks {
                signed_zero_partitions: true,
                ..Quirks::default()
            },
            ..base
        },
        _ => return None,
    })
}

/// The tables under column mapping, renamed, added again, with their statistics settings.
fn mappings(name: &str, base: TableSpec) -> Option<TableSpec> {
    Some(match name {
        // Column mapping in name mode, renamed after the first commit of adds: two data
        // columns swap names, the partition columns and struct fields lose a `_v0` suffix;
        // files, statistics and partition values name the physical columns.
        "mapping-renames" => TableSpec {
            quirks: Quirks {
                mapping: Some(Mapping {
                    mode: MappingMode::Name,
                    renamed: true,
                    readded: false,
                    parquet_names: false,
                }),
                ..Quirks::default()
            },
            log: LogShape {
                commits: 3,
                ..base.log
            },
            ..base
        },
        // Column mapping in id mode (Parquet fields carry the ids), renamed, with a
        // checkpoint whose `stats_parsed` names the physical columns.
        "mapping-id" => TableSpec {
            columns: vec![
                part("p", Kind::Int32),
                col("x", Kind::Int64),
                col("y", Kind::Int64),
                col("s", Kind::String),
                col("d", Kind::Date),
                col("dec", Kind::Decimal),
                col("f", Kind::Float64),
            ],
            quirks: Quirks {
                mapping: Some(Mapping {
                    mode: MappingMode::Id,
                    renamed: true,
                    readded: false,
                    parquet_names: false,
                }),
                ..Quirks::default()
            },
            log: LogShape {
                commits: 3,
                checkpoint: Checkpoint::StructStatsOnly,
                ..base.log
            },
            ..base
        },
        // Column mapping in name mode, renamed, and a column dropped and added again under
        // its name (a new id and physical name): the first files hold the old column.
        "mapping-readded" => TableSpec {
            quirks: Quirks {
                mapping: Some(Mapping {
                    mode: MappingMode::Name,
                    renamed: true,
                    readded: true,
                    parquet_names: false,
                }),
                ..Quirks::default()
            },
            log: LogShape {
                commits: 3,
                ..base.log
            },
            ..base
        },
        // Column mapping in id mode with Parquet fields named unlike the physical names
        // (readers go by field id), a column added again, and a checkpoint.
        "mapping-id-parquet-names" => TableSpec {
            columns: vec![
                part("p", Kind::Int32),
                col("x", Kind::Int64),
                col("y", Kind::Int64),
                col("s", Kind::String),
                col("d", Kind::Date),
                col("f", Kind::Float64),
            ],
            quirks: Quirks {
                mapping: Some(Mapping {
                    mode: MappingMode::Id,
                    renamed: false,
                    readded: true,
                    parquet_names: true,
                }),
                ..Quirks::default()
            },
            log: LogShape {
                commits: 3,
                checkpoint: Checkpoint::Classic,
                ..base.log
            },
            ..base
        },
        // The statistics settings change after the first commit of adds: its files record
        // the first three data columns (`delta.dataSkippingNumIndexedCols = 3`), later files
        // the columns `delta.dataSkippingStatsColumns` names, the first of them out of order.
        // Both histories at once: column mapping in name mode with its rename (the first two
        // data columns swap names), and the statistics settings changed with it. The
        // property's names are logical (renamed with their columns); the files record the
        // physical names they resolve to, the renamed column among them.
        "mapping-stats-settings" => TableSpec {
            stats: StatsPolicy {
                stats_columns: Some(vec!["i16".into(), "f64".into(), "s".into(), "st".into()]),
                ..StatsPolicy::default()
            },
            quirks: Quirks {
                mapping: Some(Mapping {
                    mode: MappingMode::Name,
                    renamed: true,
                    readded: false,
                    parquet_names: false,
                }),
                stats_before: Some(StatsPolicy {
                    num_indexed_cols: Some(3),
                    ..StatsPolicy::default()
                }),
                ..Quirks::default()
            },
            log: LogShape {
                commits: 3,
                ..base.log
            },
            ..base
        },
        _ => return None,
    })
}

/// The tables whose statistics settings or column types change as the log evolves.
fn evolutions(name: &str, base: TableSpec) -> Option<TableSpec> {
    Some(match name {
        "stats-settings-history" => TableSpec {
            stats: StatsPolicy {
                stats_columns: Some(vec!["f64".into(), "s".into(), "d".into(), "i8".into()]),
                ..StatsPolicy::default()
            },
            quirks: Quirks {
                stats_before: Some(StatsPolicy {
                    num_indexed_cols: Some(3),
                    ..StatsPolicy::default()
                }),
                ..Quirks::default()
            },
            log: LogShape {
                commits: 3,
                ..base.log
            },
            ..base
        },
        // Type widening after the first commit of adds: every column in a kind the protocol
        // widens to was written one kind narrower (integers one step, float -> double,
        // decimal(10,2) -> decimal(38,18), date -> timestamp_ntz; the partition integer to
        // long); the first files keep their narrow Parquet types and JSON statistics.
        "widening-history" => widened(base, false, false),
        // The same, with a checkpoint before the change that records statistics only as
        // `stats_parsed` in the narrow types, and a checkpoint after it in the wide ones.
        "widening-checkpoint" => widened(base, true, false),
        // A double column whose change is recorded as long -> double, outside the protocol's
        // list: readable at versions 0 and 1, refused from version 2.
        "widening-unsupported" => widened(base, false, true),
        _ => return None,
    })
}

/// A widening table: [`widened_columns`] changed after the first of three commits of adds.
fn widened(base: TableSpec, checkpoint_before: bool, unsupported: bool) -> TableSpec {
    TableSpec {
        columns: widened_columns(),
        quirks: Quirks {
            widening: Some(Widening {
                checkpoint_before,
                unsupported,
            }),
            ..Quirks::default()
        },
        log: LogShape {
            commits: 3,
            ..base.log
        },
        ..base
    }
}

/// The columns of the widening tables, in their kinds after the change.
fn widened_columns() -> Vec<ColumnSpec> {
    vec![
        part("p", Kind::Int64),
        col("x", Kind::Int64),
        col("h", Kind::Int32),
        col("b", Kind::Int16),
        col("f", Kind::Float64),
        col("dec", Kind::WideDecimal),
        col("t", Kind::TimestampNtz),
        col("s", Kind::String),
    ]
}

/// The spec called `name` with its default seed.
pub fn named(name: &str) -> Option<TableSpec> {
    let seed = match NAMES.iter().position(|n| *n == name) {
        Some(at) => at,
        None => NAMES.len() + REFUSED.iter().position(|n| *n == name)?,
    } as u64
        + 1;
    named_with_seed(name, seed)
}
