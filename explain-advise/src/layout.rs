//! Candidate layouts, and the files each cuts the rows into.
//!
//! | layout | rows ordered by | files |
//! |---|---|---|
//! | current | the table's own files | the table's own files, their real sizes |
//! | partition by C | C's value, then the current order | a folder per value, cut to the target size within it |
//! | sort by C | C (nulls first) | cut to the target size |
//! | Z-order (C1, ...) | bit-interleaved dense ranks of the columns | cut to the target size |
//! | Hilbert (C1, ...) | the Hilbert curve over the same ranks (liquid clustering's order) | cut to the target size |
//! | partitioned as now, then one of the three above | the table's partitions, each in that order | cut to the target size within each partition |

use std::collections::BTreeMap;

use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::compute::{SortOptions, sort_to_indices};
use arrow::row::{RowConverter, SortField};
use serde::Serialize;

use crate::curve::{Curve, key, scale_rank};
use crate::rows::{FilePartition, SampledRows};
use crate::stats::partition_value;
use explain_compiler::error::ExplainError;

/// A way to lay the table's rows out in files. In JSON: `{"kind", "columns", "keeps_partitions"}`
/// (docs/advise.schema.json).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    Current,
    Partition(String),
    Sort(String),
    ZOrder(Vec<String>),
    Hilbert(Vec<String>),
    /// The table's own partitioning kept, each partition's rows in the inner layout's order
    /// (a sort or a curve).
    Within(Box<Layout>),
}

impl Serialize for Layout {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown {
            kind: &'static str,
            columns: Vec<String>,
            keeps_partitions: bool,
        }
        Shown {
            kind: self.kind(),
            columns: self.columns(),
            keeps_partitions: matches!(self, Layout::Current | Layout::Within(_)),
        }
        .serialize(serializer)
    }
}

