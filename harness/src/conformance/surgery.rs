//! Copies of a table under test with one layer taken away, for the experiments that place a
//! fault ([`super::localize`]) and confirm a float hazard ([`super::hazard`]).
//!
//! A copy is the table copied whole (its log, checkpoints, protocol, column mapping, deletion
//! vectors as written) and one commit appended that re-adds the live files as the [`Cut`]
//! asks:
//! - `delta_stats`: every live file added again without its `stats` (the same path and
//!   deletion vector: the later add replaces the earlier, as the protocol reconciles files);
//! - `parquet_stats`: every live file's rows written again to a new file without column
//!   statistics or page index (the same rows in the same order, so a deletion vector still
//!   points at the rows it deleted), the old file removed;
//! - `partitions_as_columns`: the partition values written into each file as columns and the
//!   table's `partitionColumns` emptied (a `metaData` action), so no partition filter is
//!   answered from the log;
//! - `drop_rows`: the rows whose value in a float column is a hazard (NaN, a zero) removed
//!   from each file that holds one (its `numRecords` counted again; its bounds kept, still
//!   bounds of fewer rows), and a file whose partition value is one removed whole.
//!
//! Everything is local: a table whose files are named by absolute URLs is refused, and so is
//! dropping rows from a file with a deletion vector (the vector numbers the file's rows).

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, RecordBatch, StringArray, new_null_array,
};
use datafusion::arrow::compute::{cast, filter_record_batch};
use datafusion::arrow::datatypes::{DataType, Field, Float32Type, Float64Type, Schema, TimeUnit};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::file::properties::{EnabledStatistics, WriterProperties};
use oracle::delta_schema::{ColumnMapping, DeltaField};
use oracle::log::LiveFile;
use serde_json::{Value, json};

use super::TableUnderTest;

/// What a copy takes away (see the module's doc).
#[derive(Clone, Debug, Default)]
pub struct Cut {
    pub delta_stats: bool,
    pub parquet_stats: bool,
    pub partitions_as_columns: bool,
    pub drop_rows: Option<DropRows>,
}

/// Rows to remove: those whose value in one of `columns` (logical names, top-level float
/// columns or partition columns) `holds`.
#[derive(Clone, Debug)]
pub struct DropRows {
    pub columns: Vec<String>,
    pub holds: fn(f64) -> bool,
}

impl Cut {
    /// Whether every live file is written again (rows, statistics or columns change).
    fn rewrites_all(&self) -> bool {
        self.parquet_stats || self.partitions_as_columns
    }
}

/// A changed copy of a table, in a temp dir that lives as long as it.
pub struct Copy {
    pub table: TableUnderTest,
    _dir: tempfile::TempDir,
}

