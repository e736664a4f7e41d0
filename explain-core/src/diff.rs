//! One predicate explained at two versions of a table (or on two tables) side by side: what an
//! OPTIMIZE, a clustering run or a change of statistics settings did to skipping. Each side is
//! an explanation as `explain_one` gives it; the diff is their counts per phase and the change
//! of the share pruned, with the verdict a CI gate reads ("skipping must not get worse").

use serde::Serialize;

use crate::explain_request::ExplainRequest;
use crate::report::Report;
use crate::request::{Progress, explain_one};
use explain_compiler::error::ExplainError;

/// The version of the diff's JSON.
pub const DIFF_SCHEMA_VERSION: u32 = 1;

/// What one side keeps, overall or after a phase.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Counts {
    pub files: usize,
    pub bytes: u64,
    pub records: u64,
}

/// One side of the diff: its table and version, the snapshot and what the predicate keeps.
#[derive(Clone, Debug, Serialize)]
pub struct Side {
    pub table: String,
    pub version: u64,
    pub snapshot: Counts,
    pub kept: Counts,
    /// The share of the snapshot's files and bytes pruned, in percent.
    pub pruned_files_pct: f64,
    pub pruned_bytes_pct: f64,
    pub confidence: String,
}

/// A phase on each side (absent on a side whose explanation has no such phase).
#[derive(Clone, Debug, Serialize)]
pub struct PhaseChange {
    pub phase: &'static str,
    pub from: Option<Counts>,
    pub to: Option<Counts>,
}

/// The predicate at two versions.
#[derive(Clone, Debug, Serialize)]
pub struct Diff {
    pub schema_version: u32,
    pub tool_version: &'static str,
    pub predicate: Option<String>,
    pub from: Side,
    pub to: Side,
    pub phases: Vec<PhaseChange>,
    /// `to` less `from`, in points of percent: negative where skipping got worse.
    pub pruned_files_pct_change: f64,
    pub pruned_bytes_pct_change: f64,
    /// The share of bytes pruned fell by more than the tolerance asked.
    pub worse: bool,
    /// The tolerance, in points of percent of the bytes pruned.
    pub tolerance_pct: f64,
}

/// Explains `from` and `to` (each a full request: table, version, predicate, options) and
/// compares them; `tolerance_pct` is how many points of the bytes pruned may be lost before
/// the diff says `worse`.
pub fn diff(
    from: &ExplainRequest,
    to: &ExplainRequest,
    tolerance_pct: f64,
) -> Result<Diff, ExplainError> {
    if !(0.0..=100.0).contains(&tolerance_pct) {
        return Err(ExplainError::Usage(format!(
            "the tolerance must be a percentage from 0 to 100, not {tolerance_pct}"
        )));
    }
    let explain = |request: &ExplainRequest| {
        Progress::silent(|progress| explain_one(request, progress)).map(|a| a.report)
    };
    let (a, b) = (explain(from)?, explain(to)?);
    Ok(compare(&a, &b, tolerance_pct))
}

/// The diff of two reports of one predicate.
pub fn compare(a: &Report, b: &Report, tolerance_pct: f64) -> Diff {
    let (from, to) = (side(a), side(b));
    let mut phases: Vec<PhaseChange> = Vec::new();
    for (report, is_from) in [(a, true), (b, false)] {
        for p in &report.phases {
            let counts = Counts {
                files: p.output_files,
                bytes: p.output_bytes,
                records: p.output_records,
            };
            let at = match phases.iter().position(|c| c.phase == p.name) {
                Some(at) => at,
                None => {
                    phases.push(PhaseChange {
                        phase: p.name,
                        from: None,
                        to: None,
                    });
                    phases.len() - 1
                }
            };
            if is_from {
                phases[at].from = Some(counts);
            } else {
                phases[at].to = Some(counts);
            }
        }
    }
    let bytes_change = to.pruned_bytes_pct - from.pruned_bytes_pct;
    Diff {
        schema_version: DIFF_SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        predicate: b.predicate.clone(),
        pruned_files_pct_change: to.pruned_files_pct - from.pruned_files_pct,
        pruned_bytes_pct_change: bytes_change,
        worse: bytes_change < -tolerance_pct,
        tolerance_pct,
        from,
        to,
        phases,
    }
}

fn side(r: &Report) -> Side {
    let pct = |kept: u64, of: u64| {
        if of == 0 {
            0.0
        } else {
            100.0 * (of - kept.min(of)) as f64 / of as f64
        }
    };
    Side {
        table: r.table.clone(),
        version: r.version,
        snapshot: Counts {
            files: r.total_files,
            bytes: r.total_bytes,
            records: r.total_records,
        },
        kept: Counts {
            files: r.final_files,
            bytes: r.final_bytes,
            records: r.final_records,
        },
        pruned_files_pct: pct(r.final_files as u64, r.total_files as u64),
        pruned_bytes_pct: pct(r.final_bytes, r.total_bytes),
        confidence: r
            .analysis
            .as_ref()
            .map_or("exact", |a| a.confidence.label())
            .to_string(),
    }
}
