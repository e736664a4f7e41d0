//! The `kernel` adapter: one delta_kernel scan with the predicate, as a reader runs it
//! (partition pruning and data skipping, its own snapshot and replay), lowered as written with
//! no guard of ours (`explain::unguarded_kernel_predicate`). It returns a survivor set; the
//! truth is the files holding a row that matches under any engine's reading (the oracle's
//! DataFusion matching and its interpreter's Spark and DuckDB semantics).

use delta_kernel::Snapshot;
use explain_core::explain::{CompiledPredicate, unguarded_kernel_predicate};
use explain_core::replay::open_engine;
use explain_core::schema::TableColumns;
use oracle::engines::Answer;

use super::{Adapter, Reading, TableUnderTest};
use crate::scaling::fresh_scan_paths;

#[derive(Default)]
pub struct KernelAdapter {
    columns: Option<TableColumns>,
}

impl Adapter for KernelAdapter {
    fn name(&self) -> &'static str {
        "kernel"
    }

    fn version(&self) -> Result<String, String> {
        Ok(kernel_version())
    }

    fn open(&mut self, table: &TableUnderTest) -> Result<Result<(), String>, String> {
        let (url, engine) = open_engine(&table.location).map_err(|e| e.to_string())?;
        let snapshot = Snapshot::builder_for(url.as_str())
            .build(engine.as_ref())
            .map_err(|e| e.to_string())?;
        self.columns = Some(TableColumns::of_snapshot(&snapshot));
        Ok(Ok(()))
    }

    fn read(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Reading, String> {
        let columns = self.columns.as_ref().ok_or("the table is not open")?;
        let kernel = lowered(predicate, columns);
        let kept = fresh_scan_paths(&table.location, None, kernel)?;
        let mut survivors = vec![false; table.files()];
        for path in &kept {
            if let Some(i) = table.file_index(path) {
                survivors[i] = true;
            }
        }
        Ok(Reading::Survivors(survivors))
    }

    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
        // The kernel serves readers of every SQL reading: a file is needed where a row
        // matches under DataFusion's (the oracle's matching) or Spark's and DuckDB's (the
        // interpreter's: NaN above every number). Where the oracle refuses, the predicate has
        // no meaning to hold the kernel to.
        let datafusion = match table.loaded.matching_rows(predicate) {
            Ok(rows) => rows,
            Err(e) => return Ok(Answer::Refused(e.to_string())),
        };
        let spark_duckdb = table
            .loaded
            .matching_rows_under(predicate, oracle::interpret::Semantics::SparkDuckDb)
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        Ok(Answer::Rows(
            datafusion
                .iter()
                .enumerate()
                .map(|(i, n)| (*n).max(spark_duckdb.get(i).copied().unwrap_or(0)))
                .collect(),
        ))
    }
}

/// `predicate` as the kernel is given it: lowered as written, no guard. What the compiler
/// cannot lower gives the kernel nothing to skip with (`None`): a reader scans every file then
/// (the refusal is the compiler's, not the kernel's).
fn lowered(predicate: &str, columns: &TableColumns) -> Option<delta_kernel::PredicateRef> {
    CompiledPredicate::compile_against(predicate, columns)
        .and_then(|compiled| unguarded_kernel_predicate(&compiled, columns))
        .unwrap_or(None)
}

/// The kernel's predicate for `predicate` on the table at `location`, as JSON (the kernel's
/// own serde form), for a reproduction that hands it to a plain kernel scan; `None` where
/// nothing is lowered.
pub fn predicate_json(location: &str, predicate: &str) -> Result<Option<String>, String> {
    let (url, engine) = open_engine(location).map_err(|e| e.to_string())?;
    let snapshot = Snapshot::builder_for(url.as_str())
        .build(engine.as_ref())
        .map_err(|e| e.to_string())?;
    let columns = TableColumns::of_snapshot(&snapshot);
    lowered(predicate, &columns)
        .map(|p| serde_json::to_string_pretty(p.as_ref()).map_err(|e| e.to_string()))
        .transpose()
}

/// The delta_kernel version this build links, read from the workspace's lock file.
pub fn kernel_version() -> String {
    let lock = include_str!("../../../Cargo.lock");
    lock.split("[[package]]")
        .find(|p| p.contains("name = \"delta_kernel\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .map_or_else(
            || "unknown".to_string(),
            |v| v.trim_matches('"').to_string(),
        )
}
