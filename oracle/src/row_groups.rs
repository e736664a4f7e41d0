//! The row groups of a file an engine still reads after checking its Parquet footer: the
//! footer's row-group statistics (min, max, null count, rows, as arrow's `StatisticsConverter`
//! reads them for DataFusion's Parquet scan) offered to DataFusion's `PruningPredicate`, the
//! rules DataFusion applies before it reads a data page. Footers only: no data page, page index
//! or Bloom filter is read.
//!
//! Each row group is a container. A logical column is found in the file as the reader finds
//! it (`read::find_child`: field id, physical name, name); what the footer cannot say is
//! unknown, which keeps the row group:
//! - a partition column: min = max = the file's typed value, all NULL when the value is NULL;
//! - a column the file lacks: every value NULL (the reader fills it with NULLs);
//! - a column of a narrower type (type widening): its bounds cast to the table's type;
//!   bounds that do not cast are unknown;
//! - nested columns and statistics the converter does not decode (INT96 timestamps, for one)
//!   are unknown.

use std::collections::HashSet;
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, UInt64Array, new_null_array};
use arrow::compute::cast;
use arrow::datatypes::{DataType, SchemaRef};
use datafusion::common::Column;
use datafusion::common::pruning::PruningStatistics;
use datafusion::physical_optimizer::pruning::PruningPredicate;
use datafusion::scalar::ScalarValue;
use parquet::arrow::ParquetRecordBatchStreamBuilder;
use parquet::arrow::arrow_reader::ArrowReaderOptions;
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::file::metadata::ParquetMetaData;

use crate::delta_schema::arrow_type;
use crate::error::{OracleError, one_line};
use crate::log::replay::{LiveFile, Snapshot};
use crate::pruning::pruning_predicate;
use crate::read::{find_child, partition_columns};

/// The rules this module applies, as a report names them.
pub const RULES: &str = "DataFusion 55 PruningPredicate over Parquet row-group statistics (min, max, null count, row count)";

/// One row group of a file, as its footer describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowGroup {
    /// Rows in the row group (deleted rows included).
    pub rows: u64,
    /// Compressed bytes of its column chunks: what reading it costs.
    pub bytes: u64,
    /// Whether the footer's statistics leave it to be read.
    pub kept: bool,
}

/// A predicate planned once for the footers of any file of one snapshot (none: every row
/// group is read).
pub struct FooterPruning<'a> {
    snapshot: &'a Snapshot,
    pruning: Option<PruningPredicate>,
}

impl<'a> FooterPruning<'a> {
    pub fn new(snapshot: &'a Snapshot, predicate: Option<&str>) -> Result<Self, OracleError> {
        Ok(Self {
            snapshot,
            pruning: predicate
                .map(|p| pruning_predicate(snapshot, p))
                .transpose()?,
        })
    }

    /// The row groups of `file`, each with the verdict of its footer statistics.
    pub fn row_groups(&self, file: &LiveFile) -> Result<Vec<RowGroup>, OracleError> {
        let path = self.snapshot.file_path(&file.path)?;
        let shown = self.snapshot.store.shown(&path);
        let store = &self.snapshot.store;
        let options = ArrowReaderOptions::new()
            .with_page_index_policy(parquet::file::metadata::PageIndexPolicy::Skip);
        let builder = store
            .block_on(ParquetRecordBatchStreamBuilder::new_with_options(
                store.parquet(path),
                options,
            ))
            .map_err(|e| OracleError::file(&shown, format!("not a readable Parquet file: {e}")))?;
        self.judge(file, builder.metadata(), builder.schema(), &shown)
    }

    /// The row groups of `file` from its footer (`metadata`, read as `file_schema`), each with
    /// the verdict of its statistics: for a footer read already (`streamed.rs`).
    pub fn judge(
        &self,
        file: &LiveFile,
        metadata: &ParquetMetaData,
        file_schema: &SchemaRef,
        shown: &str,
    ) -> Result<Vec<RowGroup>, OracleError> {
        let kept = match &self.pruning {
            None => vec![true; metadata.num_row_groups()],
            Some(pruning) => {
                let footer = FooterStatistics {
                    snapshot: self.snapshot,
                    file_schema: file_schema.clone(),
                    metadata,
                    partition: partition_columns(self.snapshot, file)?,
                };
                pruning.prune(&footer).map_err(|e| {
                    OracleError::file(
                        shown,
                        format!("footer pruning failed: {}", one_line(&e.to_string())),
                    )
                })?
            }
        };
        Ok(metadata
            .row_groups()
            .iter()
            .zip(kept)
            .map(|(rg, kept)| RowGroup {
                rows: u64::try_from(rg.num_rows()).unwrap_or(0),
                bytes: u64::try_from(rg.compressed_size()).unwrap_or(0),
                kept,
            })
            .collect())
    }
}

