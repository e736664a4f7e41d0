//! Reading a live file's rows under the table's logical schema.
//!
//! Rows are decoded with arrow's Parquet reader (the reader DataFusion uses underneath) with
//! no row-group selection from statistics, no page index and no row filter: every row of the
//! file (or of the row groups a range owns) is read, so no form of Parquet pruning can hide a
//! row. Physical columns are matched to logical fields by name, column-mapping physical name
//! or Parquet field id; a column a file lacks reads as NULL; narrower types are cast to the
//! table's (type widening); partition columns are added from the log; rows the file's deletion
//! vector marks are dropped.

use std::ops::Range;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, BooleanArray, ListArray, MapArray, RecordBatch, StructArray, UInt32Array,
    new_null_array,
};
use arrow::compute::{CastOptions, cast_with_options, filter, filter_record_batch};
use arrow::datatypes::{DataType, Field, FieldRef, Fields, SchemaRef};
use futures::StreamExt;
use parquet::arrow::ParquetRecordBatchStreamBuilder;
use parquet::arrow::arrow_reader::ArrowReaderOptions;
use parquet::file::metadata::ParquetMetaData;
use roaring::RoaringTreemap;

use crate::delta_schema::{ColumnMapping, DeltaField, DeltaType, arrow_schema, arrow_type};
use crate::dv::read_deletion_vector;
use crate::error::OracleError;
use crate::log::replay::{LiveFile, Snapshot};
use crate::partition::typed_value_of;

/// The rows of one file, deletion vector applied, under the logical schema.
#[derive(Debug)]
pub struct FileRows {
    pub batches: Vec<RecordBatch>,
    /// Beside each batch, the row group (index in the file) of each of its rows.
    pub row_groups: Vec<UInt32Array>,
    /// The file's footer and its Arrow schema, as the reader read them.
    pub metadata: Arc<ParquetMetaData>,
    pub file_schema: SchemaRef,
    /// Rows read from the Parquet file (or range).
    pub physical_rows: u64,
    /// Rows left after the deletion vector.
    pub live_rows: u64,
}

/// Row groups owned by the byte range `range`: a row group belongs to the range holding the
/// offset of its first page (dictionary page if any, else first data page), so splitting a
/// file into contiguous ranges assigns every row group to exactly one range.
pub fn row_groups_in_range(metadata: &ParquetMetaData, range: &Range<u64>) -> Vec<usize> {
    (0..metadata.num_row_groups())
        .filter(|&i| {
            let rg = metadata.row_group(i);
            let first = rg
                .columns()
                .iter()
                .map(|c| c.dictionary_page_offset().unwrap_or(c.data_page_offset()))
                .min()
                .unwrap_or(0);
            u64::try_from(first).is_ok_and(|f| range.contains(&f))
        })
        .collect()
}

/// Reads `file` of `snapshot` (the row groups `range` owns, or all of them).
pub fn read_file(
    snapshot: &Snapshot,
    file: &LiveFile,
    range: Option<Range<u64>>,
) -> Result<FileRows, OracleError> {
    let path = snapshot.file_path(&file.path)?;
    let shown = snapshot.store.shown(&path);
    crate::guarded::guarded(&shown, || read_rows(snapshot, file, range, path, &shown))
}

