//! The pipeline: SQL -> owned AST -> normalized AST -> classification -> kernel predicates per
//! phase -> three nested survivor sets (baseline, partition-only, full), all from one replay.

use std::sync::Arc;

use crate::accepted::{AcceptedValues, accepted_partition_values};
use crate::file_set::FileSet;
use crate::replay::{PerPartition, ReplayedTable};
use delta_kernel::PredicateRef;
use explain_compiler::ast::Predicate;
use explain_compiler::classify::{
    Bucket, Classification, Confidence, Note, PARTITION_EVAL_GAP, PARTITION_VALUE_DISTRUSTED,
    classify,
};
use explain_compiler::error::ExplainError;
use explain_compiler::guards::{Effect, Guard, Guarded, Hazard, HazardSet, guard, guard_full_scan};
use explain_compiler::lower::{check_literals, kernel_can_evaluate, to_kernel};
use explain_compiler::nnf::{Leaf, Nnf};
use explain_compiler::normalize::normalize;
use explain_compiler::partition_eval::PreparedPartitionPredicate;
use explain_compiler::retype::retype;
use explain_compiler::schema::TableColumns;
use explain_compiler::sql::parse_predicate;

pub const PARTITION_PHASE: &str = "Partition pruning";
pub const DATA_SKIPPING_PHASE: &str = "Data skipping (min/max statistics)";

/// A predicate compiled against one table's columns.
#[derive(Clone, Debug)]
pub struct CompiledPredicate {
    pub text: String,
    pub parsed: Predicate,
    pub normalized: Nnf,
    pub classification: Classification,
}

impl CompiledPredicate {
    pub fn compile(text: &str, table: &ReplayedTable) -> Result<Self, ExplainError> {
        Self::compile_against(text, table.columns())
    }

    /// Compiles against a schema alone, without a replay (the benchmarks' plain kernel scans).
    pub fn compile_against(text: &str, columns: &TableColumns) -> Result<Self, ExplainError> {
        let parsed = parse_predicate(text)?;
        let (normalized, retyped) = retype(&normalize(&parsed, columns)?, columns);
        check_literals(&normalized, columns)?;
        let mut classification = classify(&normalized, columns);
        classification.notes.extend(retyped);
        classification
            .notes
            .extend(explain_compiler::string_readings::readings_note(&parsed));
        classification
            .notes
            .extend(explain_compiler::string_lists::notes(&parsed, columns));
        Ok(Self {
            text: text.to_string(),
            parsed,
            normalized,
            classification,
        })
    }
}

/// How to explain.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExplainOptions {
    /// Leave out of the scan every comparison whose min/max pruning a NaN row could defeat
    /// under some engine's semantics, so the survivor set is sound under Spark, DuckDB and
    /// DataFusion at once (see guards.rs).
    pub strict: bool,
}

/// One pruning phase and what it did.
#[derive(Clone, Debug)]
pub struct Phase {
    pub name: &'static str,
    /// The fragment credited to this phase, as honoured (unsupported leaves weakened to TRUE).
    pub predicate: Nnf,
    /// Leaves that were stripped from the credited fragment (each keeps all files).
    pub stripped: Vec<Leaf>,
    /// Leaves left out under `--strict` because NaN rows could defeat their bounds.
    pub nan_excluded: Vec<Leaf>,
    /// The predicate of the kernel scan behind this phase, as the kernel renders it.
    pub kernel_predicate: Option<String>,
    pub input_files: usize,
    pub output_files: usize,
    pub confidence: Confidence,
}