impl Layout {
    /// The kind of order: `current`, `partition`, `sort`, `z-order`, `hilbert` (of the order
    /// within the partitions for a layout that keeps them).
    pub fn kind(&self) -> &'static str {
        match self {
            Layout::Current => "current",
            Layout::Partition(_) => "partition",
            Layout::Sort(_) => "sort",
            Layout::ZOrder(_) => "z-order",
            Layout::Hilbert(_) => "hilbert",
            Layout::Within(inner) => inner.kind(),
        }
    }

    /// The Delta SQL that lays `table` out so (Spark with Delta, or Databricks):
    ///
    /// | layout | statement |
    /// |---|---|
    /// | a sort or Z-order, the table unpartitioned | `OPTIMIZE t ZORDER BY (cs)` (a sort for one column) |
    /// | a Hilbert curve, the table unpartitioned | `ALTER TABLE t CLUSTER BY (cs)` then `OPTIMIZE t FULL` (liquid clustering orders by a Hilbert curve) |
    /// | a sort, a curve or a partitioning that drops the table's partitions | `REPLACE TABLE t USING DELTA CLUSTER BY (cs)` or `PARTITIONED BY (c)` `AS SELECT * FROM t` (a rewrite) |
    /// | the partitions kept, a sort or curve within | `OPTIMIZE t ZORDER BY (cs)` (it works within each partition) |
    pub fn statement(&self, table: &str, partitioned: bool) -> String {
        let list = |cs: Vec<String>| {
            cs.iter()
                .map(|c| format!("`{}`", c.replace('`', "``")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let rewrite = |clause: String| {
            format!("REPLACE TABLE {table} USING DELTA {clause} AS SELECT * FROM {table}")
        };
        match self {
            Layout::Current => String::new(),
            Layout::Partition(c) => rewrite(format!("PARTITIONED BY ({})", list(vec![c.clone()]))),
            Layout::Sort(_) | Layout::ZOrder(_) | Layout::Hilbert(_) if partitioned => {
                rewrite(format!("CLUSTER BY ({})", list(self.columns())))
            }
            Layout::Sort(_) | Layout::ZOrder(_) => {
                format!("OPTIMIZE {table} ZORDER BY ({})", list(self.columns()))
            }
            Layout::Hilbert(_) => format!(
                "ALTER TABLE {table} CLUSTER BY ({}); OPTIMIZE {table} FULL",
                list(self.columns())
            ),
            Layout::Within(inner) => {
                format!("OPTIMIZE {table} ZORDER BY ({})", list(inner.columns()))
            }
        }
    }

    pub fn name(&self) -> String {
        match self {
            Layout::Current => "current layout".into(),
            Layout::Partition(c) => format!("partition by {c}"),
            Layout::Sort(c) => format!("sort by {c}"),
            Layout::ZOrder(cs) => format!("Z-order ({})", cs.join(", ")),
            Layout::Hilbert(cs) => format!("Hilbert ({})", cs.join(", ")),
            Layout::Within(inner) => format!("partitioned as now, {} within", inner.name()),
        }
    }

    /// The columns the layout orders by, in order.
    pub fn columns(&self) -> Vec<String> {
        match self {
            Layout::Current => Vec::new(),
            Layout::Partition(c) | Layout::Sort(c) => vec![c.clone()],
            Layout::ZOrder(cs) | Layout::Hilbert(cs) => cs.clone(),
            Layout::Within(inner) => inner.columns(),
        }
    }

    /// The partition columns of the layout's table, given the table's own.
    pub fn partition_columns(&self, table: &[String]) -> Vec<String> {
        match self {
            Layout::Current | Layout::Within(_) => table.to_vec(),
            Layout::Partition(c) => vec![c.clone()],
            Layout::Sort(_) | Layout::ZOrder(_) | Layout::Hilbert(_) => Vec::new(),
        }
    }
}

/// One file of a layout: the sampled rows it holds, its partition values, its size.
#[derive(Clone, Debug)]
pub struct SimFile {
    pub path: String,
    pub rows: Vec<u32>,
    pub partition: FilePartition,
    pub size: u64,
}

/// The files `layout` cuts `rows` into, files of `target_bytes` where the layout cuts.
pub fn lay_out(
    rows: &SampledRows,
    layout: &Layout,
    target_bytes: u64,
) -> Result<Vec<SimFile>, ExplainError> {
    // Rows of the sample per file: the target size over the bytes a live row takes, times the
    // share of rows sampled.
    let per_file = ((target_bytes as f64 / rows.bytes_per_row.max(1e-9)) * rows.rate)
        .round()
        .max(1.0) as usize;
    let size_of = |n: usize| (n as f64 / rows.rate * rows.bytes_per_row).round() as u64;
    let cut = |order: &[u32], partition: FilePartition, prefix: &str| -> Vec<SimFile> {
        order
            .chunks(per_file)
            .enumerate()
            .map(|(i, chunk)| SimFile {
                path: format!("{prefix}part-{i:05}.parquet"),
                rows: chunk.to_vec(),
                partition: partition.clone(),
                size: size_of(chunk.len()),
            })
            .collect()
    };
    let n = rows.batch.num_rows();
    match layout {
        Layout::Current => {
            let mut by_file: Vec<Vec<u32>> = vec![Vec::new(); rows.files.len()];
            for (row, &file) in rows.file_of_row.iter().enumerate() {
                by_file[file as usize].push(row as u32);
            }
            Ok(rows
                .files
                .iter()
                .zip(by_file)
                .map(|(f, rows)| SimFile {
                    path: f.path.clone(),
                    rows,
                    partition: f.partition_values.clone(),
                    size: f.size,
                })
                .collect())
        }
        Layout::Partition(c) => {
            let column = column(&rows.batch, c)?;
            let mut groups: BTreeMap<Option<String>, Vec<u32>> = BTreeMap::new();
            for row in 0..n {
                let value = partition_value(column, row).map_err(ExplainError::Usage)?;
                groups.entry(value).or_default().push(row as u32);
            }
            Ok(groups
                .into_iter()
                .enumerate()
                .flat_map(|(i, (value, order))| {
                    let folder = format!("{c}=p{i:05}/");
                    cut(&order, vec![(c.clone(), value)], &folder)
                })
                .collect())
        }
        Layout::Sort(_) | Layout::ZOrder(_) | Layout::Hilbert(_) => {
            Ok(cut(&order(&rows.batch, layout)?, Vec::new(), ""))
        }
        Layout::Within(inner) => {
            // The inner order over all rows, then each partition's rows in that order.
            let mut groups: BTreeMap<&FilePartition, Vec<u32>> = BTreeMap::new();
            for row in order(&rows.batch, inner)? {
                let file = &rows.files[rows.file_of_row[row as usize] as usize];
                groups.entry(&file.partition_values).or_default().push(row);
            }
            Ok(groups
                .into_iter()
                .enumerate()
                .flat_map(|(i, (values, order))| cut(&order, values.clone(), &format!("p{i:05}/")))
                .collect())
        }
    }
}

/// The rows in the order of a sort or a curve.
fn order(batch: &RecordBatch, layout: &Layout) -> Result<Vec<u32>, ExplainError> {
    match layout {
        Layout::Sort(c) => {
            let options = SortOptions {
                descending: false,
                nulls_first: true,
            };
            let order = sort_to_indices(column(batch, c)?, Some(options), None)
                .map_err(|e| ExplainError::Usage(e.to_string()))?;
            Ok(order.values().to_vec())
        }
        Layout::ZOrder(cs) => curve_order(batch, cs, Curve::ZOrder),
        Layout::Hilbert(cs) => curve_order(batch, cs, Curve::Hilbert),
        Layout::Current | Layout::Partition(_) | Layout::Within(_) => Err(ExplainError::Usage(
            format!("{} is not an order of rows", layout.name()),
        )),
    }
}

fn column<'b>(batch: &'b RecordBatch, name: &str) -> Result<&'b ArrayRef, ExplainError> {
    batch
        .column_by_name(name)
        .ok_or_else(|| ExplainError::Usage(format!("the rows read have no column `{name}`")))
}