/// [`read_file`] of the file at `path`.
fn read_rows(
    snapshot: &Snapshot,
    file: &LiveFile,
    range: Option<Range<u64>>,
    path: object_store::path::Path,
    shown: &str,
) -> Result<FileRows, OracleError> {
    let shown = shown.to_string();
    let files = &snapshot.store;
    // The file's own size, asked of the store: the log's `size` is not trusted for reading.
    let handle = files.parquet(path);
    let options = ArrowReaderOptions::new()
        .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Skip);
    let builder = files
        .block_on(ParquetRecordBatchStreamBuilder::new_with_options(
            handle, options,
        ))
        .map_err(|e| OracleError::file(&shown, format!("not a readable Parquet file: {e}")))?;
    let metadata = builder.metadata().clone();
    let selected: Vec<usize> = match &range {
        Some(r) => row_groups_in_range(&metadata, r),
        None => (0..metadata.num_row_groups()).collect(),
    };
    // The position in the file of the first row of each row group.
    let mut starts = Vec::with_capacity(metadata.num_row_groups());
    let mut position = 0u64;
    for i in 0..metadata.num_row_groups() {
        starts.push(position);
        position += u64::try_from(metadata.row_group(i).num_rows()).unwrap_or(0);
    }
    let file_schema = builder.schema().clone();
    let mut reader = builder
        .with_row_groups(selected.clone())
        .build()
        .map_err(|e| OracleError::file(&shown, e))?;
    let deleted = match &file.deletion_vector {
        Some(dv) => Some(read_deletion_vector(files, &shown, dv)?),
        None => None,
    };
    let logical = arrow_schema(&snapshot.fields);
    let partition = partition_columns(snapshot, file)?;
    let mut positions = RowPositions::new(&selected, &starts, &metadata);
    let mut batches = Vec::new();
    let mut row_groups = Vec::new();
    let (mut physical_rows, mut live_rows) = (0u64, 0u64);
    while let Some(batch) = files.block_on(reader.next()) {
        let batch = batch.map_err(|e| OracleError::file(&shown, format!("cannot decode: {e}")))?;
        let rows = batch.num_rows();
        physical_rows += rows as u64;
        let logical_batch = to_logical_batch(&batch, &file_schema, snapshot, &logical, &partition)
            .map_err(|e| OracleError::file(&shown, e))?;
        let (keep, groups) = positions.next_mask(rows, deleted.as_ref());
        let (kept, groups) = match keep {
            Some(mask) => (
                filter_record_batch(&logical_batch, &mask)
                    .map_err(|e| OracleError::file(&shown, e))?,
                filter(&groups, &mask).map_err(|e| OracleError::file(&shown, e))?,
            ),
            None => (logical_batch, Arc::new(groups) as ArrayRef),
        };
        live_rows += kept.num_rows() as u64;
        if kept.num_rows() > 0 {
            batches.push(kept);
            row_groups.push(
                groups
                    .as_any()
                    .downcast_ref::<UInt32Array>()
                    .cloned()
                    .ok_or_else(|| OracleError::file(&shown, "row groups lost their type"))?,
            );
        }
    }
    Ok(FileRows {
        batches,
        row_groups,
        physical_rows,
        live_rows,
        metadata,
        file_schema,
    })
}

/// Walks the file positions of the rows a reader emits (row groups in selection order).
struct RowPositions {
    /// `(first position, rows, index in the file)` of each selected row group, in order.
    groups: Vec<(u64, u64, u32)>,
    group: usize,
    offset_in_group: u64,
}

impl RowPositions {
    fn new(selected: &[usize], starts: &[u64], metadata: &ParquetMetaData) -> Self {
        let groups = selected
            .iter()
            .map(|&i| {
                (
                    starts[i],
                    u64::try_from(metadata.row_group(i).num_rows()).unwrap_or(0),
                    u32::try_from(i).unwrap_or(u32::MAX),
                )
            })
            .collect();
        Self {
            groups,
            group: 0,
            offset_in_group: 0,
        }
    }

    /// The keep-mask of the next `rows` rows (`None`: keep all, no deletion vector), and the
    /// row group of each of them.
    fn next_mask(
        &mut self,
        rows: usize,
        deleted: Option<&RoaringTreemap>,
    ) -> (Option<BooleanArray>, UInt32Array) {
        let mut mask = Vec::with_capacity(rows);
        let mut groups = Vec::with_capacity(rows);
        for _ in 0..rows {
            while self.group < self.groups.len()
                && self.offset_in_group >= self.groups[self.group].1
            {
                self.group += 1;
                self.offset_in_group = 0;
            }
            let (first, _, index) =
                self.groups
                    .get(self.group)
                    .copied()
                    .unwrap_or((u64::MAX, 0, u32::MAX));
            let position = first.saturating_add(self.offset_in_group);
            self.offset_in_group += 1;
            mask.push(deleted.is_none_or(|d| !d.contains(position)));
            groups.push(index);
        }
        (
            deleted.map(|_| BooleanArray::from(mask)),
            UInt32Array::from(groups),
        )
    }
}

/// The file's partition values, typed, by logical column name.
pub(crate) fn partition_columns(
    snapshot: &Snapshot,
    file: &LiveFile,
) -> Result<Vec<(String, datafusion::scalar::ScalarValue)>, OracleError> {
    snapshot
        .partition_columns()
        .iter()
        .map(|name| {
            let field = snapshot.field(name).ok_or_else(|| {
                OracleError::log(format!("partition column `{name}` is not in the schema"))
            })?;
            let key = field.physical(snapshot.mapping);
            let raw = file
                .partition_values
                .get(key)
                .or_else(|| file.partition_values.get(name))
                .cloned()
                .flatten();
            let value = typed_value_of(
                &file.path,
                name,
                raw.as_deref(),
                &arrow_type(&field.data_type),
            )?;
            Ok((name.clone(), value))
        })
        .collect()
}

