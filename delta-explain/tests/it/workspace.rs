//! Workspace-level guarantees that are checked, not just promised.

use std::process::Command;

/// `cargo tree` over every kind of edge, offline, with `args`.
fn cargo_tree(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(testkit::workspace_root())
        .arg("tree")
        .args(args)
        .args(["--edges", "normal,dev,build", "--offline", "--locked"])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Kernel and (later) DataFusion must share one arrow: two versions would mean two
/// incompatible `RecordBatch` types and twice the build. `cargo tree -d` lists duplicated
/// crates at the start of a line.
#[test]
fn one_version_of_arrow_and_parquet() {
    let tree = cargo_tree(&["--workspace", "--duplicates"]);
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
    let tree = cargo_tree(&["-p", "oracle", "--prefix", "none"]);
    assert!(
        tree.lines().any(|l| l.starts_with("datafusion ")),
        "the tree lists the oracle's dependencies:\n{tree}"
    );
    let forbidden: Vec<&str> = tree
        .lines()
        .filter(|l| {
            [
                "explain-compiler ",
                "explain-core ",
                "explain-advise ",
                "delta-explain ",
            ]
            .iter()
            .any(|c| l.starts_with(c))
                || l.starts_with("delta_kernel")
        })
        .collect();
    assert!(
        forbidden.is_empty(),
        "the oracle must not depend on: {forbidden:?}"
    );
}

/// The workspace's crates: the folders at its root with a Cargo.toml.
fn crates() -> Vec<std::path::PathBuf> {
    let root = testkit::workspace_root();
    let mut out: Vec<_> = std::fs::read_dir(&root)
        .expect("the workspace root is readable")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.join("Cargo.toml").is_file() && p != &root)
        .collect();
    out.sort();
    out
}

/// Every `.rs` file under `dir`, `target/` aside.
fn rust_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() && !path.ends_with("target") {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// No crate holds more than a quarter of the workspace's Rust lines: each crate does one job.
#[test]
fn no_crate_holds_more_than_a_quarter_of_the_workspace() {
    let sizes: Vec<(String, usize)> = crates()
        .iter()
        .map(|dir| {
            let lines = rust_files(dir)
                .iter()
                .map(|f| {
                    std::fs::read_to_string(f)
                        .expect("readable")
                        .lines()
                        .count()
                })
                .sum();
            (
                dir.file_name().unwrap().to_string_lossy().into_owned(),
                lines,
            )
        })
        .collect();
    let total: usize = sizes.iter().map(|(_, n)| n).sum();
    assert!(sizes.len() >= 8 && total > 10_000, "{sizes:?}");
    let large: Vec<_> = sizes.iter().filter(|(_, n)| n * 4 > total).collect();
    assert!(
        large.is_empty(),
        "crates over a quarter of {total} lines: {large:?}"
    );
}

/// The module paths a file's `crate::`, `self::` and `super::` paths name (`use` trees
/// expanded), for the file at module path `here`. Comments and a trailing test module aside.
fn named_paths(text: &str, here: &[String]) -> Vec<Vec<String>> {
    let code: String = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or("")
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let starts_word = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let rest = &code[i..];
        let base: Option<(Vec<String>, usize)> = if !starts_word {
            None
        } else if rest.starts_with("crate::") {
            Some((Vec::new(), "crate::".len()))
        } else if rest.starts_with("self::") {
            Some((here.to_vec(), "self::".len()))
        } else if rest.starts_with("super::") {
            let mut at = here.to_vec();
            let mut len = 0;
            while code[i + len..].starts_with("super::") {
                at.pop();
                len += "super::".len();
            }
            Some((at, len))
        } else {
            None
        };
        match base {
            Some((prefix, len)) => {
                let (paths, used) = use_tree(&code[i + len..]);
                out.extend(paths.into_iter().map(|p| [prefix.clone(), p].concat()));
                i += len + used.max(1);
            }
            None => i += 1,
        }
    }
    out
}

