//! What `delta-oracle` prints: the live files with their row counts, the files that match
//! with their matching row counts, and the statistics-pruning kept set.

use std::fmt::Write as _;

use serde::Serialize;

use crate::error::OracleError;
use crate::log::Snapshot;
use crate::matching::LoadedTable;
use crate::pruning::kept_by_statistics;

#[derive(Clone, Debug, Serialize)]
pub struct OracleReport {
    pub table: String,
    pub version: u64,
    pub predicate: String,
    pub live_files: usize,
    pub matching_files: usize,
    pub kept_by_statistics: usize,
    pub files: Vec<FileOutcome>,
    /// Matched on a cluster: the files the driver read itself to check the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked_on_driver: Option<SampleCheck>,
}

/// The driver's check of a cluster's answer: how many files it read and matched itself, and
/// with which evaluator; every one agreed (a disagreement refuses the answer).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SampleCheck {
    pub files: usize,
    /// `row-wise` (the oracle's interpreter, which shares no code with DataFusion's
    /// evaluation) or `datafusion` (where the interpreter does not evaluate the predicate).
    pub evaluator: &'static str,
    /// Why the interpreter could not be used, where it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FileOutcome {
    pub path: String,
    /// `numRecords` from the log (deleted rows included), when recorded.
    pub num_records: Option<u64>,
    pub deleted_rows: u64,
    pub live_rows: u64,
    pub matching_rows: u64,
    /// Whether DataFusion's PruningPredicate over the replayed statistics keeps the file.
    pub kept_by_statistics: bool,
}

impl OracleReport {
    pub fn build(
        table: &str,
        loaded: &LoadedTable,
        predicate: &str,
    ) -> Result<OracleReport, OracleError> {
        let matching = loaded.matching_rows(predicate)?;
        let rows: Vec<(u64, u64)> = loaded
            .counts
            .iter()
            .map(|c| (c.physical_rows, c.live_rows))
            .collect();
        Self::assemble(table, &loaded.snapshot, predicate, &rows, &matching)
    }

    /// The report of `snapshot`'s files from their rows, `(physical, live)`, and matching rows,
    /// in the snapshot's order, however they were counted (here or on a cluster).
    pub fn assemble(
        table: &str,
        snapshot: &Snapshot,
        predicate: &str,
        rows: &[(u64, u64)],
        matching: &[u64],
    ) -> Result<OracleReport, OracleError> {
        let kept = kept_by_statistics(snapshot, predicate)?;
        let files: Vec<FileOutcome> = snapshot
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| FileOutcome {
                path: f.path.clone(),
                num_records: f.num_records(),
                deleted_rows: rows[i].0 - rows[i].1.min(rows[i].0),
                live_rows: rows[i].1,
                matching_rows: matching[i],
                kept_by_statistics: kept[i],
            })
            .collect();
        Ok(OracleReport {
            table: table.to_string(),
            version: snapshot.version,
            predicate: predicate.to_string(),
            live_files: files.len(),
            matching_files: files.iter().filter(|f| f.matching_rows > 0).count(),
            kept_by_statistics: files.iter().filter(|f| f.kept_by_statistics).count(),
            files,
            checked_on_driver: None,
        })
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Delta table: {} (version {})",
            self.table, self.version
        );
        let _ = writeln!(out, "Predicate:   {}", self.predicate);
        let _ = writeln!(
            out,
            "Live files: {}   matching: {}   kept by statistics: {}",
            self.live_files, self.matching_files, self.kept_by_statistics
        );
        if let Some(c) = &self.checked_on_driver {
            let _ = writeln!(
                out,
                "Checked on the driver: {} file(s) read and matched here by the {} evaluator agree with the cluster{}",
                c.files,
                c.evaluator,
                c.unsupported
                    .as_ref()
                    .map(|u| format!(" (the row-wise evaluator does not evaluate {u})"))
                    .unwrap_or_default()
            );
        }
        let mut files: Vec<&FileOutcome> = self.files.iter().collect();
        files.sort_by(|a, b| {
            b.matching_rows
                .cmp(&a.matching_rows)
                .then_with(|| a.path.cmp(&b.path))
        });
        for f in files {
            let _ = writeln!(
                out,
                "  {:>8} of {:>8} live rows match  [{}]  {}{}",
                f.matching_rows,
                f.live_rows,
                if f.kept_by_statistics {
                    "kept"
                } else {
                    "pruned"
                },
                f.path,
                if f.deleted_rows > 0 {
                    format!("  ({} deleted)", f.deleted_rows)
                } else {
                    String::new()
                }
            );
        }
        out
    }
}
