//! The report users see: a JSON document (a superset of the peer delta-explain 0.6 report,
//! see docs/report.schema.json) and the text page rendered from the same document, so the two
//! can never disagree.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::accepted::AcceptedValues;
use crate::explain::Explanation;
use crate::features::TableFeatures;
use crate::file_stats::{FileStats, StatsNeeds};
use crate::replay::{LiveFile, ReplayedTable};
use crate::report::assertions::{Assertion, Outcome};
use crate::report::diagnoses::Diagnosis;
use crate::report::layers::Layers;
use explain_compiler::classify::{Bucket, Confidence, Note};
use explain_compiler::nnf::Leaf;

pub mod assertions;
pub mod coverage;
pub mod diagnoses;
pub mod funnel;
pub mod layers;
pub mod ranges;

/// The version of the JSON document's shape: this project's own series (`dx-` and semver),
/// never a version of the peer delta-explain report it is a superset of.
pub const SCHEMA_VERSION: &str = "dx-1.1.0";

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub schema_version: &'static str,
    pub tool_version: &'static str,
    pub elapsed_ms: u64,
    pub table: String,
    pub version: u64,
    pub predicate: Option<String>,
    /// The time functions of the predicate bound before planning (`current_date()` and the
    /// others, [`explain_compiler::bind`]), each with its value; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bindings: Vec<explain_compiler::bind::Bound>,
    /// The normalized predicate (negations pushed down, ranges, factoring).
    pub normalized_predicate: Option<String>,
    pub total_files: usize,
    pub final_files: usize,
    pub total_pruning_pct: f64,
    /// Bytes (`size` of the add actions) in the snapshot and in the final survivor set.
    pub total_bytes: u64,
    pub final_bytes: u64,
    /// Records (`numRecords`) in the snapshot and in the final survivor set, over the files
    /// whose statistics record it (`files_without_record_count` do not).
    pub total_records: u64,
    pub final_records: u64,
    /// The same records less the rows deletion vectors delete (`numRecords` minus each
    /// vector's `cardinality`): the rows a reader reads; only where a live file has a
    /// deletion vector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_live_records: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_live_records: Option<u64>,
    pub files_without_record_count: usize,
    pub analysis: Option<Analysis>,
    pub table_features: TableFeatures,
    pub stats: StatsCoverage,
    pub phases: Vec<PhaseReport>,
    pub assertions: Vec<Assertion>,
    /// `pass` or `fail` when gates ran, null otherwise.
    pub result: Option<Outcome>,
    /// With `--strict`: fragments NaN rows could satisfy beyond their bounds were left out.
    pub strict: bool,
    /// Results that are probably mistakes (a partition literal no file has), also printed on
    /// stderr; absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// With `--verbose`: per-file outcomes, capped by `--limit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileReport>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_truncated: Option<bool>,
    /// With `--explain-why`: why pruning is weak, and what to do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnoses: Option<Vec<Diagnosis>>,
    /// The same diagnoses under the peer report's name (`explain`), for its consumers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Vec<Diagnosis>>,
    /// With `--layers`: the five forms of the predicate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layers: Option<Layers>,
    /// With `--verify`: the funnel to the matching rows, checked against the data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<funnel::Funnel>,
    /// With `--ranges COLUMN` (and on the HTML page, every referenced column): each file's
    /// `[min, max]` against the predicate's interval, and the clustering figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranges: Option<Vec<crate::report::ranges::ColumnRanges>>,
}

/// One live file's outcome, from the same replay that produced the counts.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    pub path: String,
    pub size_bytes: i64,
    /// Raw partition values from the log (physical keys under column mapping).
    pub partition_values: BTreeMap<String, Option<String>>,
    /// Rows in the file as recorded (soft-deleted rows included under deletion vectors).
    pub num_records: Option<i64>,
    pub has_stats: bool,
    /// Raw `minValues` / `maxValues` / `nullCount` of the columns the predicate references
    /// (all recorded columns without a predicate), keyed by column name.
    pub min_values: BTreeMap<String, serde_json::Value>,
    pub max_values: BTreeMap<String, serde_json::Value>,
    pub null_count: BTreeMap<String, serde_json::Value>,
    pub has_deletion_vector: bool,
    pub kept: bool,
    pub pruned_by: Option<&'static str>,
}

