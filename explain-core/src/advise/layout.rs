//! Candidate layouts, and the files each cuts the rows into.
//!
//! | layout | rows ordered by | files |
//! |---|---|---|
//! | current | the table's own files | the table's own files, their real sizes |
//! | partition by C | C's value, then the current order | a folder per value, cut to the target size within it |
//! | sort by C | C (nulls first) | cut to the target size |
//! | Z-order (C1, ...) | bit-interleaved dense ranks of the columns | cut to the target size |
//! | Hilbert (C1, ...) | the Hilbert curve over the same ranks (liquid clustering's order) | cut to the target size |

use std::collections::BTreeMap;

use arrow::array::{Array, ArrayRef, RecordBatch};
use arrow::compute::{SortOptions, sort_to_indices};
use arrow::row::{RowConverter, SortField};
use serde::Serialize;

use super::curve::{Curve, key, scale_rank};
use super::rows::SampledRows;
use super::stats::partition_value;
use crate::error::ExplainError;

/// A way to lay the table's rows out in files.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "columns", rename_all = "kebab-case")]
pub enum Layout {
    Current,
    Partition(String),
    Sort(String),
    ZOrder(Vec<String>),
    Hilbert(Vec<String>),
}

impl Layout {
    pub fn name(&self) -> String {
        match self {
            Layout::Current => "current layout".into(),
            Layout::Partition(c) => format!("partition by {c}"),
            Layout::Sort(c) => format!("sort by {c}"),
            Layout::ZOrder(cs) => format!("Z-order ({})", cs.join(", ")),
            Layout::Hilbert(cs) => format!("Hilbert ({})", cs.join(", ")),
        }
    }

    /// The columns the layout orders by, in order.
    pub fn columns(&self) -> Vec<String> {
        match self {
            Layout::Current => Vec::new(),
            Layout::Partition(c) | Layout::Sort(c) => vec![c.clone()],
            Layout::ZOrder(cs) | Layout::Hilbert(cs) => cs.clone(),
        }
    }

    /// The partition column of the layout's table, if it has one.
    pub fn partition_column(&self) -> Option<&str> {
        match self {
            Layout::Partition(c) => Some(c),
            Layout::Current | Layout::Sort(_) | Layout::ZOrder(_) | Layout::Hilbert(_) => None,
        }
    }
}

/// One file of a layout: the sampled rows it holds, its partition value, its size.
#[derive(Clone, Debug)]
pub struct SimFile {
    pub path: String,
    pub rows: Vec<u32>,
    pub partition: Option<Option<String>>,
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
    let cut = |order: &[u32], partition: Option<Option<String>>, prefix: &str| -> Vec<SimFile> {
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
                    partition: None,
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
                    cut(&order, Some(value), &folder)
                })
                .collect())
        }
        Layout::Sort(c) => {
            let options = SortOptions {
                descending: false,
                nulls_first: true,
            };
            let order = sort_to_indices(column(&rows.batch, c)?, Some(options), None)
                .map_err(|e| ExplainError::Usage(e.to_string()))?;
            Ok(cut(order.values(), None, ""))
        }
        Layout::ZOrder(cs) => Ok(cut(&curve_order(&rows.batch, cs, Curve::ZOrder)?, None, "")),
        Layout::Hilbert(cs) => Ok(cut(
            &curve_order(&rows.batch, cs, Curve::Hilbert)?,
            None,
            "",
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
