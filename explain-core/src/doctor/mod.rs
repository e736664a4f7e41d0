//! Why a table does not skip, from its log alone: the statistics settings in effect and the
//! columns they leave without statistics, each column's statistics across the files and their
//! hazards (`hazards`), the known hazards of the table's writers (`writers`), the layout (file
//! sizes, tiny files per partition, partitions of one file), and for each predicate of a
//! workload what it keeps and why not more (`workload`), with the table property that would
//! give its columns statistics.
//!
//! | code | where | when |
//! |---|---|---|
//! | `NAN_UNGUARDED_BOUNDS` | hazards | a float column: writers leave NaN out of its min/max |
//! | `TIMESTAMP_MILLIS_BOUNDS` | hazards | a timestamp column whose recorded maxima are at millisecond precision |
//! | `TYPE_WIDENING_STATS` | hazards | a column widened (`delta.typeChanges`): older files record bounds in the old type |
//! | `NULL_COUNT_ABSENT` | hazards | files record a column's min/max but not its null count |
//! | `OR_FAN_OUT` | workload | an OR one of whose branches prunes under a tenth of the files, while another prunes more |
//! | `BOUND_AT_QUERY_TIME` | workload | `current_date()`, `current_timestamp()` or `now()` bound to the run's time or `--now` |

mod hazards;
mod workload;
pub mod writers;

use serde::Serialize;

use crate::explain_request::ExplainRequest;
use crate::replay::{ReplayedTable, indexed_columns};
use explain_compiler::error::ExplainError;
use explain_compiler::guards::{NAN_UNGUARDED_BOUNDS, TYPE_WIDENING_STATS};
pub use writers::WriterHazard;

pub const TIMESTAMP_MILLIS_BOUNDS: &str = "TIMESTAMP_MILLIS_BOUNDS";
pub const NULL_COUNT_ABSENT: &str = "NULL_COUNT_ABSENT";
pub const OR_FAN_OUT: &str = "OR_FAN_OUT";
pub const BOUND_AT_QUERY_TIME: &str = "BOUND_AT_QUERY_TIME";

/// Every column hazard code, listed once: the schema's enum and docs/doctor.md say the same
/// (checked by a test).
pub const HAZARD_CODES: &[&str] = &[
    NAN_UNGUARDED_BOUNDS,
    TIMESTAMP_MILLIS_BOUNDS,
    TYPE_WIDENING_STATS,
    NULL_COUNT_ABSENT,
];

/// The workload's reason codes beyond the diagnoses' (`diagnose::DIAGNOSIS_CODES`), listed
/// once.
pub const WORKLOAD_CODES: &[&str] = &[OR_FAN_OUT, BOUND_AT_QUERY_TIME];

/// A predicate (or an OR's branch) prunes weakly when it removes at most this share of the
/// files, as `WEAK_DATA_SKIPPING` counts it.
pub const WEAK_SHARE: f64 = 0.1;

/// The version of the doctor's JSON.
pub const DOCTOR_SCHEMA_VERSION: u32 = 1;

/// Files under this size are tiny: an eighth of the 128 MiB a Delta writer aims at.
pub const TINY_FILE_BYTES: u64 = 16 << 20;

/// The statistics settings of the version read.
#[derive(Clone, Debug, Serialize)]
pub struct StatsSettings {
    /// `delta.dataSkippingNumIndexedCols` (32 when unset; -1: every column).
    pub num_indexed_cols: i64,
    /// `delta.dataSkippingStatsColumns`, which overrides the count where set.
    pub stats_columns: Option<Vec<String>>,
    /// The data columns writers collect statistics for under these settings (leaves of a
    /// struct dotted).
    pub indexed: Vec<String>,
    /// The data columns they leave out.
    pub not_indexed: Vec<String>,
}

/// One data column's statistics across the live files.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnStats {
    pub column: String,
    pub indexed: bool,
    /// Files whose statistics record a minimum and a maximum for it.
    pub files_with_min_max: usize,
    /// Files whose statistics record its null count.
    pub files_with_null_count: usize,
    /// How many files a lookup of one value reads on average, from their recorded ranges
    /// (the clustering depth, as `--ranges` computes it; 1 where the ranges do not overlap);
    /// absent for a column without numeric or time bounds.
    pub average_depth: Option<f64>,
}