/// The predicate's classification. The four buckets are the peer report's strings (the
/// bucket's fragments joined by `AND`, null when empty); `fragments` lists them one by one.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    pub partition_safe: Option<String>,
    pub partition_exact: Option<String>,
    pub stats_safe: Option<String>,
    pub unsplittable: Option<String>,
    /// Per column and requirement of the statistics-safe fragments, the files data skipping
    /// sees that record what it needs (`coverage.rs`); null where not computed (a run of many
    /// predicates without `--explain-why`).
    pub stats_coverage: Option<Vec<crate::report::coverage::ColumnCoverage>>,
    pub fragments: Fragments,
    pub confidence: Confidence,
    pub notes: Vec<Note>,
    /// The guards that fired (docs/semantics.md, *Hazards and guards*): where an engine could
    /// find a match in a dropped file (announced, default mode), comparisons `--strict` left
    /// out, literals widened so that no recorded bound drops a match.
    pub hazards: Vec<HazardReport>,
    /// Per partition column, the values present in the snapshot the predicate can accept
    /// (null: the predicate does not constrain the column; `[]`: no present value).
    pub partition_values_accepted: Arc<AcceptedValues>,
}

/// The fragments of each bucket, one by one.
#[derive(Clone, Debug, Serialize)]
pub struct Fragments {
    pub partition_safe: Vec<String>,
    pub partition_exact: Vec<String>,
    pub stats_safe: Vec<String>,
    pub unsplittable: Vec<String>,
}

impl Fragments {
    /// A bucket as the peer report writes it: its fragments joined by `AND`, null when empty.
    fn joined(fragments: &[String]) -> Option<String> {
        (!fragments.is_empty()).then(|| fragments.join(" AND "))
    }
}

/// One guard that fired.
#[derive(Clone, Debug, Serialize)]
pub struct HazardReport {
    pub code: &'static str,
    /// `announced`, `excluded` or `widened`.
    pub effect: &'static str,
    /// The leaves it fired on, as written.
    pub fragments: Vec<String>,
    pub message: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct StatsCoverage {
    /// `exact` (every file has stats), `partial`, or `absent` (none has).
    pub mode: &'static str,
    pub files_with_stats: usize,
    pub total_files: usize,
    /// `files_with_stats` in percent of `total_files` (100 for an empty table).
    pub pct: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct PhaseReport {
    pub name: &'static str,
    pub input_files: usize,
    pub output_files: usize,
    pub pruned_files: usize,
    pub pruning_pct: f64,
    pub input_bytes: u64,
    pub output_bytes: u64,
    pub pruned_bytes: u64,
    /// Records of the files in and out, where their statistics record a count.
    pub input_records: u64,
    pub output_records: u64,
    /// The same less the rows deletion vectors delete, where a live file has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_live_records: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_live_records: Option<u64>,
    pub confidence: Confidence,
    /// The fragment credited to this phase, as honoured.
    pub predicate: String,
    /// Fragments stripped from it because they keep all files.
    pub stripped: Vec<String>,
    /// Fragments left out under `--strict` (NaN rows could satisfy them beyond the bounds).
    pub nan_excluded: Vec<String>,
    /// The kernel scan predicate behind the phase.
    pub kernel_predicate: Option<String>,
}

fn pct(removed: usize, of: usize) -> f64 {
    pct_of(removed as u64, of as u64)
}

/// `part` in percent of `of`, to two decimals (0 when `of` is 0).
pub(crate) fn pct_of(part: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        (part as f64 * 10000.0 / of as f64).round() / 100.0
    }
}

/// Bytes and records of the files a survivor set keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Volume {
    pub bytes: u64,
    pub records: u64,
    /// Of `records`, the rows deletion vectors delete.
    pub deleted: u64,
}

impl Volume {
    /// One file's bytes and records (none counted where its statistics give no count).
    fn of(file: &LiveFile) -> Volume {
        let (bytes, records) = file.volume();
        Volume {
            bytes,
            records: records.unwrap_or(0),
            // Counted only beside a count: a file whose statistics give none adds neither.
            deleted: records.map_or(0, |r| file.deleted_records.min(r)),
        }
    }

    /// The records less the rows deletion vectors delete.
    pub fn live_records(self) -> u64 {
        self.records.saturating_sub(self.deleted)
    }

    fn plus(self, other: Volume) -> Volume {
        Volume {
            bytes: self.bytes + other.bytes,
            records: self.records + other.records,
            deleted: self.deleted + other.deleted,
        }
    }
}

