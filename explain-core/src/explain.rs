//! The pipeline: SQL -> owned AST -> normalized AST -> classification -> kernel predicates per
//! phase -> three nested survivor sets (baseline, partition-only, full), all from one replay.

use crate::accepted::{AcceptedValues, accepted_partition_values};
use crate::ast::CmpOp;
use crate::ast::Predicate;
use crate::classify::{Bucket, Classification, Confidence, Note, PARTITION_EVAL_GAP, classify};
use crate::error::ExplainError;
use crate::lower::{check_literals, kernel_can_evaluate, to_kernel};
use crate::nnf::{Leaf, Nnf};
use crate::normalize::normalize;
use crate::partition_eval::evaluate;
use crate::replay::ReplayedTable;
use crate::schema::TableColumns;
use crate::sql::parse_predicate;
use delta_kernel::PredicateRef;

pub const PARTITION_PHASE: &str = "Partition pruning";
pub const DATA_SKIPPING_PHASE: &str = "Data skipping";

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
        let normalized = normalize(&parsed, columns)?;
        check_literals(&normalized, columns)?;
        let classification = classify(&normalized, columns);
        Ok(Self {
            text: text.to_string(),
            parsed,
            normalized,
            classification,
        })
    }
}

pub const NAN_UNGUARDED_BOUNDS: &str = "NAN_UNGUARDED_BOUNDS";
pub const TYPE_WIDENING_STATS: &str = "TYPE_WIDENING_STATS";
pub const SIGNED_ZERO_BOUNDS: &str = "SIGNED_ZERO_BOUNDS";
pub const NAN_STRICT_EXCLUDED: &str = "NAN_STRICT_EXCLUDED";

/// How to explain.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExplainOptions {
    /// Leave out of the scan every fragment whose min/max pruning a NaN row could defeat, so the
    /// survivor set is sound for any data (pitfall 2).
    pub strict: bool,
}

/// Whether NaN rows can satisfy this leaf on a float data column while the file's min/max,
/// which writers compute without NaN, say otherwise. In the total order NaN is above every
/// number, so NaN satisfies `>`, `>=`, `!=` (and `= NaN`, `IN (.., NaN)`, `NOT IN`) whatever
/// the bounds; Delta stats carry no NaN count that could prove NaN absent. `<`, `<=`, `=` with
/// a number and `IS [NOT] NULL` are not affected: NaN never satisfies them.
pub fn nan_unguarded(leaf: &Leaf, columns: &TableColumns) -> bool {
    let Some(column) = leaf.column() else {
        return false;
    };
    let Ok(info) = columns.resolve(column) else {
        return false;
    };
    if info.is_partition || !info.is_float() {
        return false;
    }
    let is_nan = |l: &crate::ast::Literal| matches!(l, crate::ast::Literal::String(s) if s.trim().eq_ignore_ascii_case("nan"));
    match leaf {
        Leaf::Cmp {
            op: CmpOp::Gt | CmpOp::GtEq | CmpOp::NotEq,
            ..
        } => true,
        Leaf::Cmp { literal, .. } => is_nan(literal),
        Leaf::In { negated: true, .. } => true,
        Leaf::In { list, .. } => list.iter().any(is_nan),
        _ => false,
    }
}

/// Whether the leaf bounds a data column widened from float: its older files keep f32
/// statistics (JSON `3.4` for the f32 value 3.4000000953674316), and read as a double such a
/// bound sits below the value it stands for, so `x = 3.4000000953674316` or `x > 3.4` would
/// prune a matching file (pitfall 7). No bound of such a column is used.
pub fn widening_unbounded(leaf: &Leaf, columns: &TableColumns) -> bool {
    let Some(column) = leaf.column() else {
        return false;
    };
    columns
        .resolve(column)
        .is_ok_and(|info| !info.is_partition && info.widened_from_float)
}

