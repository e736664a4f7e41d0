//! Predicate corpora: one predicate per line under `corpora/<table>.txt` (blank lines and `#`
//! comments ignored), and the minimized counterexamples under `corpora/regressions/`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The workspace's `corpora/` folder.
pub fn corpora_dir() -> PathBuf {
    testkit::workspace_root().join("corpora")
}

/// The corpus file of a fixture table (`taxi-nyc`, `real/basic_partitioned` -> `basic_partitioned`).
pub fn corpus_path(table_name: &str) -> PathBuf {
    corpora_dir().join(format!(
        "{}.txt",
        table_name.rsplit('/').next().unwrap_or(table_name)
    ))
}

pub fn read_corpus(path: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

/// Where a regression's table comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegressionTable {
    /// A shared fixture, by its path under the fixtures folder.
    Fixture(String),
    /// A generated table, by its full spec.
    Generated(Box<generators::spec::TableSpec>),
}

/// A minimized counterexample, replayed by `cargo test` forever.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Regression {
    pub table: RegressionTable,
    pub predicate: String,
    /// `soundness`, `equivalence`, `degradation`, `accepted`.
    pub invariant: String,
    /// For equivalence: the variant's name.
    #[serde(default)]
    pub variant: Option<String>,
    /// What failed when it was found.
    pub found: String,
}

pub fn read_regressions() -> Result<Vec<(String, Regression)>, String> {
    let dir = corpora_dir().join("regressions");
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(out);
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let regression: Regression =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        out.push((name, regression));
    }
    Ok(out)
}
