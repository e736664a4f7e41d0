//! The `--verify` funnel as the report carries it: the stages from the snapshot's files to
//! the rows that really match, and what each stage keeps in vain. `crate::verify` fills it
//! from the data; the log's stages come from the report alone ([`log_stages`]).

use serde::Serialize;

use super::Report;

/// The stages' names, in funnel order.
pub const SNAPSHOT_STAGE: &str = "snapshot";
pub const PARTITION_STAGE: &str = "partition_pruning";
pub const SKIPPING_STAGE: &str = "data_skipping";
pub const ROW_GROUP_STAGE: &str = "row_groups";
pub const MATCHING_STAGE: &str = "matching";

/// Paths named in a list of examples (the counts are always whole).
pub const EXAMPLES: usize = 10;

/// The funnel, stage by stage, with what each stage keeps in vain.
#[derive(Clone, Debug, Serialize)]
pub struct Funnel {
    pub stages: Vec<Stage>,
    /// The rules of the row-group stage.
    pub row_group_rules: &'static str,
    /// Files the log phases kept that hold no match.
    pub false_positive_files: Waste,
    /// Row groups the footer kept that hold no match.
    pub false_positive_row_groups: Waste,
    /// Matching files a log phase dropped: a soundness failure of this tool (empty when sound).
    pub dropped_matching_files: Vec<String>,
    /// Matching row groups the footer rules drop (`path#index`): a finding about those rules.
    pub dropped_matching_row_groups: Vec<String>,
    /// What would remove the false positives: the diagnoses' suggestions (also in `diagnoses`).
    pub remedies: Vec<String>,
}

/// One stage: what an engine still reads after it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Stage {
    pub name: &'static str,
    pub files: usize,
    /// Log stages: the files' sizes; row-group stages: the row groups' compressed column bytes.
    pub bytes: u64,
    /// Log stages: `numRecords` of the files that record it; row groups: their rows; matching:
    /// the matching live rows.
    pub rows: u64,
    /// Log stages of a table with deletion vectors: `rows` less the rows the vectors delete
    /// (the rows a reader reads); absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_rows: Option<u64>,
    /// Row groups still read (row-group and matching stages; null before them).
    pub row_groups: Option<usize>,
}

/// What a stage keeps that holds no match.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Waste {
    pub count: usize,
    pub bytes: u64,
    /// `bytes` in percent of what the stage keeps.
    pub bytes_pct: f64,
    /// Up to ten of them (paths; `path#row group` for row groups).
    pub examples: Vec<String>,
}

/// The stage name of a phase (the report names phases for people).
fn phase_stage(phase: &'static str) -> &'static str {
    match phase {
        crate::explain::PARTITION_PHASE => PARTITION_STAGE,
        crate::explain::DATA_SKIPPING_PHASE => SKIPPING_STAGE,
        other => other,
    }
}

/// The stages the log alone decides: the snapshot, then each phase's survivors.
pub fn log_stages(report: &Report) -> Vec<Stage> {
    let mut stages = vec![Stage {
        name: SNAPSHOT_STAGE,
        files: report.total_files,
        bytes: report.total_bytes,
        rows: report.total_records,
        live_rows: report.total_live_records,
        row_groups: None,
    }];
    stages.extend(report.phases.iter().map(|p| Stage {
        name: phase_stage(p.name),
        files: p.output_files,
        bytes: p.output_bytes,
        rows: p.output_records,
        live_rows: p.output_live_records,
        row_groups: None,
    }));
    stages
}

impl Funnel {
    /// The stage called `name`.
    pub fn stage(&self, name: &str) -> Option<&Stage> {
        self.stages.iter().find(|s| s.name == name)
    }
}

impl Waste {
    #[cfg_attr(not(feature = "verify"), allow(dead_code))]
    pub(crate) fn add(&mut self, bytes: u64, example: &str) {
        self.count += 1;
        self.bytes += bytes;
        if self.examples.len() < EXAMPLES {
            self.examples.push(example.to_string());
        }
    }
}