/// Whether the leaf compares a float data column with zero. A bound of zero does not say its
/// sign: Parquet lets a writer record min `+0.0` for a file holding `-0.0` and max `-0.0` for
/// one holding `+0.0`, and writers differ. Against any other literal both zeros decide alike;
/// against a zero (in the total order, `-0.0 < +0.0`), the recorded sign can prune a file
/// whose other zero matches. Such leaves are left out of data skipping.
pub fn signed_zero_exposed(leaf: &Leaf, columns: &TableColumns) -> bool {
    let Some(column) = leaf.column() else {
        return false;
    };
    let Ok(info) = columns.resolve(column) else {
        return false;
    };
    if info.is_partition || !info.is_float() {
        return false;
    }
    let zero = |l: &crate::ast::Literal| match l {
        crate::ast::Literal::Number(t) | crate::ast::Literal::String(t) => {
            t.trim().parse::<f64>().is_ok_and(|v| v == 0.0)
        }
        _ => false,
    };
    match leaf {
        Leaf::Cmp { literal, .. } => zero(literal),
        Leaf::In { list, .. } => list.iter().any(zero),
        _ => false,
    }
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
    pub after_partition: Vec<bool>,
    /// Per live file: survived every phase (the final survivor set).
    pub kept: Vec<bool>,
    pub notes: Vec<Note>,
    pub confidence: Confidence,
    /// Per partition column: the present values the predicate can accept (see accepted.rs).
    pub accepted: AcceptedValues,
    /// The predicates of the two kernel scans, as the kernel renders them.
    pub scans: ScanPredicates,
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

    pub fn final_files(&self) -> usize {
        self.kept.iter().filter(|k| **k).count()
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
/// predicate with every leaf the scan must not see weakened to TRUE (phase 2).
#[derive(Clone, Debug, Default)]
pub struct KernelScans {
    pub partition: Option<PredicateRef>,
    pub full: Option<PredicateRef>,
}

/// Lowers `compiled` to the kernel predicates of both phase scans. The benchmarks run the same
/// predicates through plain kernel scans, so the floor they measure is this tool's own scan.
pub fn kernel_scans(
    compiled: &CompiledPredicate,
    columns: &TableColumns,
    options: ExplainOptions,
) -> Result<KernelScans, ExplainError> {
    let classes = &compiled.classification;
    let partition = to_kernel(&classes.conjunction(&[Bucket::PartitionSafe]), columns)?;
    // Weakening a leaf to TRUE only widens the survivor set (monotonicity, see nnf.rs), so the
    // full scan stays sound whatever it leaves out.
    let (full_nnf, _) = classes
        .conjunction(&[
            Bucket::PartitionSafe,
            Bucket::StatsSafe,
            Bucket::Unsplittable,
        ])
        .weaken(&|l: &Leaf| scanned(l, columns, options));
    let full = to_kernel(&full_nnf, columns)?;
    Ok(KernelScans { partition, full })
}

/// Leaves whose bounds no file can be trusted with: never scanned, whatever the mode.
fn untrusted_bounds(leaf: &Leaf, columns: &TableColumns) -> bool {
    widening_unbounded(leaf, columns) || signed_zero_exposed(leaf, columns)
}

/// Whether the full scan hands `leaf` to the kernel's data skipping.
fn scanned(leaf: &Leaf, columns: &TableColumns, options: ExplainOptions) -> bool {
    kernel_can_evaluate(leaf)
        && !untrusted_bounds(leaf, columns)
        && !(options.strict && nan_unguarded(leaf, columns))
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
    let total = table.files().len();
    let Some(text) = predicate else {
        return Ok(Explanation {
            predicate: None,
            phases: Vec::new(),
            after_partition: vec![true; total],
            kept: vec![true; total],
            notes: Vec::new(),
            confidence: Confidence::Exact,
            accepted: AcceptedValues::new(),
            scans: ScanPredicates::default(),
        });
    };
    let compiled = CompiledPredicate::compile(text, table)?;
    let classes = &compiled.classification;
    let columns = table.columns();
    let mut notes = classes.notes.clone();
    let mut phases = Vec::new();

    // Phase 1: the kernel prunes on the partition-safe fragment; the partition evaluator
    // decides the partition-exact fragment per file. A file survives if both keep it.
    let partition_exact = classes.conjunction(&[Bucket::PartitionExact]);
    let KernelScans {
        partition: partition_kernel,
        full: full_kernel,
    } = kernel_scans(&compiled, columns, options)?;
    let partition_scan = table.survivors(partition_kernel.clone())?;
    let mut after_partition = partition_scan.clone();
    let mut undecided = 0usize;
    if partition_exact != Nnf::Const(true) {
        // Evaluated once per partition: files of one partition share their values.
        let per_partition: Vec<_> = table
            .partitions()
            .iter()
            .map(|values| evaluate(&partition_exact, values, columns))
            .collect();
        for (i, file) in table.files().iter().enumerate() {
            let truth = per_partition[file.partition];
            if !truth.may_be_true() {
                after_partition[i] = false;
            } else if !truth.is_decided() && after_partition[i] {
                undecided += 1;
            }
        }
    }
    if undecided > 0 {
        notes.push(Note {
            code: PARTITION_EVAL_GAP,
            message: format!(
                "{undecided} file(s) kept because their partition values could not be evaluated against `{partition_exact}`"
            ),
        });
    }
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
    let nan_exposed = |l: &Leaf| nan_unguarded(l, columns);
    let untrusted = |l: &Leaf| untrusted_bounds(l, columns);
    let scan_keeps = |l: &Leaf| scanned(l, columns, options);
    // The same kernel predicate over the same rows keeps the same files: a predicate on
    // partition columns alone needs one scan, not two. Otherwise the full scan is asked only
    // about the partition survivors: `kept` below takes no other file whatever it answers.
    let full_scan = if full_kernel == partition_kernel {
        partition_scan
    } else {
        table.survivors_among(full_kernel.clone(), Some(&after_partition))?
    };
    let kept: Vec<bool> = full_scan
        .iter()
        .zip(&after_partition)
        .map(|(a, b)| *a && *b)
        .collect();
    let credited = classes.conjunction(&[Bucket::StatsSafe, Bucket::Unsplittable]);
    if credited != Nnf::Const(true) {
        let (honoured, stripped) = credited.weaken(&scan_keeps);
        let (nan_excluded, stripped): (Vec<Leaf>, Vec<Leaf>) = stripped
            .into_iter()
            .partition(|l| kernel_can_evaluate(l) && !untrusted(l));
        let widening: Vec<&Leaf> = stripped
            .iter()
            .filter(|l| widening_unbounded(l, columns))
            .collect();
        let zeros: Vec<&Leaf> = stripped
            .iter()
            .filter(|l| signed_zero_exposed(l, columns) && !widening_unbounded(l, columns))
            .collect();
        let unguarded: Vec<&Leaf> = honoured
            .leaves()
            .into_iter()
            .filter(|l| nan_exposed(l))
            .collect();
        let nan_excluded_refs: Vec<&Leaf> = nan_excluded.iter().collect();
        let leaf_notes: [(&'static str, &[&Leaf], fn(&str) -> String); 4] = [
            (SIGNED_ZERO_BOUNDS, &zeros, |list| {
                format!(
                    "{list} left out of data skipping: a float bound of zero does not record its sign (writers may store +0.0 for -0.0 and back), so against a zero it cannot prune soundly"
                )
            }),
            (TYPE_WIDENING_STATS, &widening, |list| {
                format!(
                    "{list} left out of data skipping: the column was widened from float, and files written before keep f32 statistics that may not bound their double values"
                )
            }),
            (NAN_UNGUARDED_BOUNDS, &unguarded, |list| {
                format!(
                    "{list} on float column(s): writers leave NaN out of min/max and Delta stats carry no NaN count, so a file whose matching rows are NaN can be pruned; --strict leaves these fragments out of the scan"
                )
            }),
            (NAN_STRICT_EXCLUDED, &nan_excluded_refs, |list| {
                format!(
                    "--strict left {list} out of the scan: NaN rows could satisfy it beyond the recorded bounds"
                )
            }),
        ];
        for (code, leaves, message) in leaf_notes {
            if !leaves.is_empty() {
                notes.push(Note {
                    code,
                    message: message(&quoted_list(leaves.iter().copied())),
                });
            }
        }
        let has_unsplittable = !classes.in_bucket(Bucket::Unsplittable).is_empty();
        let lowered = has_unsplittable
            || !unguarded.is_empty()
            || !nan_excluded.is_empty()
            || !widening.is_empty()
            || !zeros.is_empty();
        phases.push(Phase {
            name: DATA_SKIPPING_PHASE,
            predicate: honoured,
            stripped,
            nan_excluded,
            kernel_predicate: full_kernel.as_ref().map(|p| p.to_string()),
            input_files: partition_count,
            output_files: kept.iter().filter(|k| **k).count(),
            confidence: if lowered {
                Confidence::Incomplete
            } else {
                Confidence::Conservative
            },
        });
    }
    let confidence = phases
        .iter()
        .map(|p| p.confidence)
        .max()
        .unwrap_or(Confidence::Exact);
    let accepted = accepted_partition_values(&compiled.normalized, table.present_values(), columns);
    let scans = ScanPredicates {
        partition: partition_kernel.as_ref().map(|p| p.to_string()),
        full: full_kernel.as_ref().map(|p| p.to_string()),
    };
    Ok(Explanation {
        predicate: Some(compiled),
        phases,
        after_partition,
        kept,
        notes,
        confidence,
        accepted,
        scans,
    })
}

/// `` `a`, `b` `` for a note message.
fn quoted_list<'a>(leaves: impl Iterator<Item = &'a Leaf>) -> String {
    leaves
        .map(|l| format!("`{l}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