/// The explanation of one predicate on one snapshot.
#[derive(Clone, Debug)]
pub struct Explanation {
    pub predicate: Option<CompiledPredicate>,
    pub phases: Vec<Phase>,
    /// Per live file (same order as `ReplayedTable::files`): survived partition pruning.
    pub after_partition: FileSet,
    /// Per live file: survived every phase (the final survivor set).
    pub kept: FileSet,
    pub notes: Vec<Note>,
    /// The guards that fired (guards.rs): hazards announced, comparisons left out, literals
    /// widened. Never in `notes`, never in the confidence.
    pub hazards: Vec<Hazard>,
    pub confidence: Confidence,
    /// Per partition column: the present values the predicate can accept (see accepted.rs).
    /// Shared with the report built from it: a column of high cardinality accepts as many
    /// values as files.
    pub accepted: Arc<AcceptedValues>,
    /// The predicates of the two kernel scans, as the kernel renders them.
    pub scans: ScanPredicates,
    /// Files the partition evaluator could not decide and kept (`PARTITION_EVAL_GAP`).
    pub partition_undecided: usize,
    /// Per partition column, the values as written that the kernel cannot read (a decimal
    /// with fewer digits than its scale, `0.-25`): leaves on the column were left to the
    /// partition evaluator, which keeps such files (`PARTITION_VALUE_DISTRUSTED`).
    pub distrusted: Distrusted,
}

/// Partition values the kernel cannot read, by column (its logical name), a few of each.
pub type Distrusted = std::collections::BTreeMap<String, std::collections::BTreeSet<String>>;

/// How many distrusted values of one column the note names.
const DISTRUSTED_SHOWN: usize = 3;