/// `table` with `cut` applied, as a table of its own.
pub fn copy(table: &TableUnderTest, cut: &Cut) -> Result<Copy, String> {
    let snapshot = &table.loaded.snapshot;
    if snapshot
        .files
        .iter()
        .any(|f| f.path.contains("://") || f.path.starts_with('/'))
    {
        return Err("files named by absolute URLs".into());
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = dir.path();
    generators::history::copy(Path::new(&table.location), root)?;
    let partition_columns = &snapshot.metadata.partition_columns;
    let now = chrono::Utc::now().timestamp_millis();
    let mut info = json!({"timestamp": now, "operation": "WRITE",
        "operationParameters": {"note": "a copy for the conformance campaign's experiments"}});
    if in_commit_timestamps(table) {
        info["inCommitTimestamp"] = json!(now);
    }
    let mut actions = vec![json!({ "commitInfo": info })];
    if cut.partitions_as_columns && !partition_columns.is_empty() {
        actions.push(unpartitioned_metadata(table)?);
    }
    for (i, file) in snapshot.files.iter().enumerate() {
        let local = root.join(oracle::readers::decoded(&file.path));
        // A file whose partition value is a hazard goes whole.
        if let Some(drop) = &cut.drop_rows
            && partition_hazard(table, file, drop)
        {
            actions.push(remove(file, now)?);
            continue;
        }
        let dropping = match &cut.drop_rows {
            Some(drop) => holds_hazard_rows(table, &local, drop)?,
            None => false,
        };
        if dropping && file.deletion_vector.is_some() {
            return Err("rows to drop in a file with a deletion vector".into());
        }
        if !cut.rewrites_all() && !dropping {
            if cut.delta_stats {
                actions.push(add(
                    file,
                    &file.path,
                    file.size,
                    None,
                    &file.partition_values,
                )?);
            }
            continue;
        }
        let new_path = format!("experiment-{:05}-{i:05}.parquet", snapshot.version + 1);
        let written = rewrite(table, file, &local, &root.join(&new_path), cut)?;
        let stats = if cut.delta_stats {
            None
        } else {
            file.stats.clone().map(|mut s| {
                if written.dropped > 0
                    && let Some(n) = s.get("numRecords").and_then(Value::as_u64)
                {
                    s["numRecords"] = json!(n.saturating_sub(written.dropped));
                }
                s
            })
        };
        let partitions = if cut.partitions_as_columns {
            Default::default()
        } else {
            file.partition_values.clone()
        };
        actions.push(remove(file, now)?);
        actions.push(add(file, &new_path, written.size, stats, &partitions)?);
    }
    delta_commit::write_commit(&root.join("_delta_log"), snapshot.version + 1, &actions)
        .map_err(|e| e.to_string())?;
    let location = root.to_string_lossy().into_owned();
    let copied = TableUnderTest::load(&location, &table.spec, table.seed)?;
    Ok(Copy {
        table: copied,
        _dir: dir,
    })
}

fn in_commit_timestamps(table: &TableUnderTest) -> bool {
    table
        .loaded
        .snapshot
        .metadata
        .configuration
        .get("delta.enableInCommitTimestamps")
        .and_then(|v| v.as_deref())
        .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// The table's `metaData` with no partition columns: the latest one a commit holds, or one
/// made from the replay where a checkpoint holds it.
fn unpartitioned_metadata(table: &TableUnderTest) -> Result<Value, String> {
    let snapshot = &table.loaded.snapshot;
    let log = Path::new(&table.location).join("_delta_log");
    for version in (0..=snapshot.version).rev() {
        let Some(commit) = delta_commit::read_commit(&log, version)? else {
            continue;
        };
        if let Some(mut m) = commit.into_iter().find(|a| a.get("metaData").is_some()) {
            m["metaData"]["partitionColumns"] = json!([]);
            return Ok(m);
        }
    }
    let configuration = snapshot
        .metadata
        .configuration
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    Ok(delta_commit::metadata(
        "00000000-0000-0000-0000-00000000e8e0",
        &snapshot.metadata.schema_string,
        &[],
        configuration,
    ))
}

fn remove(file: &LiveFile, now: i64) -> Result<Value, String> {
    let mut remove = json!({"path": file.path, "deletionTimestamp": now,
        "dataChange": true, "size": file.size});
    if let Some(dv) = &file.deletion_vector {
        remove["deletionVector"] = serde_json::to_value(dv).map_err(|e| e.to_string())?;
    }
    Ok(json!({ "remove": remove }))
}

fn add(
    file: &LiveFile,
    path: &str,
    size: i64,
    stats: Option<Value>,
    partitions: &std::collections::HashMap<String, Option<String>>,
) -> Result<Value, String> {
    let mut extra = serde_json::Map::new();
    if let Some(dv) = &file.deletion_vector {
        extra.insert(
            "deletionVector".into(),
            serde_json::to_value(dv).map_err(|e| e.to_string())?,
        );
    }
    let mut partitions: Vec<(String, Option<String>)> = partitions
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    partitions.sort();
    let stats = stats.map(|s| s.to_string());
    Ok(delta_commit::add(
        path,
        &partitions,
        u64::try_from(size).unwrap_or(0),
        stats.as_deref(),
        extra,
    ))
}

/// The field of the logical column `name` (case-insensitive, top level).
fn field<'t>(table: &'t TableUnderTest, name: &str) -> Option<&'t DeltaField> {
    table
        .loaded
        .snapshot
        .fields
        .iter()
        .find(|f| f.name.eq_ignore_ascii_case(name))
}