/// What a report counts over the live files: the volume of each survivor set and the
/// statistics coverage. Read off the cached rows of a replayed table, or summed window by
/// window when the explanation streams (`stream.rs`); the two agree (tested).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FileTallies {
    pub files: usize,
    /// Files in the final survivor set.
    pub kept_files: usize,
    pub all: Volume,
    pub after_partition: Volume,
    pub kept: Volume,
    /// Files whose add action carries statistics.
    pub with_stats: usize,
    /// Files whose statistics give no record count.
    pub without_record_count: usize,
    /// Files with a deletion vector.
    pub with_deletion_vectors: usize,
}

impl FileTallies {
    /// The tallies of `explanation` over the files of `table`.
    pub fn of(table: &ReplayedTable, explanation: &Explanation) -> FileTallies {
        // One pass over the files: this runs for every window of every streamed predicate.
        let mut tallies = FileTallies {
            files: table.files().len(),
            ..FileTallies::default()
        };
        for (i, file) in table.files().iter().enumerate() {
            let volume = Volume::of(file);
            tallies.all = tallies.all.plus(volume);
            if explanation.after_partition[i] {
                tallies.after_partition = tallies.after_partition.plus(volume);
            }
            if explanation.kept[i] {
                tallies.kept = tallies.kept.plus(volume);
                tallies.kept_files += 1;
            }
            tallies.with_stats += usize::from(file.has_stats);
            tallies.without_record_count += usize::from(file.num_records.is_none());
            tallies.with_deletion_vectors += usize::from(file.has_deletion_vector);
        }
        tallies
    }

    /// The tallies of two disjoint sets of files together.
    pub fn plus(self, other: FileTallies) -> FileTallies {
        FileTallies {
            files: self.files + other.files,
            kept_files: self.kept_files + other.kept_files,
            all: self.all.plus(other.all),
            after_partition: self.after_partition.plus(other.after_partition),
            kept: self.kept.plus(other.kept),
            with_stats: self.with_stats + other.with_stats,
            without_record_count: self.without_record_count + other.without_record_count,
            with_deletion_vectors: self.with_deletion_vectors + other.with_deletion_vectors,
        }
    }
}

/// The table a report is about, as far as the report names it.
pub struct TableHeader<'a> {
    pub location: &'a str,
    pub version: u64,
    pub features: crate::features::TableFeatures,
}

impl Analysis {
    /// The analysis of `predicate`: its fragments per bucket, the explanation's confidence,
    /// notes and hazards.
    fn of(p: &crate::explain::CompiledPredicate, explanation: &Explanation) -> Analysis {
        let bucket = |b: Bucket| {
            p.classification
                .in_bucket(b)
                .iter()
                .map(|n| n.to_string())
                .collect()
        };
        let fragments = Fragments {
            partition_safe: bucket(Bucket::PartitionSafe),
            partition_exact: bucket(Bucket::PartitionExact),
            stats_safe: bucket(Bucket::StatsSafe),
            unsplittable: bucket(Bucket::Unsplittable),
        };
        Analysis {
            partition_safe: Fragments::joined(&fragments.partition_safe),
            partition_exact: Fragments::joined(&fragments.partition_exact),
            stats_safe: Fragments::joined(&fragments.stats_safe),
            unsplittable: Fragments::joined(&fragments.unsplittable),
            stats_coverage: None,
            fragments,
            confidence: explanation.confidence,
            notes: explanation.notes.clone(),
            hazards: explanation
                .hazards
                .iter()
                .map(|h| HazardReport {
                    code: h.code(),
                    effect: h.effect.label(),
                    fragments: h.leaves.iter().map(Leaf::to_string).collect(),
                    message: h.message(),
                })
                .collect(),
            partition_values_accepted: Arc::clone(&explanation.accepted),
        }
    }
}