fn distrusted_note(distrusted: &Distrusted) -> Option<Note> {
    (!distrusted.is_empty()).then(|| Note {
        code: PARTITION_VALUE_DISTRUSTED,
        message: format!(
            "partition values readers disagree on ({}: the kernel cannot read them, or an empty binary value, which the kernel reads as empty and delta-rs as NULL): leaves on these columns are decided by the partition evaluator alone, which keeps every file holding such a value",
            distrusted
                .iter()
                .map(|(c, v)| format!(
                    "`{c}` = {}",
                    v.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ")
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ),
    })
}

/// The kernel scan predicates behind the survivor sets (`None`: the scan had no predicate).
#[derive(Clone, Debug, Default)]
pub struct ScanPredicates {
    /// Partition pruning: the partition-safe fragment.
    pub partition: Option<String>,
    /// The full scan: the whole predicate, weakened where the kernel cannot evaluate it.
    pub full: Option<String>,
}

impl Explanation {
    pub fn total_files(&self) -> usize {
        self.kept.len()
    }

    /// The explanation with its accepted partition values decided over `present`, the values
    /// the table holds.
    pub fn with_accepted(
        mut self,
        present: &crate::accepted::PresentValues,
        columns: &TableColumns,
    ) -> Self {
        if let Some(compiled) = &self.predicate {
            self.accepted = Arc::new(accepted_partition_values(
                &compiled.normalized,
                present,
                columns,
            ));
        }
        self
    }

    /// The explanation without its per-file sets (empty): what a run of many predicates keeps
    /// of each window once the window's tallies and sections are read off it, so that each
    /// predicate holds no bit per file of the table (`stream.rs`). Its counts are the
    /// tallies'; `total_files`, `final_files` and `pruned_by` no longer answer.
    pub fn without_files(mut self) -> Self {
        self.after_partition = FileSet::none(0);
        self.kept = FileSet::none(0);
        self
    }

    /// This explanation of a window of files followed by `next`, the same predicate's of the
    /// window after it (`stream.rs`): per-file sets concatenated, phase counts summed. What
    /// depends on the predicate alone (its form, classes, hazards, kernel scans) is the same
    /// in both; the accepted partition values are the caller's to set from every partition.
    pub fn append(&mut self, next: Explanation) {
        self.after_partition.append(&next.after_partition);
        self.kept.append(&next.kept);
        for (phase, more) in self.phases.iter_mut().zip(next.phases) {
            phase.input_files += more.input_files;
            phase.output_files += more.output_files;
            phase.confidence = phase.confidence.max(more.confidence);
        }
        self.confidence = self.confidence.max(next.confidence);
        self.partition_undecided += next.partition_undecided;
        if let Some(compiled) = &self.predicate {
            let partition_exact = compiled
                .classification
                .conjunction(&[Bucket::PartitionExact]);
            self.notes.retain(|n| n.code != PARTITION_EVAL_GAP);
            self.notes.extend(partition_gap_note(
                self.partition_undecided,
                &partition_exact,
            ));
        }
        if !next.distrusted.is_empty() {
            for (column, values) in next.distrusted {
                let mine = self.distrusted.entry(column).or_default();
                for v in values {
                    if mine.len() < DISTRUSTED_SHOWN {
                        mine.insert(v);
                    }
                }
            }
            self.notes.retain(|n| n.code != PARTITION_VALUE_DISTRUSTED);
            self.notes.extend(distrusted_note(&self.distrusted));
        }
    }

    pub fn final_files(&self) -> usize {
        self.kept.count()
    }

    /// The phase that eliminated file `i`, `None` when it is kept.
    pub fn pruned_by(&self, i: usize) -> Option<&'static str> {
        if self.kept[i] {
            None
        } else if !self.after_partition[i] {
            Some(PARTITION_PHASE)
        } else {
            Some(DATA_SKIPPING_PHASE)
        }
    }
}

/// The two kernel scans behind the phases: the partition-safe fragment (phase 1) and the full
/// predicate with every leaf the kernel cannot evaluate weakened to TRUE (phase 2), each with
/// the guards applied (guards.rs).
#[derive(Clone, Debug, Default)]
pub struct KernelScans {
    pub partition: Option<PredicateRef>,
    pub full: Option<PredicateRef>,
    /// The guarded forms lowered into `partition` and `full`: lowered again without the
    /// leaves on a column whose partition values the kernel cannot read.
    pub partition_form: Nnf,
    pub full_form: Nnf,
    /// The guards that fired on either scan, with the leaves as written.
    pub hazards: Vec<Hazard>,
    /// Leaves the kernel cannot evaluate, weakened to TRUE in the full scan.
    pub stripped: Vec<Leaf>,
}

/// Lowers `compiled` to the kernel predicates of both phase scans. The benchmarks run the same
/// predicates through plain kernel scans, so the floor they measure is this tool's own scan.
pub fn kernel_scans(
    compiled: &CompiledPredicate,
    columns: &TableColumns,
    options: ExplainOptions,
) -> Result<KernelScans, ExplainError> {
    let classes = &compiled.classification;
    let partition = guard(
        &classes.conjunction(&[Bucket::PartitionSafe]),
        columns,
        options.strict,
    );
    // Weakening a leaf to TRUE only widens the survivor set (monotonicity, see nnf.rs), and so
    // does every guard's rewrite, so the full scan stays sound whatever it leaves out. A long
    // IN list stays for the guards to judge as written; its hull follows (guards::in_hull), and
    // a list with no hull is left out after them.
    let (listed, mut stripped) = classes
        .conjunction(&[
            Bucket::PartitionSafe,
            Bucket::StatsSafe,
            Bucket::Unsplittable,
        ])
        .weaken(&|leaf| {
            kernel_can_evaluate(leaf) || matches!(leaf, Leaf::In { negated: false, .. })
        });
    let guarded = guard_full_scan(&listed, columns, options.strict);
    let (evaluable, unbounded) = guarded.predicate.weaken(&kernel_can_evaluate);
    stripped.extend(unbounded);
    let full = Guarded {
        predicate: evaluable,
        hazards: guarded.hazards,
    };
    let mut hazards = HazardSet::default();
    hazards.extend(&partition.hazards);
    hazards.extend(&full.hazards);
    let hazards = hazards.into_sorted();
    Ok(KernelScans {
        partition: to_kernel(&partition.predicate, columns)?,
        full: to_kernel(&full.predicate, columns)?,
        partition_form: partition.predicate,
        full_form: full.predicate,
        hazards,
        stripped,
    })
}

/// The predicate of one kernel scan as a reader without our guards would hand it to the
/// kernel: every conjunct the kernel can evaluate (partition and data columns alike), lowered
/// as written after the literal readings (retype.rs), no hazard guarded, no bound widened.
/// What the conformance campaign runs the kernel with (`harness/src/conformance.rs`); never
/// what an explanation uses. `None`: nothing for the kernel to evaluate.
pub fn unguarded_kernel_predicate(
    compiled: &CompiledPredicate,
    columns: &TableColumns,
) -> Result<Option<PredicateRef>, ExplainError> {
    let (evaluable, _) = compiled
        .classification
        .conjunction(&[
            Bucket::PartitionSafe,
            Bucket::StatsSafe,
            Bucket::Unsplittable,
        ])
        .weaken(&kernel_can_evaluate);
    to_kernel(&evaluable, columns)
}

/// The note that `undecided` files were kept for want of a decision on their partition values.
fn partition_gap_note(undecided: usize, partition_exact: &Nnf) -> Option<Note> {
    (undecided > 0).then(|| Note {
        code: PARTITION_EVAL_GAP,
        message: format!(
            "{undecided} file(s) kept because their partition values could not be evaluated against `{partition_exact}`"
        ),
    })
}

/// Explains `predicate` (none: just the baseline) on a replayed table.
pub fn explain(
    table: &ReplayedTable,
    predicate: Option<&str>,
) -> Result<Explanation, ExplainError> {
    explain_with(table, predicate, ExplainOptions::default())
}

/// Explains `predicate` with `options`.
pub fn explain_with(
    table: &ReplayedTable,
    predicate: Option<&str>,
    options: ExplainOptions,
) -> Result<Explanation, ExplainError> {
    let compiled = predicate
        .map(|text| CompiledPredicate::compile(text, table))
        .transpose()?;
    let present = crate::accepted::present_values(table.shared_partitions(), table.columns());
    Ok(explain_compiled(table, compiled.as_ref(), options)?
        .with_accepted(&present, table.columns()))
}

/// Explains a predicate compiled against the table's columns (none: just the baseline),
/// leaving `accepted` empty: the accepted partition values are decided over every partition
/// value the table holds, which the caller knows ([`Explanation::with_accepted`]; a window of
/// a streamed replay does not).
pub fn explain_compiled(
    table: &ReplayedTable,
    compiled: Option<&CompiledPredicate>,
    options: ExplainOptions,
) -> Result<Explanation, ExplainError> {
    let scans = compiled
        .map(|c| kernel_scans(c, table.columns(), options))
        .transpose()?;
    explain_planned(table, compiled.zip(scans.as_ref()))
}

impl Explanation {
    /// No predicate: every one of `total` files kept, exactly.
    fn unfiltered(total: usize) -> Explanation {
        Explanation {
            predicate: None,
            phases: Vec::new(),
            after_partition: FileSet::all(total),
            kept: FileSet::all(total),
            notes: Vec::new(),
            hazards: Vec::new(),
            confidence: Confidence::Exact,
            accepted: Arc::default(),
            scans: ScanPredicates::default(),
            partition_undecided: 0,
            distrusted: Distrusted::new(),
        }
    }
}

/// The partition-exact fragment decided per file among `after_partition`, which loses the
/// files it rules out; returns how many kept files it leaves undecided.
fn decide_partitions(
    table: &ReplayedTable,
    partition_exact: &Nnf,
    after_partition: &mut [bool],
) -> usize {
    let mut undecided = 0usize;
    if *partition_exact == Nnf::Const(true) {
        return undecided;
    }
    let columns = table.columns();
    // Evaluated once per partition the files use (files of one partition share their
    // values), never over the whole table's partitions: a window of a streamed replay
    // uses a few of them.
    let prepared = PreparedPartitionPredicate::new(partition_exact, columns);
    let mut per_partition = PerPartition::over(table.files());
    for (i, file) in table.files().iter().enumerate() {
        let truth = per_partition
            .get_or_insert_with(file.partition, || prepared.evaluate(&table.partition_of(i)));
        if !truth.may_be_true() {
            after_partition[i] = false;
        } else if !truth.is_decided() && after_partition[i] {
            undecided += 1;
        }
    }
    undecided
}

/// The data-skipping phase: the stats-safe and unsplittable fragment as the kernel honours
/// it (what it cannot evaluate, and what `--strict` leaves out for NaN, weakened to TRUE);
/// `None` where that fragment is TRUE.
fn data_skipping_phase(
    classes: &Classification,
    hazards: &[Hazard],
    unscanned: &[Leaf],
    full_kernel: Option<&PredicateRef>,
    partition_count: usize,
    kept: usize,
) -> Option<Phase> {
    let credited = classes.conjunction(&[Bucket::StatsSafe, Bucket::Unsplittable]);
    if credited == Nnf::Const(true) {
        return None;
    }
    let credited_leaves: std::collections::HashSet<&Leaf> = credited.leaves().into_iter().collect();
    let nan_excluded: Vec<Leaf> = hazards
        .iter()
        .filter(|h| h.guard == Guard::NanBounds && h.effect == Effect::Excluded)
        .flat_map(|h| h.leaves.iter().cloned())
        .filter(|l| credited_leaves.contains(l))
        .collect();
    let excluded: std::collections::HashSet<&Leaf> = nan_excluded.iter().collect();
    let unscanned: std::collections::HashSet<&Leaf> = unscanned.iter().collect();
    let (honoured, stripped) =
        credited.weaken(&|l: &Leaf| !unscanned.contains(l) && !excluded.contains(l));
    let stripped: Vec<Leaf> = stripped
        .into_iter()
        .filter(|l| !excluded.contains(l))
        .collect();
    // Confidence says how precisely the drop is explained, never whether a hazard applies
    // (hazards have a field of their own): only a mixed OR or a stripped leaf lowers it.
    let lowered = !classes.in_bucket(Bucket::Unsplittable).is_empty() || !stripped.is_empty();
    Some(Phase {
        name: DATA_SKIPPING_PHASE,
        predicate: honoured,
        stripped,
        nan_excluded,
        kernel_predicate: full_kernel.as_ref().map(|p| p.to_string()),
        input_files: partition_count,
        output_files: kept,
        confidence: if lowered {
            Confidence::Incomplete
        } else {
            Confidence::Conservative
        },
    })
}

/// [`explain_compiled`] with the predicate's kernel scans lowered already: a streamed
/// explanation plans them once and explains every window with them.
pub fn explain_planned(
    table: &ReplayedTable,
    planned: Option<(&CompiledPredicate, &KernelScans)>,
) -> Result<Explanation, ExplainError> {
    let total = table.files().len();
    let Some((compiled, scans)) = planned else {
        return Ok(Explanation::unfiltered(total));
    };
    let classes = &compiled.classification;
    let columns = table.columns();
    let mut notes = classes.notes.clone();
    let mut phases = Vec::new();

    // Phase 1: the kernel prunes on the partition-safe fragment; the partition evaluator
    // decides the partition-exact fragment per file. A file survives if both keep it.
    // Where a partition column holds values the kernel cannot read, its partition-safe leaves
    // leave the kernel's scan (below) and are decided here instead, per file: a value that
    // does not parse is undecided and keeps its file.
    let distrusted = distrusted_partition_values(table, scans);
    let partition_exact = if distrusted.is_empty() {
        classes.conjunction(&[Bucket::PartitionExact])
    } else {
        classes.conjunction(&[Bucket::PartitionExact, Bucket::PartitionSafe])
    };
    // A partition value the kernel cannot read would fail its scan: the leaves on that column
    // leave the kernel's predicates (TRUE only widens), the partition evaluator keeps the file.
    let scans = if distrusted.is_empty() {
        scans.clone()
    } else {
        notes.extend(distrusted_note(&distrusted));
        scans.without_columns(&distrusted, columns)?
    };
    let KernelScans {
        partition: partition_kernel,
        full: full_kernel,
        hazards,
        stripped: unscanned,
        ..
    } = scans;
    let partition_scan = table.survivors(partition_kernel.clone())?;
    let mut after_partition = partition_scan.clone();
    let undecided = decide_partitions(table, &partition_exact, &mut after_partition);
    notes.extend(partition_gap_note(undecided, &partition_exact));
    let has_partition_phase = !classes.in_bucket(Bucket::PartitionSafe).is_empty()
        || !classes.in_bucket(Bucket::PartitionExact).is_empty();
    let partition_count = after_partition.iter().filter(|k| **k).count();
    if has_partition_phase {
        phases.push(Phase {
            name: PARTITION_PHASE,
            predicate: classes.conjunction(&[Bucket::PartitionSafe, Bucket::PartitionExact]),
            stripped: Vec::new(),
            nan_excluded: Vec::new(),
            kernel_predicate: partition_kernel.as_ref().map(|p| p.to_string()),
            input_files: total,
            output_files: partition_count,
            confidence: if undecided > 0 {
                Confidence::Conservative
            } else {
                Confidence::Exact
            },
        });
    }

    // Phase 2: the full predicate, with what the kernel cannot evaluate weakened to TRUE
    // (sound by monotonicity, see nnf.rs), intersected with phase 1 (both sets are sound, so
    // their intersection is).
    // The same kernel predicate over the same rows keeps the same files: a predicate on
    // partition columns alone needs one scan, not two. Otherwise the full scan is asked only
    // about the partition survivors: `kept` below takes no other file whatever it answers.
    let full_scan = if full_kernel == partition_kernel {
        partition_scan
    } else {
        table.survivors_among(full_kernel.clone(), Some(&after_partition))?
    };
    let kept: FileSet = full_scan
        .iter()
        .zip(&after_partition)
        .map(|(a, b)| *a && *b)
        .collect();
    phases.extend(data_skipping_phase(
        classes,
        &hazards,
        &unscanned,
        full_kernel.as_ref(),
        partition_count,
        kept.count(),
    ));
    let confidence = phases
        .iter()
        .map(|p| p.confidence)
        .max()
        .unwrap_or(Confidence::Exact);
    let scans = ScanPredicates {
        partition: partition_kernel.as_ref().map(|p| p.to_string()),
        full: full_kernel.as_ref().map(|p| p.to_string()),
    };
    Ok(Explanation {
        predicate: Some(compiled.clone()),
        phases,
        after_partition: FileSet::from(after_partition),
        kept,
        notes,
        hazards,
        confidence,
        accepted: Arc::default(),
        scans,
        partition_undecided: undecided,
        distrusted,
    })
}

impl KernelScans {
    /// The partition columns the scans' leaves read.
    fn partition_columns(
        &self,
        columns: &TableColumns,
    ) -> Vec<explain_compiler::schema::ColumnInfo> {
        let mut out: Vec<explain_compiler::schema::ColumnInfo> = Vec::new();
        for leaf in self
            .partition_form
            .leaves()
            .into_iter()
            .chain(self.full_form.leaves())
        {
            let Some(info) = leaf.column().and_then(|c| columns.resolve(c).ok()) else {
                continue;
            };
            if info.is_partition && !out.iter().any(|o| o.column == info.column) {
                out.push(info);
            }
        }
        out
    }

    /// These scans with every leaf on a `distrusted` column weakened to TRUE.
    fn without_columns(
        &self,
        distrusted: &Distrusted,
        columns: &TableColumns,
    ) -> Result<KernelScans, ExplainError> {
        let trusted = |l: &Leaf| {
            l.column()
                .and_then(|c| columns.resolve(c).ok())
                .is_none_or(|info| !distrusted.contains_key(&info.column.dotted()))
        };
        let (partition_form, _) = self.partition_form.weaken(&trusted);
        let (full_form, _) = self.full_form.weaken(&trusted);
        Ok(KernelScans {
            partition: to_kernel(&partition_form, columns)?,
            full: to_kernel(&full_form, columns)?,
            partition_form,
            full_form,
            hazards: self.hazards.clone(),
            stripped: self.stripped.clone(),
        })
    }
}

/// The values of the partition columns `scans` read, among `table`'s files, that readers
/// disagree on (`partition_eval::distrusted_value`: the kernel's parser refuses them, or an
/// empty binary value): a few per column.
fn distrusted_partition_values(table: &ReplayedTable, scans: &KernelScans) -> Distrusted {
    use explain_compiler::partition_eval::PartitionValues;
    let mut out = Distrusted::new();
    let read = scans.partition_columns(table.columns());
    if read.is_empty() {
        return out;
    }
    let mut seen = PerPartition::over(table.files());
    for i in 0..table.files().len() {
        let partition = table.files()[i].partition;
        if seen.get(partition).is_some() {
            continue;
        }
        seen.get_or_insert_with(partition, || ());
        let values = table.partition_of(i);
        for info in &read {
            let Some(primitive) = info.primitive() else {
                continue;
            };
            if let Some(Some(raw)) = values.raw(&info.partition_key)
                && explain_compiler::partition_eval::distrusted_value(raw, primitive)
            {
                let shown = out.entry(info.column.dotted()).or_default();
                if shown.len() < DISTRUSTED_SHOWN {
                    shown.insert(raw.to_string());
                }
            }
        }
    }
    out
}
