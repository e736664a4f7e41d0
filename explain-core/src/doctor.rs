//! Why a table does not skip, from its log alone: the statistics settings in effect and the
//! columns they leave without statistics, each column's statistics across the files, the
//! layout (file sizes, partitions of one file), and for each predicate of a workload what it
//! keeps, what the diagnoses say, and the columns it uses that get no statistics, with the
//! table property that would give them some.

use serde::Serialize;

use crate::explain_request::{ExplainRequest, Options};
use crate::replay::{ReplayedTable, indexed_columns};
use crate::request::{Progress, explain_one};
use explain_compiler::error::ExplainError;

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
    let string_bounds = string_bounds(&table);
    let hazards = hazards(&table, &writers);
    let predicates: Vec<String> = request
        .predicate
        .iter()
        .cloned()
        .chain(request.predicates.iter().map(|(p, _)| p.clone()))
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
        .map(|p| workload_entry(&pinned, &table, &statistics, p))
        .collect();
    let fix = fix(&location, &statistics, &workload, &table);
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
        hazards,
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
    let mut sizes: Vec<u64> = files
        .iter()
        .map(|f| u64::try_from(f.size_bytes).unwrap_or(0))
        .collect();
    sizes.sort_unstable();
    let mut per_partition: std::collections::HashMap<usize, usize> =
        std::collections::HashMap::new();
    for f in files {
        *per_partition.entry(f.partition).or_default() += 1;
    }
    let partitioned = !table.columns().partition_columns().is_empty();
    Layout {
        files: files.len(),
        bytes: sizes.iter().sum(),
        smallest_bytes: sizes.first().copied().unwrap_or(0),
        median_bytes: sizes.get(sizes.len() / 2).copied().unwrap_or(0),
        largest_bytes: sizes.last().copied().unwrap_or(0),
        tiny_files: sizes.iter().filter(|s| **s < TINY_FILE_BYTES).count(),
        partitions: if partitioned { per_partition.len() } else { 0 },
        partitions_of_one_file: if partitioned {
            per_partition.values().filter(|n| **n == 1).count()
        } else {
            0
        },
        files_without_stats: files.iter().filter(|f| !f.has_stats).count(),
    }
}

fn workload_entry(
    request: &ExplainRequest,
    table: &ReplayedTable,
    settings: &StatsSettings,
    predicate: &str,
) -> WorkloadEntry {
    let one = ExplainRequest {
        predicate: Some(predicate.to_string()),
        predicates: Vec::new(),
        options: Options {
            explain_why: true,
            ..request.options.clone()
        },
        ..request.clone()
    };
    let partitions = table.columns().partition_columns();
    let columns_without_stats: Vec<String> = explain_compiler::sql::parse_predicate(predicate)
        .map(|p| p.columns_and_quoted_names())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|c| table.columns().resolve(&c).ok())
        .map(|info| info.column.dotted())
        .filter(|c| !partitions.contains(c) && settings.not_indexed.contains(c))
        .collect();
    match Progress::silent(|progress| explain_one(&one, progress)) {
        Ok(answer) => WorkloadEntry {
            predicate: predicate.to_string(),
            total_files: Some(answer.report.total_files),
            final_files: Some(answer.report.final_files),
            error: None,
            reasons: answer
                .report
                .diagnoses
                .unwrap_or_default()
                .into_iter()
                .map(|d| Reason {
                    code: d.code,
                    message: d.message,
                    suggestion: d.suggestion,
                })
                .collect(),
            columns_without_stats,
        },
        Err(e) => WorkloadEntry {
            predicate: predicate.to_string(),
            total_files: None,
            final_files: None,
            error: Some(e.to_string()),
            reasons: Vec::new(),
            columns_without_stats,
        },
    }
}

