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
    /// With `--row-groups`: the row groups holding matching live rows, in row-group order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matching_row_groups: Option<Vec<RowGroupMatch>>,
}

/// A row group of a file (its index in the Parquet footer) and its matching live rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RowGroupMatch {
    pub row_group: u32,
    pub matching_rows: u64,
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
                matching_row_groups: None,
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

    /// The report of `snapshot`'s files with their matching rows per row group: the files
    /// read one by one ([`crate::streamed`]), each row with the row group it came from.
    pub fn with_row_groups(
        table: &str,
        snapshot: &Snapshot,
        predicate: &str,
        plan: &crate::planning::ScanPlan,
    ) -> Result<OracleReport, OracleError> {
        let verdicts = crate::streamed::matching_row_groups(snapshot, predicate, plan, &|_| {})?;
        let rows: Vec<(u64, u64)> = verdicts
            .iter()
            .map(|v| (v.physical_rows, v.live_rows))
            .collect();
        let groups: Vec<Vec<(u32, u64)>> = verdicts.into_iter().map(|v| v.matches).collect();
        Self::assemble_with_row_groups(table, snapshot, predicate, &rows, &groups)
    }

    /// [`assemble`](Self::assemble) from each file's matching rows per row group,
    /// `(index, rows)`, and with them in the report.
    pub fn assemble_with_row_groups(
        table: &str,
        snapshot: &Snapshot,
        predicate: &str,
        rows: &[(u64, u64)],
        groups: &[Vec<(u32, u64)>],
    ) -> Result<OracleReport, OracleError> {
        let matching: Vec<u64> = groups
            .iter()
            .map(|g| g.iter().map(|(_, n)| n).sum())
            .collect();
        let mut report = Self::assemble(table, snapshot, predicate, rows, &matching)?;
        for (file, g) in report.files.iter_mut().zip(groups) {
            file.matching_row_groups = Some(
                g.iter()
                    .map(|&(row_group, matching_rows)| RowGroupMatch {
                        row_group,
                        matching_rows,
                    })
                    .collect(),
            );
        }
        Ok(report)
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
            if let Some(groups) = f.matching_row_groups.as_ref().filter(|g| !g.is_empty()) {
                let listed: Vec<String> = groups
                    .iter()
                    .map(|g| format!("{}: {}", g.row_group, g.matching_rows))
                    .collect();
                let _ = writeln!(out, "           by row group  {}", listed.join(", "));
            }
        }
        out
    }
}
