//! Classification: the first interpreter of the normalized predicate. Each top-level conjunct
//! goes to one bucket, which decides the phase that is credited with it.
//!
//! | bucket | the conjunct | decided by |
//! |---|---|---|
//! | `partition_safe` | references partition columns only, and the kernel can express it | kernel partition pruning |
//! | `partition_exact` | references partition columns only, the kernel cannot express it (substring LIKE, long IN) | the partition-literal evaluator |
//! | `stats_safe` | references data columns only, and the kernel can express it | kernel min/max data skipping |
//! | `unsplittable` | mixes partition and data columns (an OR), or holds a fragment outside the pruning language | the full scan, weakened where needed |
//!
//! Splitting is sound only at the top level: `A AND B` keeps a file only if both keep it, so
//! each conjunct may prune alone. An OR cannot be split (either side may be the one that is
//! TRUE), which is why a mixed OR stays whole.

use serde::Serialize;

use crate::lower::kernel_can_evaluate;
use crate::nnf::{Leaf, Nnf};
use crate::schema::TableColumns;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bucket {
    PartitionSafe,
    PartitionExact,
    StatsSafe,
    Unsplittable,
}

/// How precisely a phase's elimination can be explained. Never whether it is sound: every
/// label keeps a superset of the matching files. Ordered from most to least informative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// Every dropped file provably holds no match (partition values compared directly).
    Exact,
    /// Sound but possibly loose (min/max ranges overlap bounds without holding a match).
    Conservative,
    /// Part of the predicate could not be attributed or evaluated; totals remain sound.
    Incomplete,
}

impl Confidence {
    pub fn label(self) -> &'static str {
        match self {
            Confidence::Exact => "exact",
            Confidence::Conservative => "conservative",
            Confidence::Incomplete => "incomplete",
        }
    }
}

/// A note with a stable code (docs/semantics.md lists them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    pub code: &'static str,
    pub message: String,
}

pub const UNSUPPORTED_EXPRESSION: &str = "UNSUPPORTED_EXPRESSION";
pub const UNSPLITTABLE_OR: &str = "UNSPLITTABLE_OR";
pub const PARTITION_EVAL_GAP: &str = "PARTITION_EVAL_GAP";
pub const PARTITION_VALUE_DISTRUSTED: &str = "PARTITION_VALUE_DISTRUSTED";

/// One top-level conjunct and its bucket.
#[derive(Clone, Debug)]
pub struct Fragment {
    pub predicate: Nnf,
    pub bucket: Bucket,
}

#[derive(Clone, Debug)]
pub struct Classification {
    pub fragments: Vec<Fragment>,
    pub notes: Vec<Note>,
}

impl Classification {
    pub fn in_bucket(&self, bucket: Bucket) -> Vec<&Nnf> {
        self.fragments
            .iter()
            .filter(|f| f.bucket == bucket)
            .map(|f| &f.predicate)
            .collect()
    }

    /// The AND of the fragments in `buckets` (TRUE when there are none).
    pub fn conjunction(&self, buckets: &[Bucket]) -> Nnf {
        Nnf::and(
            self.fragments
                .iter()
                .filter(|f| buckets.contains(&f.bucket))
                .map(|f| f.predicate.clone())
                .collect::<Vec<_>>(),
        )
    }
}

pub fn classify(pred: &Nnf, columns: &TableColumns) -> Classification {
    let mut fragments = Vec::new();
    let mut notes = Vec::new();
    let conjuncts: Vec<&Nnf> = match pred {
        // FALSE is decided without any statistics: a partition-level (exact) decision.
        Nnf::Const(false) => vec![pred],
        other => other.conjuncts(),
    };
    for conjunct in conjuncts {
        let (bucket, note) = classify_conjunct(conjunct, columns);
        if let Some(n) = note {
            notes.push(n);
        }
        fragments.push(Fragment {
            predicate: conjunct.clone(),
            bucket,
        });
    }
    Classification { fragments, notes }
}

fn classify_conjunct(conjunct: &Nnf, columns: &TableColumns) -> (Bucket, Option<Note>) {
    let leaves = conjunct.leaves();
    if let Some(Leaf::Unsupported { sql, .. }) = leaves
        .iter()
        .find(|l| matches!(l, Leaf::Unsupported { .. }))
    {
        let scope = if leaves.len() == 1 {
            "it keeps all files"
        } else {
            "the enclosing OR keeps all files"
        };
        return (
            Bucket::Unsplittable,
            Some(Note {
                code: UNSUPPORTED_EXPRESSION,
                message: format!(
                    "`{sql}` is outside the pruning language; {scope}, sibling conjuncts still prune"
                ),
            }),
        );
    }
    let refs = conjunct.columns();
    let partition_flags: Vec<bool> = refs
        .iter()
        .map(|c| columns.resolve(c).map(|i| i.is_partition).unwrap_or(false))
        .collect();
    let kernel_expressible = leaves.iter().all(|l| kernel_can_evaluate(l));
    if partition_flags.iter().all(|p| *p) {
        let bucket = if kernel_expressible {
            Bucket::PartitionSafe
        } else {
            Bucket::PartitionExact
        };
        return (bucket, None);
    }
    if partition_flags.iter().all(|p| !*p) {
        if kernel_expressible {
            return (Bucket::StatsSafe, None);
        }
        let culprit = leaves
            .iter()
            .find(|l| !kernel_can_evaluate(l))
            .map(|l| l.to_string())
            .unwrap_or_default();
        return (
            Bucket::Unsplittable,
            Some(Note {
                code: UNSUPPORTED_EXPRESSION,
                message: format!(
                    "`{culprit}` cannot be bounded by min/max statistics; it keeps all files, sibling conjuncts still prune"
                ),
            }),
        );
    }
    (
        Bucket::Unsplittable,
        Some(Note {
            code: UNSPLITTABLE_OR,
            message: format!(
                "`{conjunct}` mixes partition and data columns under OR; it is evaluated whole in the final scan and cannot be credited to one phase"
            ),
        }),
    )
}