/// Each row's dense rank in `column` (nulls first, equal values equal), and the largest rank.
fn dense_ranks(column: &ArrayRef) -> Result<(Vec<u64>, u64), ExplainError> {
    let failed = |e: arrow::error::ArrowError| ExplainError::Usage(e.to_string());
    let converter =
        RowConverter::new(vec![SortField::new(column.data_type().clone())]).map_err(failed)?;
    let encoded = converter
        .convert_columns(std::slice::from_ref(column))
        .map_err(failed)?;
    let mut order: Vec<u32> = (0..column.len() as u32).collect();
    order.sort_unstable_by(|&a, &b| encoded.row(a as usize).cmp(&encoded.row(b as usize)));
    let mut ranks = vec![0u64; column.len()];
    let mut rank = 0u64;
    for (i, w) in order.iter().enumerate() {
        if i > 0 && encoded.row(order[i - 1] as usize) != encoded.row(*w as usize) {
            rank += 1;
        }
        ranks[*w as usize] = rank;
    }
    Ok((ranks, rank))
}

/// The rows in the order of `curve` over the dense ranks of `columns`.
fn curve_order(
    batch: &RecordBatch,
    columns: &[String],
    curve: Curve,
) -> Result<Vec<u32>, ExplainError> {
    let ranked: Vec<(Vec<u64>, u64)> = columns
        .iter()
        .map(|c| dense_ranks(column(batch, c)?))
        .collect::<Result<_, _>>()?;
    let mut keyed: Vec<(u64, u32)> = (0..batch.num_rows())
        .map(|row| {
            let coordinates: Vec<u32> = ranked
                .iter()
                .map(|(ranks, max)| scale_rank(ranks[row], *max))
                .collect();
            (key(curve, &coordinates), row as u32)
        })
        .collect();
    keyed.sort_unstable();
    Ok(keyed.into_iter().map(|(_, row)| row).collect())
}