impl PhaseReport {
    /// Every phase of `explanation` with its volumes: a phase's input is the previous phase's
    /// output (the whole table for the first).
    fn of_phases(
        explanation: &Explanation,
        all: Volume,
        after_partition: Volume,
        kept: Volume,
        deletion_vectors: bool,
    ) -> Vec<PhaseReport> {
        // A phase's survivors: partition pruning keeps `after_partition`, data skipping (the
        // last phase) the final set; its input is the previous phase's output.
        let phase_output = |name: &str| {
            if name == crate::explain::PARTITION_PHASE {
                after_partition
            } else {
                kept
            }
        };
        explanation
            .phases
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let input = match k {
                    0 => all,
                    _ => phase_output(explanation.phases[k - 1].name),
                };
                let output = phase_output(p.name);
                (p, input, output)
            })
            .map(|(p, input, output)| PhaseReport {
                name: p.name,
                input_files: p.input_files,
                output_files: p.output_files,
                pruned_files: p.input_files - p.output_files,
                pruning_pct: pct(p.input_files - p.output_files, p.input_files),
                input_bytes: input.bytes,
                output_bytes: output.bytes,
                pruned_bytes: input.bytes.saturating_sub(output.bytes),
                input_records: input.records,
                output_records: output.records,
                input_live_records: deletion_vectors.then(|| input.live_records()),
                output_live_records: deletion_vectors.then(|| output.live_records()),
                confidence: p.confidence,
                predicate: p.predicate.to_string(),
                stripped: p.stripped.iter().map(Leaf::to_string).collect(),
                nan_excluded: p.nan_excluded.iter().map(Leaf::to_string).collect(),
                kernel_predicate: p.kernel_predicate.clone(),
            })
            .collect()
    }
}

impl Report {
    pub fn build(table: &ReplayedTable, explanation: &Explanation, elapsed_ms: u64) -> Report {
        Self::assemble(
            TableHeader {
                location: table.location(),
                version: table.version(),
                features: crate::features::TableFeatures::read(table),
            },
            explanation,
            &FileTallies::of(table, explanation),
            elapsed_ms,
        )
    }

    /// The report of `explanation` from what it needs of the table: its header and the
    /// tallies over its files (no rows).
    pub fn assemble(
        table: TableHeader<'_>,
        explanation: &Explanation,
        tallies: &FileTallies,
        elapsed_ms: u64,
    ) -> Report {
        let FileTallies {
            files,
            kept_files,
            all,
            after_partition,
            kept,
            with_stats,
            without_record_count,
            with_deletion_vectors,
        } = *tallies;
        let deletion_vectors = with_deletion_vectors > 0;
        // Counted over the files, as the volumes are: an explanation streamed for many
        // predicates keeps no per-file sets (`Explanation::without_files`).
        let (total, final_files) = (files, kept_files);
        let analysis = explanation
            .predicate
            .as_ref()
            .map(|p| Analysis::of(p, explanation));
        let mode = match with_stats {
            0 if files > 0 => "absent",
            n if n == files => "exact",
            _ => "partial",
        };
        Report {
            schema_version: SCHEMA_VERSION,
            tool_version: env!("CARGO_PKG_VERSION"),
            elapsed_ms,
            table: table.location.to_string(),
            version: table.version,
            predicate: explanation.predicate.as_ref().map(|p| p.text.clone()),
            bindings: Vec::new(),
            normalized_predicate: explanation
                .predicate
                .as_ref()
                .map(|p| p.normalized.to_string()),
            total_files: total,
            final_files,
            total_pruning_pct: pct(total - final_files, total),
            total_bytes: all.bytes,
            final_bytes: kept.bytes,
            total_records: all.records,
            final_records: kept.records,
            total_live_records: deletion_vectors.then(|| all.live_records()),
            final_live_records: deletion_vectors.then(|| kept.live_records()),
            files_without_record_count: without_record_count,
            analysis,
            table_features: table.features,
            stats: StatsCoverage {
                mode,
                files_with_stats: with_stats,
                total_files: files,
                pct: if files == 0 {
                    100.0
                } else {
                    pct(with_stats, files)
                },
            },
            phases: PhaseReport::of_phases(
                explanation,
                all,
                after_partition,
                kept,
                deletion_vectors,
            ),
            assertions: Vec::new(),
            result: None,
            strict: false,
            warnings: Vec::new(),
            files: None,
            files_truncated: None,
            diagnoses: None,
            explain: None,
            layers: None,
            verify: None,
            ranges: None,
        }
    }

    /// Records the gates that ran and their aggregate result.
    pub fn with_assertions(mut self, assertions: Vec<Assertion>) -> Self {
        self.set_assertions(assertions);
        self
    }

    /// Records the diagnoses of `--explain-why` (under both of the report's names for them).
    pub fn set_diagnoses(&mut self, diagnoses: Vec<crate::report::diagnoses::Diagnosis>) {
        self.explain = Some(diagnoses.clone());
        self.diagnoses = Some(diagnoses);
    }

