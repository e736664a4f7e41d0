//! `--layers`: the five forms one predicate takes on its way through the pipeline, each read
//! off the explanation that produced the counts (nothing is recomputed):
//! 1. the owned AST as parsed, before normalization (rendered and as a tree),
//! 2. the normalized AST (rendered and as a tree),
//! 3. the classification of each top-level conjunct,
//! 4. the kernel predicate of each phase scan (and the fragment the partition evaluator
//!    decides),
//! 5. the survivor sets: baseline, after partition pruning, after the full scan.

use crate::report::layers::{
    ClassifiedFragment, Form, KernelScanLayer, Layers, SurvivorSet, TreeNode,
};

use crate::explain::Explanation;
use crate::replay::ReplayedTable;
use explain_compiler::ast::Predicate;
use explain_compiler::classify::Bucket;
use explain_compiler::nnf::{Leaf, Nnf};

impl Layers {
    /// The layers of an explanation with a predicate; `None` without one.
    pub fn build(
        table: &ReplayedTable,
        explanation: &Explanation,
        limit: Option<usize>,
    ) -> Option<Layers> {
        let compiled = explanation.predicate.as_ref()?;
        let columns = table.columns();
        let classification = compiled
            .classification
            .fragments
            .iter()
            .map(|f| ClassifiedFragment {
                fragment: f.predicate.to_string(),
                bucket: f.bucket,
                columns: f
                    .predicate
                    .columns()
                    .iter()
                    .map(|c| {
                        columns
                            .resolve(c)
                            .map(|i| i.column.dotted())
                            .unwrap_or_else(|_| c.dotted())
                    })
                    .collect(),
            })
            .collect();
        let exact = compiled
            .classification
            .conjunction(&[Bucket::PartitionExact]);
        let set = |name: &'static str, keep: &dyn Fn(usize) -> bool| {
            let mut paths: Vec<String> = (0..table.files().len())
                .filter(|&i| keep(i))
                .map(|i| table.path(i).to_string())
                .collect();
            paths.sort();
            let count = paths.len();
            paths.truncate(limit.unwrap_or(usize::MAX));
            SurvivorSet {
                set: name,
                count,
                files_truncated: paths.len() < count,
                files: paths,
            }
        };
        Some(Layers {
            parsed: Form {
                sql: compiled.parsed.to_string(),
                tree: parsed_tree(&compiled.parsed),
            },
            normalized: Form {
                sql: compiled.normalized.to_string(),
                tree: normalized_tree(&compiled.normalized),
            },
            classification,
            kernel: KernelScanLayer {
                partition_scan: explanation.scans.partition.clone(),
                partition_evaluator: (exact != Nnf::Const(true)).then(|| exact.to_string()),
                full_scan: explanation.scans.full.clone(),
            },
            survivors: vec![
                set("baseline", &|_| true),
                set("partition", &|i| explanation.after_partition[i]),
                set("full", &|i| explanation.kept[i]),
            ],
        })
    }
}

impl Layers {
    /// The layers of two consecutive windows of one table as one (`stream.rs`): every form is
    /// the predicate's and the same in both; the survivor sets are counted together, their
    /// paths merged in order and cut to `limit` (the first paths of the whole table are the
    /// first among each window's first).
    pub fn plus(mut self, other: Layers, limit: Option<usize>) -> Layers {
        for (set, more) in self.survivors.iter_mut().zip(other.survivors) {
            set.count += more.count;
            set.files.extend(more.files);
            set.files.sort();
            set.files.truncate(limit.unwrap_or(usize::MAX));
            set.files_truncated = set.files.len() < set.count;
        }
        self
    }
}

fn node(kind: &'static str, sql: String, children: Vec<TreeNode>) -> TreeNode {
    TreeNode {
        kind,
        sql,
        children,
    }
}

/// The tree of the predicate as parsed.
pub fn parsed_tree(p: &Predicate) -> TreeNode {
    let children = match p {
        Predicate::And(items) | Predicate::Or(items) => items.iter().map(parsed_tree).collect(),
        Predicate::Not(inner) => vec![parsed_tree(inner)],
        _ => Vec::new(),
    };
    node(p.construct(), p.to_string(), children)
}

/// The tree of the normalized predicate.
pub fn normalized_tree(p: &Nnf) -> TreeNode {
    match p {
        Nnf::And(items) => node(
            "and",
            p.to_string(),
            items.iter().map(normalized_tree).collect(),
        ),
        Nnf::Or(items) => node(
            "or",
            p.to_string(),
            items.iter().map(normalized_tree).collect(),
        ),
        Nnf::Const(_) => node("constant", p.to_string(), Vec::new()),
        Nnf::Leaf(leaf) => {
            let kind = match leaf {
                Leaf::Cmp { .. } => "compare",
                Leaf::IsNull { .. } => "is_null",
                Leaf::In { .. } => "in",
                Leaf::Like { .. } => "like",
                Leaf::Bool { .. } => "bool_column",
                Leaf::Unsupported { .. } => "unsupported",
            };
            node(kind, p.to_string(), Vec::new())
        }
    }
}
