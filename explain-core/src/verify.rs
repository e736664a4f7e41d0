//! `--verify`: the funnel from the snapshot's files to the rows that really match, checked
//! against the data. After the log's phases (partition pruning, data skipping) come two
//! stages the log cannot see:
//!
//! - **row groups**: of the files the log kept, the row groups an engine still reads after
//!   checking each file's Parquet footer statistics, under DataFusion's rules
//!   ([`oracle::row_groups::RULES`]); footers only, no data page is read;
//! - **matching**: the files and row groups that hold a live row the predicate makes TRUE,
//!   every live row of the table read by the oracle (its own log replay, deletion vectors
//!   applied, DataFusion's evaluation), file by file (`oracle::streamed`): a file per worker
//!   in memory.
//!
//! The oracle depends on neither explain-core nor the kernel; this module composes the two and
//! compares them. Each stage's false positives (kept, yet no match) are counted, and a matching
//! file a log phase dropped is a violation: `--verify` fails like a gate (exit 1). A matching
//! row group the footer rules drop is a finding about those rules, shown but not a failure of
//! this tool's pruning.

use std::collections::HashMap;

use oracle::log::Snapshot;
use oracle::streamed::FileVerdict;

use crate::explain::Explanation;
use crate::replay::ReplayedTable;
use crate::report::Report;
use crate::report::funnel::{
    EXAMPLES, Funnel, MATCHING_STAGE, ROW_GROUP_STAGE, Stage, Waste, log_stages,
};
use explain_compiler::error::ExplainError;

/// How to reach the table's data (the same snapshot as the explanation's).
#[derive(Clone, Debug, Default)]
pub struct VerifyRequest {
    pub storage: storage::StorageOptions,
    /// Files read at once by the oracle (at least 1).
    pub parallelism: usize,
}

/// Verifies `explanation` of `predicate` (already in `report`) against the table's rows: adds
/// the funnel to the report and returns the failure line when a matching file was dropped.
pub fn verify(
    table: &ReplayedTable,
    explanation: &Explanation,
    predicate: Option<&str>,
    request: &VerifyRequest,
    report: &mut Report,
    files_read: &(dyn Fn(usize) + Sync),
) -> Result<Option<String>, ExplainError> {
    let snapshot = Snapshot::open_with(table.location(), &request.storage, Some(table.version()))
        .map_err(|e| oracle_error(table, e))?;
    verify_snapshot(
        table,
        explanation,
        predicate,
        &snapshot,
        request.parallelism,
        report,
        files_read,
    )
}

/// An oracle error as this tool reports it: a predicate the oracle cannot read is bad input,
/// anything else a table error.
fn oracle_error(table: &ReplayedTable, e: oracle::OracleError) -> ExplainError {
    match e {
        oracle::OracleError::Predicate(reason) => ExplainError::Usage(format!(
            "--verify: the oracle cannot evaluate the predicate: {reason}"
        )),
        other => ExplainError::Table {
            table: table.location().to_string(),
            reason: format!("--verify: {other}"),
        },
    }
}