/// The files' sizes and how they spread over partitions.
#[derive(Clone, Debug, Serialize)]
pub struct Layout {
    pub files: usize,
    pub bytes: u64,
    pub smallest_bytes: u64,
    pub median_bytes: u64,
    pub largest_bytes: u64,
    /// Files under [`TINY_FILE_BYTES`].
    pub tiny_files: usize,
    pub partitions: usize,
    /// Partitions holding a single file.
    pub partitions_of_one_file: usize,
    /// Files whose statistics record none at all.
    pub files_without_stats: usize,
    /// The share of the files that are tiny, 0 to 1 (0 without files).
    pub tiny_share: f64,
    /// Per partition (none where the table is not partitioned), the most tiny files first.
    pub per_partition: Vec<PartitionLayout>,
}

/// One partition's files.
#[derive(Clone, Debug, Serialize)]
pub struct PartitionLayout {
    /// Its values, `col=value` joined by `/` (`__HIVE_DEFAULT_PARTITION__` for NULL).
    pub partition: String,
    pub files: usize,
    pub bytes: u64,
    pub median_bytes: u64,
    pub tiny_files: usize,
    /// `tiny_files / files`.
    pub tiny_share: f64,
}

/// One predicate of the workload.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadEntry {
    pub predicate: String,
    /// Its explanation's counts, or why it has none.
    pub total_files: Option<usize>,
    pub final_files: Option<usize>,
    pub error: Option<String>,
    /// The diagnoses' codes and messages (`--explain-why`).
    pub reasons: Vec<Reason>,
    /// Data columns it uses that get no statistics under the settings.
    pub columns_without_stats: Vec<String>,
}

/// A reason skipping does not do more, from the diagnoses.
#[derive(Clone, Debug, Serialize)]
pub struct Reason {
    pub code: &'static str,
    pub message: String,
    pub suggestion: String,
}

/// The statement that would give statistics to the columns the workload needs, and what it
/// does not do.
#[derive(Clone, Debug, Serialize)]
pub struct Fix {
    pub columns: Vec<String>,
    /// Live files recording no min/max for at least one of the columns: the files a rewrite
    /// would give statistics.
    pub files_without_their_stats: usize,
    pub statement: String,
    pub caveat: String,
}

/// The statistics settings in effect over a run of versions.
#[derive(Clone, Debug, Serialize)]
pub struct SettingsSpan {
    pub from_version: u64,
    pub to_version: u64,
    pub num_indexed_cols: i64,
    pub stats_columns: Option<Vec<String>>,
}

/// The writers of a run of commits, as their `commitInfo` names them (`engineInfo`, else
/// `clientVersion`; `unknown` where a commit names none).
#[derive(Clone, Debug, Serialize)]
pub struct WriterSpan {
    pub from_version: u64,
    pub to_version: u64,
    pub writer: String,
}

/// A string column's recorded bounds: writers cut long strings to a prefix, a maximum with a
/// tie-breaker character after it (U+10FFFF or U+FFFD) so that it stays above the value.
#[derive(Clone, Debug, Serialize)]
pub struct StringBounds {
    pub column: String,
    /// Maxima that end with a tie-breaker: cut.
    pub truncated_maxima: usize,
    /// The length of the prefix kept, in characters, where maxima were cut.
    pub prefix_length: Option<usize>,
    /// The longest bound recorded, in characters.
    pub longest_bound: usize,
}

/// A hazard of a column's statistics, whatever the predicate.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnHazard {
    pub column: String,
    pub code: &'static str,
    pub message: String,
}

/// The doctor's report.
#[derive(Clone, Debug, Serialize)]
pub struct Doctor {
    pub schema_version: u32,
    pub tool_version: &'static str,
    pub table: String,
    pub version: u64,
    pub statistics: StatsSettings,
    pub columns: Vec<ColumnStats>,
    pub layout: Layout,
    /// The writers of the last [`WRITER_COMMITS`] commits up to the version read.
    pub writers: Vec<WriterSpan>,
    /// The statistics settings in effect over those versions, a span per change: files
    /// written in a span record statistics as its settings say.
    pub settings_history: Vec<SettingsSpan>,
    pub string_bounds: Vec<StringBounds>,
    pub hazards: Vec<ColumnHazard>,
    /// The known hazards (docs/doctor.md) of the writers listed that apply to this table.
    pub writer_hazards: Vec<WriterHazard>,
    pub workload: Vec<WorkloadEntry>,
    pub fix: Option<Fix>,
}