    /// Records the gates' assertions and their overall result.
    pub fn set_assertions(&mut self, assertions: Vec<Assertion>) {
        if !assertions.is_empty() {
            let failed = assertions.iter().any(|a| a.outcome() == Outcome::Fail);
            self.result = Some(if failed { Outcome::Fail } else { Outcome::Pass });
        }
        self.assertions = assertions;
    }

    /// Adds the per-file view, at most `limit` files (kept files first, then by path).
    pub fn with_files(
        mut self,
        table: &ReplayedTable,
        explanation: &Explanation,
        limit: Option<usize>,
    ) -> Self {
        let files = first_files(table, explanation, limit);
        self.set_files(files, table.files().len());
        self
    }

    /// Sets the per-file view: `files` in the view's order, of `total` files in the table
    /// (a streamed explanation gathers them window by window, `stream.rs`).
    pub fn set_files(&mut self, files: Vec<FileReport>, total: usize) {
        self.files_truncated = Some(files.len() < total);
        self.files = Some(files);
    }

    pub fn to_json(&self) -> String {
        // Serializing plain data structures cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

/// The first `limit` entries of the per-file view of `table` (all when `None`): kept files
/// first, then by path. Only those entries read their statistics. The first entries of a
/// whole table are the first among the first entries of its windows, which is how a streamed
/// explanation gathers the view ([`merge_first_files`]).
pub fn first_files(
    table: &ReplayedTable,
    explanation: &Explanation,
    limit: Option<usize>,
) -> Vec<FileReport> {
    let referenced: Vec<(String, Vec<String>)> = match &explanation.predicate {
        Some(p) => table
            .columns()
            .split_columns(&p.normalized)
            .1
            .into_iter()
            .map(|i| (i.column.dotted(), i.stats_path))
            .collect(),
        None => Vec::new(),
    };
    let needs = if referenced.is_empty() {
        StatsNeeds::all()
    } else {
        StatsNeeds::columns(referenced.iter().map(|(_, path)| path.as_slice()))
    };
    // The paths read once, not looked up in the cached rows at every comparison.
    let paths: Vec<&str> = table.paths().collect();
    let mut order: Vec<usize> = (0..paths.len()).collect();
    order.sort_by(|a, b| {
        explanation.kept[*b]
            .cmp(&explanation.kept[*a])
            .then_with(|| paths[*a].cmp(paths[*b]))
    });
    let limit = limit.unwrap_or(usize::MAX);
    order
        .iter()
        .take(limit)
        .map(|&i| {
            let file = &table.files()[i];
            let stats = FileStats::parse_only(table.stats_json(i), &needs);
            let pick = |root: Option<&serde_json::Value>| -> BTreeMap<String, serde_json::Value> {
                let Some(root) = root else {
                    return BTreeMap::new();
                };
                if referenced.is_empty() {
                    return root
                        .as_object()
                        .map(|o| o.clone().into_iter().collect())
                        .unwrap_or_default();
                }
                referenced
                    .iter()
                    .filter_map(|(name, path)| {
                        path.iter()
                            .try_fold(root, |v, p| v.get(p))
                            .map(|v| (name.clone(), v.clone()))
                    })
                    .collect()
            };
            FileReport {
                path: paths[i].to_string(),
                size_bytes: file.size_bytes,
                partition_values: table
                    .partition_of(i)
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
                    .collect(),
                num_records: stats.as_ref().and_then(|s| s.num_records),
                has_stats: stats.is_some(),
                min_values: pick(stats.as_ref().map(|s| &s.min_values)),
                max_values: pick(stats.as_ref().map(|s| &s.max_values)),
                null_count: pick(stats.as_ref().map(|s| &s.null_count)),
                has_deletion_vector: file.has_deletion_vector,
                kept: explanation.kept[i],
                pruned_by: explanation.pruned_by(i),
            }
        })
        .collect()
}

/// The per-file view's order: kept files first, then by path.
fn view_order(a: &FileReport, b: &FileReport) -> std::cmp::Ordering {
    b.kept.cmp(&a.kept).then_with(|| a.path.cmp(&b.path))
}

/// `so_far` and `more` (each in the view's order) as one view, cut to `limit` entries.
pub fn merge_first_files(
    so_far: Vec<FileReport>,
    more: Vec<FileReport>,
    limit: Option<usize>,
) -> Vec<FileReport> {
    let mut files = so_far;
    files.extend(more);
    files.sort_by(view_order);
    files.truncate(limit.unwrap_or(usize::MAX));
    files
}
