//! Workspace-level guarantees that are checked, not just promised.

use std::process::Command;

/// Kernel and (later) DataFusion must share one arrow: two versions would mean two
/// incompatible `RecordBatch` types and twice the build. `cargo tree -d` lists duplicated
/// crates at the start of a line.
#[test]
fn one_version_of_arrow_and_parquet() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = testkit::workspace_root();
    let out = Command::new(cargo)
        .current_dir(&root)
        .args([
            "tree",
            "--workspace",
            "--duplicates",
            "--edges",
            "normal,dev,build",
            "--offline",
            "--locked",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    let duplicated: Vec<&str> = tree
        .lines()
        .filter(|l| {
            l.starts_with("arrow") || l.starts_with("parquet") || l.starts_with("object_store ")
        })
        .collect();
    assert!(
        duplicated.is_empty(),
        "duplicated arrow/parquet crates:\n{}",
        duplicated.join("\n")
    );
}

/// The oracle is ground truth only if a bug in explain-core or delta_kernel cannot reach it:
/// neither may be in its dependency tree (dev-dependencies included).
#[test]
fn the_oracle_depends_on_neither_explain_core_nor_the_kernel() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = testkit::workspace_root();
    let out = Command::new(cargo)
        .current_dir(&root)
        .args([
            "tree",
            "-p",
            "oracle",
            "--edges",
            "normal,dev,build",
            "--prefix",
            "none",
            "--offline",
            "--locked",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(
        tree.lines().any(|l| l.starts_with("datafusion ")),
        "the tree lists the oracle's dependencies:\n{tree}"
    );
    let forbidden: Vec<&str> = tree
        .lines()
        .filter(|l| l.starts_with("explain-core ") || l.starts_with("delta_kernel"))
        .collect();
    assert!(
        forbidden.is_empty(),
        "the oracle must not depend on: {forbidden:?}"
    );
}
