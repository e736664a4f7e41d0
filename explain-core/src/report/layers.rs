//! `layers`: the five forms of the predicate (`--layers`), as the report writes them; built by
//! [`crate::layers`].

use serde::Serialize;

use explain_compiler::classify::Bucket;

#[derive(Clone, Debug, Serialize)]
pub struct Layers {
    pub parsed: Form,
    pub normalized: Form,
    pub classification: Vec<ClassifiedFragment>,
    pub kernel: KernelScanLayer,
    pub survivors: Vec<SurvivorSet>,
}

/// One form of the predicate: its SQL and its tree.
#[derive(Clone, Debug, Serialize)]
pub struct Form {
    pub sql: String,
    pub tree: TreeNode,
}

/// A node of a predicate tree: a junction or NOT with children, or a leaf with its SQL.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TreeNode {
    /// `and`, `or`, `not`, or the leaf kind (`compare`, `is_null`, `in`, `between`, `like`,
    /// `bool_column`, `constant`, `unsupported`).
    pub kind: &'static str,
    /// The SQL of the node (for a junction: the whole sub-predicate).
    pub sql: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<TreeNode>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClassifiedFragment {
    pub fragment: String,
    pub bucket: Bucket,
    pub columns: Vec<String>,
}

/// The kernel scans behind the phases (null: the scan ran with no predicate and keeps every
/// file) and the fragment the partition-literal evaluator decides per file.
#[derive(Clone, Debug, Serialize)]
pub struct KernelScanLayer {
    pub partition_scan: Option<String>,
    pub partition_evaluator: Option<String>,
    pub full_scan: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SurvivorSet {
    /// `baseline`, `partition` or `full`.
    pub set: &'static str,
    pub count: usize,
    /// The surviving paths, sorted, at most `--limit` of them.
    pub files: Vec<String>,
    pub files_truncated: bool,
}