fn to_logical_batch(
    batch: &RecordBatch,
    file_schema: &SchemaRef,
    snapshot: &Snapshot,
    logical: &SchemaRef,
    partition: &[(String, datafusion::scalar::ScalarValue)],
) -> Result<RecordBatch, String> {
    let rows = batch.num_rows();
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(snapshot.fields.len());
    for field in &snapshot.fields {
        if let Some((_, value)) = partition.iter().find(|(n, _)| *n == field.name) {
            columns.push(value.to_array_of_size(rows).map_err(|e| e.to_string())?);
            continue;
        }
        let source = find_child(file_schema.fields(), field, snapshot.mapping)
            .map(|i| batch.column(i).clone());
        columns.push(to_logical(source, field, snapshot.mapping, rows)?);
    }
    let options = arrow::array::RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(logical.clone(), columns, &options).map_err(|e| e.to_string())
}

/// The index of the file field that holds `field`: its Parquet field id under id mapping,
/// else its physical name, else (no mapping) a case-insensitive name match.
pub fn find_child(fields: &Fields, field: &DeltaField, mode: ColumnMapping) -> Option<usize> {
    if mode == ColumnMapping::Id
        && let Some(id) = field.field_id
    {
        let by_id = fields.iter().position(|f| {
            f.metadata()
                .get("PARQUET:field_id")
                .and_then(|v| v.parse::<i64>().ok())
                == Some(id)
        });
        if by_id.is_some() {
            return by_id;
        }
    }
    let name = field.physical(mode);
    fields.iter().position(|f| f.name() == name).or_else(|| {
        (mode == ColumnMapping::None).then(|| {
            fields
                .iter()
                .position(|f| f.name().eq_ignore_ascii_case(name))
        })?
    })
}

/// Converts a file column into the logical type of `field` (NULLs when the file lacks it).
fn to_logical(
    source: Option<ArrayRef>,
    field: &DeltaField,
    mode: ColumnMapping,
    rows: usize,
) -> Result<ArrayRef, String> {
    let target = arrow_type(&field.data_type);
    let Some(source) = source else {
        return Ok(new_null_array(&target, rows));
    };
    convert(&source, &field.data_type, &target, mode)
}

fn convert(
    source: &ArrayRef,
    delta: &DeltaType,
    target: &DataType,
    mode: ColumnMapping,
) -> Result<ArrayRef, String> {
    match (delta, source.data_type()) {
        (DeltaType::Struct(children), DataType::Struct(source_fields)) => {
            let source = source
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or("a struct column is not a StructArray")?;
            let DataType::Struct(target_fields) = target else {
                return Err("struct target expected".into());
            };
            let mut arrays = Vec::with_capacity(children.len());
            for (child, target_field) in children.iter().zip(target_fields.iter()) {
                let array = match find_child(source_fields, child, mode) {
                    Some(i) => convert(
                        source.column(i),
                        &child.data_type,
                        target_field.data_type(),
                        mode,
                    )?,
                    None => new_null_array(target_field.data_type(), source.len()),
                };
                arrays.push(array);
            }
            Ok(Arc::new(
                StructArray::try_new(target_fields.clone(), arrays, source.nulls().cloned())
                    .map_err(|e| e.to_string())?,
            ))
        }
        (DeltaType::Array { element, .. }, DataType::List(_)) => {
            let source = source
                .as_any()
                .downcast_ref::<ListArray>()
                .ok_or("a list column is not a ListArray")?;
            let DataType::List(target_item) = target else {
                return Err("list target expected".into());
            };
            let values = convert(source.values(), element, target_item.data_type(), mode)?;
            let item: FieldRef = Arc::new(Field::new(
                target_item.name(),
                values.data_type().clone(),
                true,
            ));
            Ok(Arc::new(
                ListArray::try_new(
                    item,
                    source.offsets().clone(),
                    values,
                    source.nulls().cloned(),
                )
                .map_err(|e| e.to_string())?,
            ))
        }
        (DeltaType::Map { key, value, .. }, DataType::Map(_, _)) => {
            let source = source
                .as_any()
                .downcast_ref::<MapArray>()
                .ok_or("a map column is not a MapArray")?;
            let DataType::Map(entries_field, sorted) = target else {
                return Err("map target expected".into());
            };
            let DataType::Struct(entry_fields) = entries_field.data_type() else {
                return Err("map entries".into());
            };
            let keys = convert(source.keys(), key, entry_fields[0].data_type(), mode)?;
            let values = convert(source.values(), value, entry_fields[1].data_type(), mode)?;
            let entries = StructArray::try_new(entry_fields.clone(), vec![keys, values], None)
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(
                MapArray::try_new(
                    entries_field.clone(),
                    source.offsets().clone(),
                    entries,
                    source.nulls().cloned(),
                    *sorted,
                )
                .map_err(|e| e.to_string())?,
            ))
        }
        _ if source.data_type() == target => Ok(source.clone()),
        _ => {
            let options = CastOptions {
                safe: false,
                ..Default::default()
            };
            cast_with_options(source, target, &options).map_err(|e| {
                format!(
                    "cannot read a {} column as {target}: {e}",
                    source.data_type()
                )
            })
        }
    }
}