/// Whether the advisor offers partitioning by a column of this type and this many distinct
/// values (in the rows read): folders by value suit a few hundred values, not thousands.
pub fn partitionable(column: &ArrayRef, max_values: usize) -> bool {
    let typed = matches!(
        column.data_type(),
        arrow::datatypes::DataType::Int8
            | arrow::datatypes::DataType::Int16
            | arrow::datatypes::DataType::Int32
            | arrow::datatypes::DataType::Int64
            | arrow::datatypes::DataType::Utf8
            | arrow::datatypes::DataType::LargeUtf8
            | arrow::datatypes::DataType::Boolean
            | arrow::datatypes::DataType::Date32
    );
    typed && dense_ranks(column).is_ok_and(|(_, max)| (max as usize) < max_values)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{AsArray, Int64Array};
    use arrow::datatypes::{DataType, Field, Int64Type, Schema};

    use super::*;
    use crate::rows::TableFile;

    /// Twelve rows in two files of partitions `p=a` and `p=b`, `x` descending.
    fn rows() -> SampledRows {
        let schema = Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, true)]));
        let batch = RecordBatch::try_new(
            schema,
            vec![Arc::new(Int64Array::from_iter_values((0..12).rev()))],
        )
        .unwrap();
        let file = |path: &str, value: &str| TableFile {
            path: path.into(),
            size: 600,
            live_rows: 6,
            has_deletion_vector: false,
            partition_values: vec![("p".into(), Some(value.into()))],
        };
        SampledRows {
            batch,
            file_of_row: vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1],
            files: vec![file("p=a/0.parquet", "a"), file("p=b/1.parquet", "b")],
            rate: 1.0,
            bytes_per_row: 100.0,
        }
    }

    fn xs(rows: &SampledRows, file: &SimFile) -> Vec<i64> {
        let x = rows.batch.column(0).as_primitive::<Int64Type>();
        file.rows.iter().map(|&r| x.value(r as usize)).collect()
    }

    #[test]
    fn within_partitions_each_partitions_rows_are_ordered_and_cut_apart() {
        let rows = rows();
        let files = lay_out(
            &rows,
            &Layout::Within(Box::new(Layout::Sort("x".into()))),
            300,
        )
        .unwrap();
        // Three rows (300 bytes) a file, two files per partition.
        assert_eq!(files.len(), 4);
        for f in &files {
            let [(column, Some(value))] = f.partition.as_slice() else {
                panic!("{f:?}");
            };
            assert_eq!(column, "p");
            assert!(f.rows.iter().all(|&r| {
                rows.files[rows.file_of_row[r as usize] as usize].partition_values[0]
                    .1
                    .as_deref()
                    == Some(value.as_str())
            }));
            let x = xs(&rows, f);
            assert!(x.windows(2).all(|w| w[0] <= w[1]), "{x:?}");
            assert_eq!(f.size, 300);
        }
        let layout = Layout::Within(Box::new(Layout::Sort("x".into())));
        assert_eq!(
            layout.partition_columns(&["p".into()]),
            vec!["p".to_string()]
        );
        assert_eq!(layout.columns(), vec!["x".to_string()]);
    }

    #[test]
    fn a_sort_cuts_the_whole_table_and_the_current_layout_keeps_its_files() {
        let rows = rows();
        let sorted = lay_out(&rows, &Layout::Sort("x".into()), 600).unwrap();
        assert_eq!(sorted.len(), 2);
        assert_eq!(xs(&rows, &sorted[0]), vec![0, 1, 2, 3, 4, 5]);
        assert!(sorted.iter().all(|f| f.partition.is_empty()));
        let current = lay_out(&rows, &Layout::Current, 600).unwrap();
        assert_eq!(current.len(), 2);
        assert_eq!(current[0].path, "p=a/0.parquet");
        assert_eq!(
            current[1].partition,
            vec![("p".to_string(), Some("b".to_string()))]
        );
        assert_eq!(xs(&rows, &current[0]), vec![11, 9, 7, 5, 3, 1]);
    }
}