/// One file's footer as DataFusion's pruning reads containers: one per row group.
struct FooterStatistics<'a> {
    snapshot: &'a Snapshot,
    file_schema: SchemaRef,
    metadata: &'a ParquetMetaData,
    partition: Vec<(String, ScalarValue)>,
}

/// Which side of a row group's range a statistic is.
#[derive(Clone, Copy)]
enum Bound {
    Min,
    Max,
}

impl FooterStatistics<'_> {
    fn groups(&self) -> usize {
        self.metadata.num_row_groups()
    }

    fn partition_value(&self, column: &Column) -> Option<&ScalarValue> {
        self.partition
            .iter()
            .find(|(name, _)| *name == column.name)
            .map(|(_, v)| v)
    }

    /// The file's statistics converter for a logical column, and the table's type of it;
    /// `Ok(None)`: the file lacks the column.
    fn converter(
        &self,
        column: &Column,
    ) -> Result<Option<(StatisticsConverter<'_>, DataType)>, ()> {
        let field = self.snapshot.field(&column.name).ok_or(())?;
        let target = arrow_type(&field.data_type);
        if matches!(
            target,
            DataType::Struct(_) | DataType::List(_) | DataType::Map(_, _)
        ) {
            return Err(());
        }
        let Some(index) = find_child(self.file_schema.fields(), field, self.snapshot.mapping)
        else {
            return Ok(None);
        };
        let name = self.file_schema.field(index).name();
        StatisticsConverter::try_new(
            name,
            &self.file_schema,
            self.metadata.file_metadata().schema_descr(),
        )
        .map(|c| Some((c, target)))
        .map_err(|_| ())
    }

    fn bound(&self, column: &Column, bound: Bound) -> Option<ArrayRef> {
        if let Some(value) = self.partition_value(column) {
            return value.to_array_of_size(self.groups()).ok();
        }
        match self.converter(column) {
            Err(()) => None,
            Ok(None) => {
                let field = self.snapshot.field(&column.name)?;
                Some(new_null_array(&arrow_type(&field.data_type), self.groups()))
            }
            Ok(Some((converter, target))) => {
                let groups = self.metadata.row_groups().iter();
                let values = match bound {
                    Bound::Min => converter.row_group_mins(groups),
                    Bound::Max => converter.row_group_maxes(groups),
                }
                .ok()?;
                if values.data_type() == &target {
                    Some(values)
                } else {
                    cast(&values, &target).ok()
                }
            }
        }
    }

    fn rows(&self) -> Vec<u64> {
        self.metadata
            .row_groups()
            .iter()
            .map(|rg| u64::try_from(rg.num_rows()).unwrap_or(0))
            .collect()
    }
}

impl PruningStatistics for FooterStatistics<'_> {
    fn min_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bound(column, Bound::Min)
    }

    fn max_values(&self, column: &Column) -> Option<ArrayRef> {
        self.bound(column, Bound::Max)
    }

    fn num_containers(&self) -> usize {
        self.groups()
    }

    fn null_counts(&self, column: &Column) -> Option<ArrayRef> {
        if let Some(value) = self.partition_value(column) {
            let nulls: Vec<u64> = if value.is_null() {
                self.rows()
            } else {
                vec![0; self.groups()]
            };
            return Some(Arc::new(UInt64Array::from(nulls)));
        }
        match self.converter(column) {
            Err(()) => None,
            Ok(None) => Some(Arc::new(UInt64Array::from(self.rows()))),
            Ok(Some((converter, _))) => converter
                .row_group_null_counts(self.metadata.row_groups().iter())
                .ok()
                .map(|counts| Arc::new(counts) as ArrayRef),
        }
    }

    fn row_counts(&self) -> Option<ArrayRef> {
        Some(Arc::new(UInt64Array::from(self.rows())))
    }

    fn contained(&self, _column: &Column, _values: &HashSet<ScalarValue>) -> Option<BooleanArray> {
        None
    }
}