/// [`verify`] against the oracle's replay of the same version (`snapshot`): its files read
/// `parallelism` at a time, one file per worker in memory, whatever the size of the table;
/// `files_read` hears how many so far.
pub fn verify_snapshot(
    table: &ReplayedTable,
    explanation: &Explanation,
    predicate: Option<&str>,
    snapshot: &Snapshot,
    parallelism: usize,
    report: &mut Report,
    files_read: &(dyn Fn(usize) + Sync),
) -> Result<Option<String>, ExplainError> {
    let table_error = |e| oracle_error(table, e);
    if snapshot.version != table.version() {
        return Err(ExplainError::Table {
            table: table.location().to_string(),
            reason: format!(
                "--verify: the oracle read version {}, the explanation version {}",
                snapshot.version,
                table.version()
            ),
        });
    }
    let oracle_files = &snapshot.files;
    let by_path: HashMap<&str, usize> = oracle_files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let index: Vec<usize> = table
        .paths()
        .map(|path| {
            by_path
                .get(path)
                .copied()
                .ok_or_else(|| ExplainError::Table {
                    table: table.location().to_string(),
                    reason: format!("--verify: the oracle's replay does not list `{path}`"),
                })
        })
        .collect::<Result<_, _>>()?;
    if index.len() != oracle_files.len() {
        return Err(ExplainError::Table {
            table: table.location().to_string(),
            reason: format!(
                "--verify: the oracle's replay lists {} live files, the kernel's {}",
                oracle_files.len(),
                index.len()
            ),
        });
    }
    // One read of every file: its matches, and its footer's verdicts (the baseline matches
    // every row).
    let verdicts = oracle::streamed::matching_row_groups(
        snapshot,
        predicate.unwrap_or("TRUE"),
        &oracle::planning::plan(parallelism),
        files_read,
    )
    .map_err(table_error)?;
    let funnel = Funnel::build(table, explanation, report, &index, &verdicts);
    // In default mode a guard may announce that an engine can find a match in a dropped file
    // (NaN, for one); such drops are announced, not hidden. Any other is a failure.
    let announced = explanation
        .hazards
        .iter()
        .any(|h| h.effect == explain_compiler::guards::Effect::Announced);
    let dropped = &funnel.dropped_matching_files;
    let failure = (!dropped.is_empty()).then(|| {
        format!(
            "verify failed: {} dropped file(s) hold matching rows{}: {}",
            dropped.len(),
            if announced {
                " (announced by a hazard; --strict keeps them)"
            } else {
                ""
            },
            dropped
                .iter()
                .take(EXAMPLES)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    report.verify = Some(funnel);
    Ok(failure)
}

impl Funnel {
    /// The funnel from the report's log stages and the oracle's verdict on each file (per
    /// oracle file; `index` maps an explained file to it).
    fn build(
        table: &ReplayedTable,
        explanation: &Explanation,
        report: &Report,
        index: &[usize],
        verdicts: &[FileVerdict],
    ) -> Funnel {
        let mut stages = log_stages(report);
        let mut read = Stage {
            name: ROW_GROUP_STAGE,
            files: 0,
            bytes: 0,
            rows: 0,
            live_rows: None,
            row_groups: Some(0),
        };
        let mut matched = Stage {
            name: MATCHING_STAGE,
            files: 0,
            bytes: 0,
            rows: 0,
            live_rows: None,
            row_groups: Some(0),
        };
        let mut false_files = Waste::default();
        let mut false_groups = Waste::default();
        let mut dropped_files = Vec::new();
        let mut dropped_groups = Vec::new();
        let mut kept_bytes = 0u64;
        for (file, &o) in index.iter().enumerate() {
            let path = table.path(file);
            let matches = &verdicts[o].matches;
            let file_groups = &verdicts[o].row_groups;
            let bytes_of = |g: u32| file_groups.get(g as usize).map_or(0, |rg| rg.bytes);
            if !matches.is_empty() {
                matched.files += 1;
                *matched.row_groups.get_or_insert(0) += matches.len();
                matched.rows += matches.iter().map(|(_, n)| n).sum::<u64>();
                matched.bytes += matches.iter().map(|(g, _)| bytes_of(*g)).sum::<u64>();
                if !explanation.kept[file] {
                    dropped_files.push(path.to_string());
                }
            }
            if !explanation.kept[file] {
                continue;
            }
            let size = table.files()[file].volume().0;
            kept_bytes += size;
            if matches.is_empty() {
                false_files.add(size, path);
            }
            let mut any = false;
            for (g, rg) in file_groups.iter().enumerate() {
                let g32 = u32::try_from(g).unwrap_or(u32::MAX);
                let holds = matches.binary_search_by_key(&g32, |(i, _)| *i).is_ok();
                if rg.kept {
                    any = true;
                    *read.row_groups.get_or_insert(0) += 1;
                    read.rows += rg.rows;
                    read.bytes += rg.bytes;
                    if !holds {
                        false_groups.add(rg.bytes, &format!("{path}#{g}"));
                    }
                } else if holds {
                    dropped_groups.push(format!("{path}#{g}"));
                }
            }
            read.files += usize::from(any);
        }
        false_files.bytes_pct = crate::report::pct_of(false_files.bytes, kept_bytes);
        false_groups.bytes_pct = crate::report::pct_of(false_groups.bytes, read.bytes);
        stages.push(read);
        stages.push(matched);
        Funnel {
            stages,
            row_group_rules: oracle::row_groups::RULES,
            false_positive_files: false_files,
            false_positive_row_groups: false_groups,
            dropped_matching_files: dropped_files,
            dropped_matching_row_groups: dropped_groups,
            remedies: report
                .diagnoses
                .iter()
                .flatten()
                .map(|d| format!("{}: {}", d.code, d.suggestion))
                .collect(),
        }
    }
}
