//! The `datafusion-parquet` adapter: DataFusion's own Parquet scan of each live file, as a
//! reader built on it reads a Delta table (the files the log names, partition values as
//! columns): row-group statistics, page-index pruning and filter pushdown on, the predicate as
//! written in a session with DataFusion's defaults. Rows per file; the truth is the same
//! DataFusion session over the oracle's rows (`matching_rows_as_written`), pruning off, so a
//! difference is the scan's.
//!
//! Under column mapping the files are read by their physical column names (under id mapping,
//! by the names of each file's own fields that carry the columns' ids, as the protocol asks of
//! readers) and each column renamed to its logical name before the predicate (as a reader's
//! schema mapping does); a
//! nested field with a physical name of its own is not renamed so, and such a table is
//! skipped. Also skipped with the reason: deletion vectors (a plain Parquet scan does not apply
//! them) and files named by absolute URLs.

use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Schema, UInt32Type};
use datafusion::parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext, ident, lit};
use datafusion::scalar::ScalarValue;
use oracle::delta_schema::{ColumnMapping, DeltaField, arrow_schema};
use oracle::engines::Answer;
use oracle::matching::FILE_COLUMN;

use super::{Adapter, Reading, TableUnderTest};

/// A file's partition values by column, typed as the oracle read them (`None`: the file holds
/// no live row to read them from; it is read with NULLs).
type PartitionScalars = Vec<(String, Option<ScalarValue>)>;

/// The live files, each as the scan reads it.
struct OpenTable {
    files: Vec<FileToRead>,
    /// Each live file's live rows (the oracle's), split once when the table is opened: the
    /// truth of every case reads them.
    rows: Vec<Vec<RecordBatch>>,
}

/// A live file: its absolute path, its partition values, its data columns as it names them
/// (physical names under column mapping; under id mapping the names of the file's own fields
/// with each column's id, as Delta readers resolve them), and under column mapping each data
/// column's (name in the file, logical name), in schema order.
struct FileToRead {
    path: String,
    partitions: PartitionScalars,
    data_schema: Arc<Schema>,
    renames: Vec<Rename>,
}

pub struct DataFusionParquet {
    runtime: tokio::runtime::Runtime,
    open: Option<OpenTable>,
    /// Under id mapping, resolve columns by physical name, ignoring the files' field ids.
    by_name: bool,
}

impl DataFusionParquet {
    pub fn new() -> Result<Self, String> {
        Ok(Self {
            runtime: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?,
            open: None,
            by_name: false,
        })
    }

    /// The scan resolving columns by physical name under id mapping, as delta-rs and DuckDB's
    /// delta extension were seen to (`reports/conformance-20261207`): where a writer names the
    /// Parquet fields unlike the physical names, every column reads as NULL. A reader wrong
    /// whatever the predicate, for the campaign's tests.
    pub fn resolving_by_name() -> Result<Self, String> {
        Ok(Self {
            by_name: true,
            ..Self::new()?
        })
    }

    /// A session as a reader configures one for pruned reads.
    fn session() -> SessionContext {
        let mut config = SessionConfig::new().with_target_partitions(1);
        let parquet = &mut config.options_mut().execution.parquet;
        parquet.pruning = true;
        parquet.enable_page_index = true;
        parquet.pushdown_filters = true;
        parquet.reorder_filters = true;
        SessionContext::new_with_config(config)
    }
}