/// The commits whose writers the doctor reads, the last ones up to the version read.
pub const WRITER_COMMITS: u64 = 100;

/// The doctor of `request`'s table at its version, with its predicate and predicates as the
/// workload.
pub fn doctor(request: &ExplainRequest) -> Result<Doctor, ExplainError> {
    let (location, storage) = request.located()?;
    let table = ReplayedTable::open_with(&location, &storage, request.version)?;
    let indexed = indexed_columns(&location, &storage, Some(table.version()))?;
    let statistics = settings(&table, indexed);
    let columns = column_stats(&table, &statistics);
    let layout = layout(&table);
    let (writers, settings_history) = history(
        &location,
        &storage,
        table.version(),
        (
            statistics.num_indexed_cols,
            statistics.stats_columns.clone(),
        ),
    )?;
    let string_bounds = hazards::string_bounds(&table);
    let column_hazards = hazards::hazards(&table, &writers, &columns);
    let writer_hazards = writers::hazards(&writers, shape(&table, &statistics));
    let predicates: Vec<(String, crate::explain_request::Options)> = request
        .predicate
        .iter()
        .map(|p| (p.clone(), request.options.clone()))
        .chain(request.predicates.iter().cloned())
        .collect();
    let pinned = ExplainRequest {
        location: location.clone(),
        storage: storage.clone(),
        catalog: None,
        version: Some(table.version()),
        ..request.clone()
    };
    let workload: Vec<WorkloadEntry> = predicates
        .iter()
        .map(|(p, options)| workload::entry(&pinned, &table, &statistics, p, options))
        .collect();
    let fix = workload::fix(&location, &statistics, &workload, &table);
    Ok(Doctor {
        schema_version: DOCTOR_SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        table: location,
        version: table.version(),
        statistics,
        columns,
        layout,
        writers,
        settings_history,
        string_bounds,
        hazards: column_hazards,
        writer_hazards,
        workload,
        fix,
    })
}

/// The data columns of the table, leaves of structs dotted, in schema order.
fn data_columns(table: &ReplayedTable) -> Vec<String> {
    use delta_kernel::schema::DataType;
    fn leaves(prefix: &str, field: &delta_kernel::schema::StructField, out: &mut Vec<String>) {
        let name = if prefix.is_empty() {
            field.name().to_string()
        } else {
            format!("{prefix}.{}", field.name())
        };
        match field.data_type() {
            DataType::Struct(s) => {
                for f in s.fields() {
                    leaves(&name, f, out);
                }
            }
            DataType::Primitive(_)
            | DataType::Array(_)
            | DataType::Map(_)
            | DataType::Variant(_) => out.push(name),
        }
    }
    let partitions = table.columns().partition_columns();
    let schema = table.snapshot().schema();
    let mut out = Vec::new();
    for field in schema.fields() {
        if !partitions.iter().any(|p| p == field.name()) {
            leaves("", field, &mut out);
        }
    }
    out
}

fn settings(table: &ReplayedTable, indexed: Vec<String>) -> StatsSettings {
    let (num_indexed_cols, stats_columns) = crate::replay::stats_settings_of(table.snapshot());
    // A struct's leaves are indexed where the struct is named (the statistics schema names a
    // nested column with those of its leaves that are indexed).
    let is_indexed = |c: &String| {
        indexed.contains(c)
            || c.split_once('.')
                .is_some_and(|(top, _)| indexed.iter().any(|i| i == top))
    };
    let not_indexed = data_columns(table)
        .into_iter()
        .filter(|c| !is_indexed(c))
        .collect();
    StatsSettings {
        num_indexed_cols,
        stats_columns,
        indexed,
        not_indexed,
    }
}