/// `delta.dataSkippingStatsColumns` naming the indexed columns and those the workload needs.
fn fix(
    location: &str,
    settings: &StatsSettings,
    workload: &[WorkloadEntry],
    table: &ReplayedTable,
) -> Option<Fix> {
    let mut missing: Vec<String> = Vec::new();
    for c in workload.iter().flat_map(|w| &w.columns_without_stats) {
        if !missing.contains(c) {
            missing.push(c.clone());
        }
    }
    if missing.is_empty() {
        return None;
    }
    let all: Vec<String> = settings.indexed.iter().chain(&missing).cloned().collect();
    let files_without_their_stats = table
        .stats_jsons()
        .filter(|stats| {
            let parsed: Option<serde_json::Value> =
                stats.and_then(|s| serde_json::from_str(s).ok());
            missing.iter().any(|c| {
                parsed.as_ref().is_none_or(|p| {
                    let mut at = &p["maxValues"];
                    for part in c.split('.') {
                        at = &at[part];
                    }
                    at.is_null()
                })
            })
        })
        .count();
    Some(Fix {
        statement: format!(
            "ALTER TABLE delta.`{}` SET TBLPROPERTIES ('delta.dataSkippingStatsColumns' = '{}')",
            location.replace('`', "``"),
            all.join(",")
        ),
        caveat: "only files written after the change record statistics for these columns: rewrite the existing files (OPTIMIZE ... FULL on a clustered table, or a rewrite of the data) for data skipping to use them on old data".into(),
        columns: missing,
        files_without_their_stats,
    })
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

/// The top-level data columns of a primitive type `wanted` picks.
fn columns_of_type(
    table: &ReplayedTable,
    wanted: fn(&delta_kernel::schema::PrimitiveType) -> bool,
) -> Vec<String> {
    use delta_kernel::schema::DataType;
    let partitions = table.columns().partition_columns();
    table
        .snapshot()
        .schema()
        .fields()
        .filter(|f| !partitions.iter().any(|p| p == f.name()))
        .filter(|f| matches!(f.data_type(), DataType::Primitive(p) if wanted(p)))
        .map(|f| f.name().to_string())
        .collect()
}

/// Per string column, the maxima cut to a prefix and the prefix's length.
fn string_bounds(table: &ReplayedTable) -> Vec<StringBounds> {
    use delta_kernel::schema::PrimitiveType;
    let columns = columns_of_type(table, |p| matches!(p, PrimitiveType::String));
    let parsed: Vec<serde_json::Value> = table
        .stats_jsons()
        .filter_map(|s| s.and_then(|s| serde_json::from_str(s).ok()))
        .collect();
    columns
        .into_iter()
        .map(|column| {
            let bound = |stats: &serde_json::Value, section: &str| {
                stats[section][column.as_str()].as_str().map(str::to_string)
            };
            let maxima: Vec<String> = parsed
                .iter()
                .filter_map(|s| bound(s, "maxValues"))
                .collect();
            let minima: Vec<String> = parsed
                .iter()
                .filter_map(|s| bound(s, "minValues"))
                .collect();
            let cut: Vec<&String> = maxima
                .iter()
                .filter(|m| m.ends_with(['\u{10FFFF}', '\u{FFFD}']))
                .collect();
            StringBounds {
                truncated_maxima: cut.len(),
                prefix_length: cut.iter().map(|m| m.chars().count() - 1).max(),
                longest_bound: maxima
                    .iter()
                    .chain(&minima)
                    .map(|b| b.chars().count())
                    .max()
                    .unwrap_or(0),
                column,
            }
        })
        .collect()
}

/// The float columns' NaN hazard, naming the table's writers.
fn hazards(table: &ReplayedTable, writers: &[WriterSpan]) -> Vec<ColumnHazard> {
    use delta_kernel::schema::PrimitiveType;
    let mut names: Vec<&str> = Vec::new();
    for w in writers {
        if !names.contains(&w.writer.as_str()) {
            names.push(&w.writer);
        }
    }
    columns_of_type(table, |p| matches!(p, PrimitiveType::Float | PrimitiveType::Double))
        .into_iter()
        .map(|column| ColumnHazard {
            message: format!(
                "`{column}` is a float column: writers ({}) leave NaN out of its min/max, so a comparison NaN satisfies in Spark and DuckDB (NaN above every number) may prune a file holding NaN; the default mode announces it (NAN_UNGUARDED_BOUNDS), --strict keeps such files",
                if names.is_empty() { "unknown".to_string() } else { names.join(", ") }
            ),
            code: explain_compiler::guards::NAN_UNGUARDED_BOUNDS,
            column,
        })
        .collect()
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