/// The paths of a `use` tree at the start of `text` (`a::b`, `a::{b, c::{d}}`), and the bytes
/// read.
fn use_tree(text: &str) -> (Vec<Vec<String>>, usize) {
    let word: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let mut used = word.len();
    if word.is_empty() {
        if !text.starts_with('{') {
            return (vec![Vec::new()], 0);
        }
        let mut paths = Vec::new();
        used = 1;
        loop {
            let skipped = text[used..].len() - text[used..].trim_start().len();
            used += skipped;
            if used >= text.len() || text[used..].starts_with('}') {
                return (paths, used + 1);
            }
            let (inner, n) = use_tree(&text[used..]);
            paths.extend(inner);
            used += n.max(1);
            let skipped = text[used..].len() - text[used..].trim_start().len();
            used += skipped;
            if text[used..].starts_with(',') {
                used += 1;
            }
        }
    }
    if text[used..].starts_with("::") {
        let (inner, n) = use_tree(&text[used + 2..]);
        let paths = inner
            .into_iter()
            .map(|p| [vec![word.clone()], p].concat())
            .collect();
        return (paths, used + 2 + n);
    }
    (vec![vec![word]], used)
}

/// No two modules of a crate import each other, directly or in a loop: between the children
/// of one module (the crate's root included), the imports run one way. A module and its own
/// children are one unit here (a folder module owns its files).
#[test]
fn no_two_modules_import_each_other() {
    let mut loops = Vec::new();
    for dir in crates() {
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        // Each file's module path: src/a/b.rs and src/a/b/mod.rs are [a, b]; lib.rs and
        // main.rs the root.
        let modules: Vec<(Vec<String>, String)> = rust_files(&src)
            .into_iter()
            .filter(|f| !f.starts_with(src.join("bin")))
            .map(|f| {
                let rel = f.strip_prefix(&src).unwrap().with_extension("");
                let mut path: Vec<String> = rel
                    .iter()
                    .map(|s| s.to_string_lossy().into_owned())
                    .collect();
                if matches!(
                    path.last().map(String::as_str),
                    Some("mod" | "lib" | "main")
                ) {
                    path.pop();
                }
                (path, std::fs::read_to_string(&f).expect("readable"))
            })
            .collect();
        let known: std::collections::BTreeSet<&Vec<String>> =
            modules.iter().map(|(p, _)| p).collect();
        // Edges between siblings: (parent, from child, to child).
        let mut edges = std::collections::BTreeSet::new();
        for (here, text) in &modules {
            for named in named_paths(text, here) {
                let target = (0..=named.len())
                    .rev()
                    .map(|n| named[..n].to_vec())
                    .find(|p| known.contains(p))
                    .unwrap_or_default();
                let common = here.iter().zip(&target).take_while(|(a, b)| a == b).count();
                if common < here.len() && common < target.len() {
                    edges.insert((
                        here[..common].to_vec(),
                        here[common].clone(),
                        target[common].clone(),
                    ));
                }
            }
        }
        // A loop: a child that reaches itself through the edges among its siblings.
        for (parent, from, to) in &edges {
            let mut seen = std::collections::BTreeSet::new();
            let mut stack = vec![to.clone()];
            while let Some(at) = stack.pop() {
                if &at == from {
                    loops.push(format!(
                        "{}: {}::{{{from} -> {to} -> ... -> {from}}}",
                        dir.file_name().unwrap().to_string_lossy(),
                        if parent.is_empty() {
                            "crate".to_string()
                        } else {
                            format!("crate::{}", parent.join("::"))
                        }
                    ));
                    break;
                }
                if seen.insert(at.clone()) {
                    stack.extend(
                        edges
                            .iter()
                            .filter(|(p, f, _)| p == parent && f == &at)
                            .map(|(_, _, t)| t.clone()),
                    );
                }
            }
        }
    }
    assert!(
        loops.is_empty(),
        "modules that import each other:\n{}",
        loops.join("\n")
    );
}
