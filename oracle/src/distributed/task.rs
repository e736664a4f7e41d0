//! One share of a distributed matching: the files one executor task reads, and what every task
//! of the job needs to read them exactly as the driver's own oracle would.
//!
//! A task rebuilds a snapshot of its files alone ([`Snapshot::from_parts`]: the protocol and
//! metadata give the schema and column mapping), opens the table's store itself, and counts
//! each file with the oracle's own per-file reader ([`crate::streamed`]): deletion vectors
//! applied by row position, partition values, column mapping and type widening as the reader
//! applies them locally. So a file matched on an executor is matched by the same code as a
//! file matched on the driver; only where it runs differs.

use std::sync::Arc;

use arrow::array::{ArrayRef, ListBuilder, RecordBatch, UInt32Builder, UInt64Array, UInt64Builder};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use serde::{Deserialize, Serialize};

use crate::error::OracleError;
use crate::log::actions::{Metadata, Protocol};
use crate::log::replay::{LiveFile, Snapshot};
use crate::matching::physical_predicate;
use crate::row_groups::FooterPruning;
use crate::store::TableFiles;
use crate::streamed::count_file;

/// What every task of one job shares: the table, its snapshot's protocol and metadata, and the
/// predicate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TableShare {
    pub location: String,
    /// The storage options the driver was given; executors read the store themselves.
    pub storage: WireStorage,
    pub version: u64,
    pub protocol: Protocol,
    pub metadata: Metadata,
    pub predicate: String,
}

/// [`storage::StorageOptions`] as the plan carries it to the executors.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WireStorage {
    pub options: Vec<(String, String)>,
    pub region: Option<String>,
    pub anonymous: bool,
}

impl From<&storage::StorageOptions> for WireStorage {
    fn from(o: &storage::StorageOptions) -> Self {
        Self {
            options: o.options.clone(),
            region: o.region.clone(),
            anonymous: o.anonymous,
        }
    }
}

impl From<&WireStorage> for storage::StorageOptions {
    fn from(o: &WireStorage) -> Self {
        Self {
            options: o.options.clone(),
            region: o.region.clone(),
            anonymous: o.anonymous,
            // Vended credentials stay with the process that asked the catalog.
            vended: None,
        }
    }
}

/// The files of one task.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchTask {
    pub files: Vec<TaskFile>,
}

/// A file of a task, or a part of it: its position among the snapshot's live files, and the
/// byte range whose row groups the task reads (`None`: the whole file). A row group belongs to
/// the range holding its first page ([`crate::read::row_groups_in_range`]), so the ranges of
/// one file share none.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TaskFile {
    pub position: u64,
    pub file: LiveFile,
    pub range: Option<(u64, u64)>,
}

impl TaskFile {
    /// Where the part starts in its file (0 for a whole file): with the position, what names
    /// the part in an answer.
    pub fn start(&self) -> u64 {
        self.range.map_or(0, |(start, _)| start)
    }
}

/// The rows a task answers, one per file: its position, its rows read and left after the
/// deletion vector, its matching rows, and the matching rows per row group.
pub fn output_schema() -> SchemaRef {
    let item = |t: DataType| Arc::new(Field::new("item", t, true));
    Arc::new(Schema::new(vec![
        Field::new("file", DataType::UInt64, false),
        Field::new("range_start", DataType::UInt64, false),
        Field::new("physical_rows", DataType::UInt64, false),
        Field::new("live_rows", DataType::UInt64, false),
        Field::new("matching_rows", DataType::UInt64, false),
        Field::new("row_groups", DataType::List(item(DataType::UInt32)), false),
        Field::new(
            "row_group_matches",
            DataType::List(item(DataType::UInt64)),
            false,
        ),
    ]))
}

impl TableShare {
    /// Counts every file of `task`: one batch, a row per file in the task's order.
    pub fn run(&self, task: &MatchTask) -> Result<RecordBatch, OracleError> {
        let store = TableFiles::open(&self.location, &(&self.storage).into())?;
        let snapshot = Snapshot::from_parts(
            store,
            self.version,
            self.protocol.clone(),
            self.metadata.clone(),
            task.files.iter().map(|t| t.file.clone()).collect(),
        )?;
        let physical = physical_predicate(&snapshot, &self.predicate)?;
        let footers = FooterPruning::new(&snapshot, Some(&self.predicate))?;
        let mut positions = Vec::with_capacity(task.files.len());
        let mut starts = Vec::with_capacity(task.files.len());
        let mut physical_rows = Vec::with_capacity(task.files.len());
        let mut live_rows = Vec::with_capacity(task.files.len());
        let mut matching_rows = Vec::with_capacity(task.files.len());
        let mut groups = ListBuilder::new(UInt32Builder::new());
        let mut group_matches = ListBuilder::new(UInt64Builder::new());
        for (part, file) in task.files.iter().zip(&snapshot.files) {
            let range = part.range.map(|(start, end)| start..end);
            let verdict = count_file(&snapshot, file, range, &physical, &footers)?;
            positions.push(part.position);
            starts.push(part.start());
            physical_rows.push(verdict.physical_rows);
            live_rows.push(verdict.live_rows);
            matching_rows.push(verdict.matches.iter().map(|(_, n)| n).sum::<u64>());
            for (group, n) in &verdict.matches {
                groups.values().append_value(*group);
                group_matches.values().append_value(*n);
            }
            groups.append(true);
            group_matches.append(true);
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(UInt64Array::from(positions)),
            Arc::new(UInt64Array::from(starts)),
            Arc::new(UInt64Array::from(physical_rows)),
            Arc::new(UInt64Array::from(live_rows)),
            Arc::new(UInt64Array::from(matching_rows)),
            Arc::new(groups.finish()),
            Arc::new(group_matches.finish()),
        ];
        RecordBatch::try_new(output_schema(), columns)
            .map_err(|e| OracleError::Cluster(format!("cannot build a task's answer: {e}")))
    }
}