/// Per data column, the files whose statistics record it.
fn column_stats(table: &ReplayedTable, settings: &StatsSettings) -> Vec<ColumnStats> {
    let parsed: Vec<Option<serde_json::Value>> = table
        .stats_jsons()
        .map(|s| s.and_then(|s| serde_json::from_str(s).ok()))
        .collect();
    let recorded = |stats: &serde_json::Value, section: &str, column: &str| {
        let mut at = &stats[section];
        for part in column.split('.') {
            at = &at[part];
        }
        !at.is_null()
    };
    settings
        .indexed
        .iter()
        .chain(&settings.not_indexed)
        .map(|column| {
            let with = |section: &str| {
                parsed
                    .iter()
                    .flatten()
                    .filter(|s| recorded(s, section, column))
                    .count()
            };
            ColumnStats {
                column: column.clone(),
                indexed: settings.indexed.contains(column),
                files_with_min_max: parsed
                    .iter()
                    .flatten()
                    .filter(|s| {
                        recorded(s, "minValues", column) && recorded(s, "maxValues", column)
                    })
                    .count(),
                files_with_null_count: with("nullCount"),
                average_depth: average_depth(&parsed, column),
            }
        })
        .collect()
}

fn layout(table: &ReplayedTable) -> Layout {
    let files = table.files();
    let size = |f: &crate::replay::LiveFile| u64::try_from(f.size_bytes).unwrap_or(0);
    let mut sizes: Vec<u64> = files.iter().map(size).collect();
    sizes.sort_unstable();
    let mut by_partition: std::collections::BTreeMap<usize, Vec<u64>> =
        std::collections::BTreeMap::new();
    for f in files {
        by_partition.entry(f.partition).or_default().push(size(f));
    }
    let partitioned = !table.columns().partition_columns().is_empty();
    // The log keys partition values by physical name under column mapping.
    let logical: std::collections::HashMap<String, String> = table
        .snapshot()
        .schema()
        .fields()
        .filter_map(|f| {
            let physical = f.metadata().get("delta.columnMapping.physicalName")?;
            let delta_kernel::schema::MetadataValue::String(physical) = physical else {
                return None;
            };
            Some((physical.clone(), f.name().to_string()))
        })
        .collect();
    let tiny = |sizes: &[u64]| sizes.iter().filter(|s| **s < TINY_FILE_BYTES).count();
    let share = |part: usize, whole: usize| {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    };
    let mut per_partition: Vec<PartitionLayout> = if partitioned {
        by_partition
            .into_iter()
            .map(|(id, mut sizes)| {
                sizes.sort_unstable();
                let tiny_files = tiny(&sizes);
                PartitionLayout {
                    partition: partition_name(table.partitions().partition(id), &logical),
                    files: sizes.len(),
                    bytes: sizes.iter().sum(),
                    median_bytes: sizes[sizes.len() / 2],
                    tiny_files,
                    tiny_share: share(tiny_files, sizes.len()),
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    per_partition.sort_by(|a, b| {
        b.tiny_files
            .cmp(&a.tiny_files)
            .then(b.files.cmp(&a.files))
            .then_with(|| a.partition.cmp(&b.partition))
    });
    let tiny_files = tiny(&sizes);
    Layout {
        files: files.len(),
        bytes: sizes.iter().sum(),
        smallest_bytes: sizes.first().copied().unwrap_or(0),
        median_bytes: sizes.get(sizes.len() / 2).copied().unwrap_or(0),
        largest_bytes: sizes.last().copied().unwrap_or(0),
        tiny_files,
        partitions: per_partition.len(),
        partitions_of_one_file: per_partition.iter().filter(|p| p.files == 1).count(),
        files_without_stats: files.iter().filter(|f| !f.has_stats).count(),
        tiny_share: share(tiny_files, files.len()),
        per_partition,
    }
}

/// A partition's values as a folder would name them, `col=value` joined by `/`, each column by
/// its name in the schema (`logical`, from the physical names the log keys values by).
fn partition_name(
    partition: crate::partition_table::Partition<'_>,
    logical: &std::collections::HashMap<String, String>,
) -> String {
    partition
        .iter()
        .map(|(k, v)| {
            format!(
                "{}={}",
                logical.get(k).map_or(k, String::as_str),
                v.unwrap_or("__HIVE_DEFAULT_PARTITION__")
            )
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// What the known writer hazards ask of the table's shape.
fn shape(table: &ReplayedTable, statistics: &StatsSettings) -> writers::Shape {
    use delta_kernel::schema::PrimitiveType;
    writers::Shape {
        float_columns: !hazards::columns_of_type(table, |p| {
            matches!(p, PrimitiveType::Float | PrimitiveType::Double)
        })
        .is_empty(),
        decimal_columns: !hazards::columns_of_type(table, |p| {
            matches!(p, PrimitiveType::Decimal(_))
        })
        .is_empty(),
        escaped_stats_columns: statistics
            .stats_columns
            .as_ref()
            .is_some_and(|cs| cs.iter().any(|c| c.contains('`'))),
        stats_settings: statistics.stats_columns.is_some() || statistics.num_indexed_cols != 32,
    }
}

/// The writers of the last [`WRITER_COMMITS`] commits up to `version` and the statistics
/// settings over them (from the snapshot at the first, then each commit's `metaData`),
/// consecutive versions alike as one span.
fn history(
    location: &str,
    storage: &storage::StorageOptions,
    version: u64,
    latest: (i64, Option<Vec<String>>),
) -> Result<(Vec<WriterSpan>, Vec<SettingsSpan>), ExplainError> {
    let store_error = |e: storage::StorageError| ExplainError::Table {
        table: location.to_string(),
        reason: e.to_string(),
    };
    let store = storage::open(location, storage).map_err(store_error)?;
    let first = version.saturating_sub(WRITER_COMMITS - 1);
    // A version whose commits a checkpoint replaced has no snapshot of its own: the latest
    // settings stand in until a commit read sets others.
    let mut settings = if first == version {
        latest
    } else {
        crate::replay::stats_settings_at(location, storage, first).unwrap_or(latest)
    };
    let mut writers: Vec<WriterSpan> = Vec::new();
    let mut spans: Vec<SettingsSpan> = Vec::new();
    for v in first..=version {
        // A commit a checkpoint replaced (cleaned up) is not read.
        let actions: Vec<serde_json::Value> =
            match storage::read_text(&store, &format!("_delta_log/{v:020}.json"))
                .map_err(store_error)?
            {
                Some(text) => text
                    .lines()
                    .filter_map(|l| serde_json::from_str(l).ok())
                    .collect(),
                None => continue,
            };
        let writer = actions
            .iter()
            .find_map(|a| {
                let info = a.get("commitInfo")?;
                info.get("engineInfo")
                    .or_else(|| info.get("clientVersion"))
                    .and_then(|w| w.as_str())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "unknown".to_string());
        match writers.last_mut() {
            Some(last) if last.writer == writer => last.to_version = v,
            Some(_) | None => writers.push(WriterSpan {
                from_version: v,
                to_version: v,
                writer,
            }),
        }
        if let Some(configuration) = actions
            .iter()
            .find_map(|a| a.get("metaData")?.get("configuration"))
        {
            settings = settings_of(configuration);
        }
        match spans.last_mut() {
            Some(last)
                if last.num_indexed_cols == settings.0 && last.stats_columns == settings.1 =>
            {
                last.to_version = v;
            }
            Some(_) | None => spans.push(SettingsSpan {
                from_version: v,
                to_version: v,
                num_indexed_cols: settings.0,
                stats_columns: settings.1.clone(),
            }),
        }
    }
    Ok((writers, spans))
}

/// The statistics settings a `metaData` action's configuration sets.
fn settings_of(configuration: &serde_json::Value) -> (i64, Option<Vec<String>>) {
    let count = configuration["delta.dataSkippingNumIndexedCols"]
        .as_str()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(32);
    let columns = configuration["delta.dataSkippingStatsColumns"]
        .as_str()
        .map(|cs| cs.split(',').map(|c| c.trim().to_string()).collect());
    (count, columns)
}

/// The clustering depth of `column` over the files' recorded ranges, where its bounds are
/// numbers, dates or timestamps.
fn average_depth(parsed: &[Option<serde_json::Value>], column: &str) -> Option<f64> {
    let value = |stats: &serde_json::Value, section: &str| -> Option<f64> {
        let mut at = &stats[section];
        for part in column.split('.') {
            at = &at[part];
        }
        match at {
            serde_json::Value::Number(n) => n.as_f64(),
            serde_json::Value::String(t) => crate::ranges::time_micros(t).map(|m| m as f64),
            _ => None,
        }
    };
    let spans: Vec<(f64, f64)> = parsed
        .iter()
        .flatten()
        .filter_map(|s| Some((value(s, "minValues")?, value(s, "maxValues")?)))
        .collect();
    (!spans.is_empty()).then(|| crate::report::ranges::Clustering::of(&spans).average_depth)
}