/// Whether `file`'s value of a partition column among `drop.columns` is a hazard.
fn partition_hazard(table: &TableUnderTest, file: &LiveFile, drop: &DropRows) -> bool {
    let snapshot = &table.loaded.snapshot;
    drop.columns.iter().any(|c| {
        let Some(f) = field(table, c) else {
            return false;
        };
        if !snapshot.metadata.partition_columns.contains(&f.name) {
            return false;
        }
        file.partition_values
            .get(f.physical(snapshot.mapping))
            .and_then(|v| v.as_deref())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .is_some_and(drop.holds)
    })
}

/// The physical names in the files of the data columns among `drop.columns`.
fn data_columns(table: &TableUnderTest, drop: &DropRows) -> Vec<String> {
    let snapshot = &table.loaded.snapshot;
    drop.columns
        .iter()
        .filter_map(|c| field(table, c))
        .filter(|f| !snapshot.metadata.partition_columns.contains(&f.name))
        .map(|f| f.physical(snapshot.mapping).to_string())
        .collect()
}

/// Which rows of `batch` hold a hazard in one of `columns` (by the file's names; a column the
/// file lacks holds none).
fn hazard_rows(batch: &RecordBatch, columns: &[String], holds: fn(f64) -> bool) -> Vec<bool> {
    let mut out = vec![false; batch.num_rows()];
    for name in columns {
        let Some((i, _)) = batch.schema().column_with_name(name) else {
            continue;
        };
        let column = batch.column(i);
        let values: Vec<Option<f64>> = match column.data_type() {
            DataType::Float64 => column.as_primitive::<Float64Type>().iter().collect(),
            DataType::Float32 => column
                .as_primitive::<Float32Type>()
                .iter()
                .map(|v| v.map(f64::from))
                .collect(),
            _ => continue,
        };
        for (row, v) in values.into_iter().enumerate() {
            if v.is_some_and(holds) {
                out[row] = true;
            }
        }
    }
    out
}

fn read_batches(path: &Path) -> Result<(Vec<RecordBatch>, Option<usize>), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let row_group = builder
        .metadata()
        .row_groups()
        .iter()
        .map(|g| usize::try_from(g.num_rows()).unwrap_or(0))
        .max();
    let batches = builder
        .build()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((batches, row_group))
}

/// Whether the data file at `path` holds a row to drop.
fn holds_hazard_rows(table: &TableUnderTest, path: &Path, drop: &DropRows) -> Result<bool, String> {
    let columns = data_columns(table, drop);
    if columns.is_empty() {
        return Ok(false);
    }
    let (batches, _) = read_batches(path)?;
    Ok(batches
        .iter()
        .any(|b| hazard_rows(b, &columns, drop.holds).contains(&true)))
}

/// What a rewrite wrote: the new file's size and the rows it left out.
struct Written {
    size: i64,
    dropped: u64,
}

