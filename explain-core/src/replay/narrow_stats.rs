//! Statistics a checkpoint recorded in a column's type before the column was widened.
//!
//! A checkpoint written before a type change (`delta.typeChanges`) carries `add.stats_parsed`
//! in the narrow types: an `int` bound where the column is now `long`, a `date` where it is now
//! `timestamp_ntz`, a `decimal(10,2)` where it is now `decimal(38,18)`. delta_kernel reads such a
//! struct only where every leaf widens by its own rules (integers, float -> double); any other
//! leaf (date -> timestamp_ntz, a decimal widening) makes it read the checkpoint as if it had no
//! struct statistics at all, and a checkpoint written with `delta.checkpoint.writeStatsAsJson =
//! false` has no JSON either: every file it holds would be kept whole, its record count lost.
//!
//! Here the checkpoint's struct is read in its own types and each file's statistics are written
//! back as the JSON its writer would have written (`numRecords`, `minValues`, `maxValues`,
//! `nullCount` in the narrow types), for the files the kernel's rows leave without statistics.
//! The JSON path then reads them as it reads any file written before the change: exactly where
//! the widening is exact, with the `TYPE_WIDENING_STATS` hazard where the narrow type's text
//! rounds (float -> double). Only tables that record a type change and whose checkpoint carries
//! `stats_parsed` pay for it: one footer read per checkpoint part, and the struct read once.

use std::collections::HashMap;
use std::sync::Arc;

use delta_kernel::arrow::array::{Array, AsArray, RecordBatch, StringArray};
use delta_kernel::arrow::json::LineDelimitedWriter;
use delta_kernel::engine::arrow_data::ArrowEngineData;
use delta_kernel::schema::{DataType, StructField, StructType};
use delta_kernel::{Engine, KernelError, SnapshotRef};

/// Each checkpoint file's statistics as JSON text, by the file's path in the log.
pub(super) struct NarrowStats {
    by_path: HashMap<String, String>,
}

impl NarrowStats {
    /// The statistics of `snapshot`'s checkpoint, read in their own types: `None` where the
    /// table records no type change, reads no Parquet checkpoint, or its checkpoint carries no
    /// `stats_parsed` (the kernel's own reading then stands).
    pub(super) fn load(
        engine: &dyn Engine,
        snapshot: &SnapshotRef,
    ) -> Result<Option<NarrowStats>, KernelError> {
        if !records_a_type_change(&snapshot.schema()) {
            return Ok(None);
        }
        let parts: Vec<_> = snapshot
            .log_segment()
            .listed
            .checkpoint_parts
            .iter()
            .filter(|p| p.extension == "parquet")
            .map(|p| p.location.clone())
            .collect();
        let mut by_path = HashMap::new();
        for part in parts {
            let footer = engine.parquet_handler().read_parquet_footer(&part)?;
            let Some(DataType::Struct(add)) = footer.schema.field("add").map(|f| f.data_type())
            else {
                continue;
            };
            let Some(parsed) = add.field("stats_parsed") else {
                continue;
            };
            let schema = Arc::new(StructType::new_unchecked([StructField::nullable(
                "add",
                StructType::new_unchecked([
                    StructField::nullable("path", DataType::STRING),
                    parsed.clone(),
                ]),
            )]));
            for data in engine
                .parquet_handler()
                .read_parquet_files(&[part], schema, None)?
            {
                let batch = ArrowEngineData::try_from_engine_data(data?)?;
                collect(batch.record_batch(), &mut by_path)?;
            }
        }
        Ok((!by_path.is_empty()).then_some(NarrowStats { by_path }))
    }

    /// `batch` (kernel scan rows) with the JSON statistics of the files whose `stats` is null
    /// and that the checkpoint records statistics for.
    pub(super) fn fill(&self, batch: RecordBatch) -> Result<RecordBatch, String> {
        let missing = |name: &str| format!("scan rows lack the `{name}` column");
        let schema = batch.schema();
        let at = schema.index_of("stats").map_err(|_| missing("stats"))?;
        let stats = batch
            .column(at)
            .as_string_opt::<i32>()
            .ok_or_else(|| missing("stats"))?;
        if stats.null_count() == 0 {
            return Ok(batch);
        }
        let paths = batch
            .column_by_name("path")
            .and_then(|c| c.as_string_opt::<i32>())
            .ok_or_else(|| missing("path"))?;
        let filled: StringArray = (0..batch.num_rows())
            .map(|row| {
                if stats.is_valid(row) {
                    Some(stats.value(row))
                } else if paths.is_valid(row) {
                    self.by_path.get(paths.value(row)).map(String::as_str)
                } else {
                    None
                }
            })
            .collect();
        let mut columns = batch.columns().to_vec();
        columns[at] = Arc::new(filled);
        RecordBatch::try_new(schema, columns).map_err(|e| e.to_string())
    }
}

/// Whether any field of `schema`, at any depth, carries `delta.typeChanges`.
fn records_a_type_change(schema: &StructType) -> bool {
    schema.fields().any(|f| {
        f.metadata().contains_key(super::type_changes::TYPE_CHANGES)
            || nested_records_a_change(f.data_type())
    })
}

fn nested_records_a_change(data_type: &DataType) -> bool {
    match data_type {
        DataType::Struct(inner) => records_a_type_change(inner),
        DataType::Array(array) => nested_records_a_change(array.element_type()),
        DataType::Map(map) => {
            nested_records_a_change(map.key_type()) || nested_records_a_change(map.value_type())
        }
        DataType::Primitive(_) | DataType::Variant(_) => false,
    }
}

/// Adds each add row's statistics of one checkpoint batch to `by_path`, as JSON lines written
/// by arrow's JSON writer (NULLs left out, as writers leave them out).
fn collect(batch: &RecordBatch, by_path: &mut HashMap<String, String>) -> Result<(), KernelError> {
    let Some(add) = batch.column_by_name("add").and_then(|c| c.as_struct_opt()) else {
        return Ok(());
    };
    let (Some(paths), Some(parsed)) = (
        add.column_by_name("path")
            .and_then(|c| c.as_string_opt::<i32>()),
        add.column_by_name("stats_parsed")
            .and_then(|c| c.as_struct_opt()),
    ) else {
        return Ok(());
    };
    let rows: Vec<usize> = (0..add.len())
        .filter(|&r| add.is_valid(r) && paths.is_valid(r) && parsed.is_valid(r))
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    let indices =
        delta_kernel::arrow::array::UInt32Array::from_iter_values(rows.iter().map(|&r| r as u32));
    let taken = delta_kernel::arrow::compute::take(parsed, &indices, None)?;
    let stats = RecordBatch::from(taken.as_struct());
    let mut text = Vec::new();
    let mut writer = LineDelimitedWriter::new(&mut text);
    writer.write(&stats)?;
    writer.finish()?;
    let text = String::from_utf8(text).map_err(|e| KernelError::generic(e.to_string()))?;
    for (row, line) in rows.iter().zip(text.lines()) {
        by_path.insert(paths.value(*row).to_string(), line.to_string());
    }
    Ok(())
}