impl Adapter for DataFusionParquet {
    fn name(&self) -> &'static str {
        "datafusion-parquet"
    }

    fn version(&self) -> Result<String, String> {
        Ok(datafusion::DATAFUSION_VERSION.to_string())
    }

    fn open(&mut self, table: &TableUnderTest) -> Result<Result<(), String>, String> {
        self.open = None;
        let snapshot = &table.loaded.snapshot;
        let partition_columns = &snapshot.metadata.partition_columns;
        let data_fields: Vec<_> = snapshot
            .fields
            .iter()
            .filter(|f| !partition_columns.contains(&f.name))
            .cloned()
            .collect();
        if snapshot.mapping != ColumnMapping::None
            && data_fields.iter().any(|f| !f.data_type.is_primitive())
        {
            return Ok(Err(
                "column mapping of nested fields (their physical names are not renamed by a Parquet scan)".into(),
            ));
        }
        if snapshot.files.iter().any(|f| f.deletion_vector.is_some()) {
            return Ok(Err(
                "deletion vectors (a Parquet scan does not apply them)".into()
            ));
        }
        if snapshot.files.iter().any(|f| f.path.contains("://")) {
            return Ok(Err("files named by absolute URLs".into()));
        }
        // Each file's partition values as the oracle typed them: from one of its rows.
        let mut values: Vec<Option<PartitionScalars>> = vec![None; snapshot.files.len()];
        for batch in table.loaded.rows() {
            let schema = batch.schema();
            let Ok(file_column) = schema.index_of(FILE_COLUMN) else {
                continue;
            };
            let files = batch.column(file_column).as_primitive::<UInt32Type>();
            for row in 0..batch.num_rows() {
                let i = files.value(row) as usize;
                if values.get(i).is_none_or(|v| v.is_some()) {
                    continue;
                }
                values[i] = Some(partition_scalars(batch, row, partition_columns)?);
            }
        }
        let root = std::path::Path::new(&table.location);
        let files = snapshot
            .files
            .iter()
            .zip(values)
            .map(|(f, v)| {
                let path = root.join(oracle::readers::decoded(&f.path));
                let partitions = v.unwrap_or_else(|| {
                    partition_columns
                        .iter()
                        .map(|c| (c.clone(), None))
                        .collect()
                });
                let (data_schema, renames) =
                    file_columns(&path, &data_fields, snapshot.mapping, self.by_name)?;
                Ok(FileToRead {
                    path: path.to_string_lossy().into_owned(),
                    partitions,
                    data_schema,
                    renames,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let rows = rows_by_file(table, files.len())?;
        self.open = Some(OpenTable { files, rows });
        Ok(Ok(()))
    }

    fn read(&mut self, _table: &TableUnderTest, predicate: &str) -> Result<Reading, String> {
        let open = self.open.as_ref().ok_or("the table is not open")?;
        let ctx = Self::session();
        let mut per_file = Vec::with_capacity(open.files.len());
        for FileToRead {
            path,
            partitions,
            data_schema,
            renames,
        } in &open.files
        {
            let extension = std::path::Path::new(path)
                .extension()
                .map(|e| format!(".{}", e.to_string_lossy()))
                .unwrap_or_default();
            let answer = self.runtime.block_on(async {
                let options = ParquetReadOptions::default()
                    .schema(data_schema)
                    .file_extension(&extension);
                let mut df = ctx.read_parquet(path.as_str(), options).await?;
                if !renames.is_empty() {
                    df = df.select(
                        renames
                            .iter()
                            .map(|(physical, logical)| ident(physical).alias(logical))
                            .collect::<Vec<_>>(),
                    )?;
                }
                count_matching(df, partitions, predicate).await
            });
            match answer {
                Ok(n) => per_file.push(n as u64),
                // A plan error is the engine refusing the predicate (the truth's session
                // refuses it too, or the verdict says it does not); an execution error is
                // the same refusal for a reader.
                Err(e) => return Ok(Reading::Refused(oracle::error::one_line(&e.to_string()))),
            }
        }
        Ok(Reading::Rows {
            total: per_file.iter().sum(),
            per_file: Some(per_file),
        })
    }

    /// The same question in the same shape as [`read`](Adapter::read): per live file, its live
    /// rows (the oracle's, deletion vectors applied) in memory, no statistics to prune by, the
    /// partition values supplied as the read supplies them (literal columns, which DataFusion
    /// folds into the predicate), the predicate parsed and counted in the same session. The
    /// truth with partition values as real columns folds `y IN (0.0, ...)` otherwise, a
    /// difference of the harness, not of the scan.
    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
        let open = self.open.as_ref().ok_or("the table is not open")?;
        let ctx = Self::session();
        let mut per_file = Vec::with_capacity(open.files.len());
        for (file, rows) in open.files.iter().zip(open.rows.iter().cloned()) {
            let answer = self.runtime.block_on(async {
                let schema = match rows.first() {
                    Some(b) => b.schema(),
                    None => Arc::new(data_only(table)),
                };
                let memory = datafusion::datasource::MemTable::try_new(schema, vec![rows])?;
                let df = ctx.read_table(Arc::new(memory))?;
                count_matching(df, &file.partitions, predicate).await
            });
            match answer {
                Ok(n) => per_file.push(n as u64),
                Err(e) => return Ok(Answer::Refused(oracle::error::one_line(&e.to_string()))),
            }
        }
        Ok(Answer::Rows(per_file))
    }
}

/// The rows of `df` (a file's data columns) matching `predicate`, its partition values added as
/// literal columns: the one question the read and its truth both ask.
async fn count_matching(
    mut df: datafusion::dataframe::DataFrame,
    partitions: &PartitionScalars,
    predicate: &str,
) -> datafusion::error::Result<usize> {
    for (name, value) in partitions {
        let value = match value {
            Some(v) => lit(v.clone()),
            None => lit(ScalarValue::Null),
        };
        df = df.with_column(name, value)?;
    }
    let filter = df.parse_sql_expr(predicate)?;
    df.filter(filter)?.count().await
}

/// The logical data columns (no partition columns, no file column) of `table`.
fn data_only(table: &TableUnderTest) -> Schema {
    let snapshot = &table.loaded.snapshot;
    let fields: Vec<DeltaField> = snapshot
        .fields
        .iter()
        .filter(|f| !snapshot.metadata.partition_columns.contains(&f.name))
        .cloned()
        .collect();
    arrow_schema(&fields).as_ref().clone()
}

/// Each live file's live rows (the oracle's), with the data columns under their logical names
/// in the order a read gives them (no partition columns, no file column).
fn rows_by_file(table: &TableUnderTest, files: usize) -> Result<Vec<Vec<RecordBatch>>, String> {
    use datafusion::arrow::array::UInt32Array;
    use datafusion::arrow::compute::filter_record_batch;
    let data = data_only(table);
    let mut out: Vec<Vec<RecordBatch>> = vec![Vec::new(); files];
    for batch in table.loaded.rows() {
        let schema = batch.schema();
        let file_column = schema.index_of(FILE_COLUMN).map_err(|e| e.to_string())?;
        let files = batch
            .column(file_column)
            .as_any()
            .downcast_ref::<UInt32Array>()
            .ok_or("the file column is not u32")?;
        let columns = data
            .fields()
            .iter()
            .map(|f| {
                batch
                    .column_by_name(f.name())
                    .cloned()
                    .ok_or_else(|| format!("no column {} in the rows", f.name()))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let fields: Vec<_> = data
            .fields()
            .iter()
            .zip(&columns)
            .map(|(f, c)| f.as_ref().clone().with_data_type(c.data_type().clone()))
            .collect();
        let projected = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
            .map_err(|e| e.to_string())?;
        for (i, rows) in out.iter_mut().enumerate() {
            let mask: datafusion::arrow::array::BooleanArray =
                files.iter().map(|f| Some(f == Some(i as u32))).collect();
            let mine = filter_record_batch(&projected, &mask).map_err(|e| e.to_string())?;
            if mine.num_rows() > 0 {
                rows.push(mine);
            }
        }
    }
    Ok(out)
}

/// The data columns of the file at `path` as it names them, and under column mapping each
/// one's (name in the file, logical name): the physical name, or under id mapping the name of
/// the file's field with the column's id where it has one (`oracle::read::find_child`, the
/// resolution Delta's protocol asks of readers; a writer may name the Parquet fields as it
/// likes), by physical name where `by_name` says so.
fn file_columns(
    path: &std::path::Path,
    fields: &[DeltaField],
    mode: ColumnMapping,
    by_name: bool,
) -> Result<(Arc<Schema>, Vec<Rename>), String> {
    let in_file: Option<datafusion::arrow::datatypes::Fields> = match mode {
        ColumnMapping::Id if !by_name => {
            let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let metadata = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            Some(metadata.schema().fields().clone())
        }
        ColumnMapping::Id | ColumnMapping::None | ColumnMapping::Name => None,
    };
    let named: Vec<DeltaField> = fields
        .iter()
        .map(|f| {
            let name = in_file
                .as_ref()
                .and_then(|file| oracle::read::find_child(file, f, mode).map(|i| file[i].name()))
                .map_or_else(|| f.physical(mode).to_string(), Clone::clone);
            DeltaField { name, ..f.clone() }
        })
        .collect();
    let renames = match mode {
        ColumnMapping::None => Vec::new(),
        ColumnMapping::Name | ColumnMapping::Id => named
            .iter()
            .zip(fields)
            .map(|(n, f)| (n.name.clone(), f.name.clone()))
            .collect(),
    };
    Ok((arrow_schema(&named), renames))
}

/// The values of `columns` in row `row` of `batch`, each as a typed scalar.
fn partition_scalars(
    batch: &RecordBatch,
    row: usize,
    columns: &[String],
) -> Result<PartitionScalars, String> {
    columns
        .iter()
        .map(|c| {
            let column = batch
                .column_by_name(c)
                .ok_or_else(|| format!("no partition column {c} in the rows"))?;
            let value = if column.is_null(row) {
                ScalarValue::try_from(column.data_type()).map_err(|e| e.to_string())?
            } else {
                ScalarValue::try_from_array(column, row).map_err(|e| e.to_string())?
            };
            Ok((c.clone(), Some(value)))
        })
        .collect()
}

/// A live file (its path under the table), its partition values as SQL expressions
/// (`CAST('3' AS INT)`) by column, and under column mapping each data column's (name in the
/// file, logical name).
pub type FilePartitionSql = (String, Vec<(String, String)>, Vec<Rename>);

/// A column's (name in the file, logical) name.
pub type Rename = (String, String);

/// Each live file's partition values as SQL and its renames, for a reproduction that reads
/// each file as the adapter does.
pub fn partition_sql(table: &TableUnderTest) -> Result<Vec<FilePartitionSql>, String> {
    let mut adapter = DataFusionParquet::new()?;
    adapter.open(table)??;
    let open = adapter.open.take().ok_or("the table is not open")?;
    let root = std::path::Path::new(&table.location);
    Ok(open
        .files
        .into_iter()
        .map(|file| {
            let FileToRead {
                path,
                partitions: values,
                renames,
                ..
            } = file;
            let relative = std::path::Path::new(&path)
                .strip_prefix(root)
                .map_or(path.clone(), |p| p.to_string_lossy().into_owned());
            let exprs = values
                .into_iter()
                .map(|(column, value)| {
                    let expr = match value {
                        Some(v) if !v.is_null() => {
                            let sql_type = sql_type(&v.data_type());
                            format!(
                                "CAST('{}' AS {sql_type})",
                                v.to_string().replace('\'', "''")
                            )
                        }
                        Some(v) => format!("CAST(NULL AS {})", sql_type(&v.data_type())),
                        None => "NULL".to_string(),
                    };
                    (column, expr)
                })
                .collect();
            (relative, exprs, renames)
        })
        .collect())
}

/// The SQL name of a partition column's type.
fn sql_type(t: &datafusion::arrow::datatypes::DataType) -> String {
    use datafusion::arrow::datatypes::DataType as T;
    match t {
        T::Boolean => "BOOLEAN".into(),
        T::Int8 => "TINYINT".into(),
        T::Int16 => "SMALLINT".into(),
        T::Int32 => "INT".into(),
        T::Int64 => "BIGINT".into(),
        T::Float32 => "FLOAT".into(),
        T::Float64 => "DOUBLE".into(),
        T::Date32 => "DATE".into(),
        T::Decimal128(p, s) => format!("DECIMAL({p},{s})"),
        T::Timestamp(_, None) => "TIMESTAMP".into(),
        T::Timestamp(_, Some(_)) => "TIMESTAMPTZ".into(),
        T::Binary | T::LargeBinary | T::BinaryView => "BYTEA".into(),
        // Arrow's name (`Utf8`) is no SQL type: DataFusion's SQL would refuse the cast.
        T::Utf8 | T::LargeUtf8 | T::Utf8View => "VARCHAR".into(),
        other => format!("{other}"),
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::datatypes::{DataType as T, TimeUnit};
    use datafusion::prelude::SessionContext;

    use super::sql_type;

    /// Every partition column's type is written as a SQL type DataFusion parses and casts a
    /// partition value's text to (a reproduction adds its partition values this way).
    #[test]
    fn each_partition_type_is_a_type_datafusion_sql_casts_to() {
        let df = SessionContext::new().read_empty().unwrap();
        for (t, value) in [
            (T::Boolean, "true"),
            (T::Int8, "1"),
            (T::Int16, "1"),
            (T::Int32, "11"),
            (T::Int64, "1"),
            (T::Float32, "1.5"),
            (T::Float64, "-0.0"),
            (T::Date32, "2021-09-08"),
            (T::Decimal128(10, 2), "2.50"),
            (
                T::Timestamp(TimeUnit::Microsecond, None),
                "2021-09-08 11:11:11",
            ),
            (T::Utf8, "p2"),
            (T::Utf8View, "p2"),
            (T::Binary, "ab"),
        ] {
            let sql = format!("CAST('{value}' AS {})", sql_type(&t));
            df.parse_sql_expr(&sql)
                .unwrap_or_else(|e| panic!("{t}: {sql}: {e}"));
        }
    }
}