/// `file`'s rows (at `from`) written to `to` as `cut` asks.
fn rewrite(
    table: &TableUnderTest,
    file: &LiveFile,
    from: &Path,
    to: &Path,
    cut: &Cut,
) -> Result<Written, String> {
    let (batches, row_group) = read_batches(from)?;
    let drop_columns = cut
        .drop_rows
        .as_ref()
        .map(|d| (data_columns(table, d), d.holds));
    let mut dropped = 0u64;
    let mut out = Vec::with_capacity(batches.len());
    for batch in batches {
        let mut batch = micros(&batch)?;
        if let Some((columns, holds)) = &drop_columns {
            let drop = hazard_rows(&batch, columns, *holds);
            dropped += drop.iter().filter(|d| **d).count() as u64;
            let keep = BooleanArray::from(drop.iter().map(|d| !d).collect::<Vec<_>>());
            batch = filter_record_batch(&batch, &keep).map_err(|e| e.to_string())?;
        }
        if cut.partitions_as_columns {
            batch = with_partitions(table, file, &batch)?;
        }
        out.push(batch);
    }
    let schema = match out.first() {
        Some(b) => b.schema(),
        None => return Err(format!("{}: no rows schema", from.display())),
    };
    let statistics = if cut.parquet_stats {
        EnabledStatistics::None
    } else {
        EnabledStatistics::Page
    };
    let mut properties = WriterProperties::builder().set_statistics_enabled(statistics);
    if let Some(rows) = row_group.filter(|r| *r > 0) {
        properties = properties.set_max_row_group_row_count(Some(rows));
    }
    let target = std::fs::File::create(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let mut writer = ArrowWriter::try_new(target, schema, Some(properties.build()))
        .map_err(|e| e.to_string())?;
    for batch in &out {
        writer.write(batch).map_err(|e| e.to_string())?;
    }
    writer.close().map_err(|e| e.to_string())?;
    let size = std::fs::metadata(to).map_err(|e| e.to_string())?.len();
    Ok(Written {
        size: i64::try_from(size).unwrap_or(i64::MAX),
        dropped,
    })
}

/// `batch` with nanosecond timestamps (INT96, as Arrow reads it) cast to microseconds, the
/// unit Delta's timestamps have, so the copy writes INT64 microseconds.
fn micros(batch: &RecordBatch) -> Result<RecordBatch, String> {
    let schema = batch.schema();
    if !schema
        .fields()
        .iter()
        .any(|f| matches!(f.data_type(), DataType::Timestamp(TimeUnit::Nanosecond, _)))
    {
        return Ok(batch.clone());
    }
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for (f, c) in schema.fields().iter().zip(batch.columns()) {
        match f.data_type() {
            DataType::Timestamp(TimeUnit::Nanosecond, tz) => {
                let t = DataType::Timestamp(TimeUnit::Microsecond, tz.clone());
                columns.push(cast(c, &t).map_err(|e| e.to_string())?);
                fields.push(f.as_ref().clone().with_data_type(t));
            }
            _ => {
                columns.push(c.clone());
                fields.push(f.as_ref().clone());
            }
        }
    }
    let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
    RecordBatch::try_new(Arc::new(schema), columns).map_err(|e| e.to_string())
}

/// `batch` with `file`'s partition values appended as columns (physical names and field ids
/// under column mapping), each cast from the log's text to the column's type.
fn with_partitions(
    table: &TableUnderTest,
    file: &LiveFile,
    batch: &RecordBatch,
) -> Result<RecordBatch, String> {
    let snapshot = &table.loaded.snapshot;
    let logical = oracle::delta_schema::arrow_schema(&snapshot.fields);
    let mut fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
    for name in &snapshot.metadata.partition_columns {
        let delta = field(table, name).ok_or_else(|| format!("no partition column {name}"))?;
        let data_type = logical
            .field_with_name(&delta.name)
            .map_err(|e| e.to_string())?
            .data_type()
            .clone();
        let physical = delta.physical(snapshot.mapping).to_string();
        let value = file.partition_values.get(&physical).cloned().flatten();
        let array: ArrayRef = match value {
            Some(text) => {
                let text = StringArray::from(vec![text.as_str(); batch.num_rows()]);
                cast(&text, &data_type).map_err(|e| format!("partition {name}: {e}"))?
            }
            None => new_null_array(&data_type, batch.num_rows()),
        };
        let mut f = Field::new(&physical, data_type, true);
        if snapshot.mapping == ColumnMapping::Id
            && let Some(id) = delta.field_id
        {
            f = f.with_metadata(
                [("PARQUET:field_id".to_string(), id.to_string())]
                    .into_iter()
                    .collect(),
            );
        }
        fields.push(f);
        columns.push(array);
    }
    let schema = Schema::new_with_metadata(fields, Default::default());
    RecordBatch::try_new(Arc::new(schema), columns).map_err(|e| e.to_string())
}
