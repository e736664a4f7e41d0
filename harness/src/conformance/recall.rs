//! Recall on known bugs: the campaign run against reader versions with a bug that is known,
//! and against the versions that fixed it (`campaign --known-bugs FILE --minutes N`).
//!
//! The known bugs are a committed list ([`KnownBug`], `harness/known-bugs.json`): the reader,
//! a version with the bug and one with the fix, the upstream issue, the component and fault,
//! and what a finding of it looks like ([`Expect`]: its verdict, words its cause holds, the
//! catalog tables it can be met on). For each bug the campaign runs the buggy version for the
//! time given and records whether a finding matches and how long it took (its
//! `found_after`); then the fixed version, where a match is a false alarm. A bug of a reader
//! the campaign does not drive is listed as not reachable, never as found.

use serde::{Deserialize, Serialize};

use super::{ConformanceOptions, ConformanceReport, Finding, Pin};

/// A known data-skipping bug.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct KnownBug {
    pub id: String,
    /// The reader as the campaign names it (`delta-rs`, `polars`, `duckdb-delta`), or the
    /// package the bug is in where the campaign drives no such reader (`datafusion`).
    pub reader: String,
    pub package: String,
    pub buggy: String,
    pub fixed: String,
    pub upstream: String,
    #[serde(default)]
    pub fix: Option<String>,
    pub component: String,
    pub fault: String,
    pub class: String,
    pub table: String,
    pub predicate: String,
    /// What the campaign must report; none: the bug is out of the campaign's reach (said in
    /// `reach`).
    #[serde(default)]
    pub expect: Option<Expect>,
    /// Why the campaign cannot meet it, where it cannot.
    #[serde(default)]
    pub reach: Option<String>,
}

/// What a finding of a known bug looks like.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Expect {
    /// Its verdicts (`missing-rows`, ...): one of them.
    pub verdicts: Vec<String>,
    /// Words its cause (or its localization's bug) holds, all of them.
    #[serde(default)]
    pub cause_contains: Vec<String>,
    /// The catalog tables it can be met on (its table's name begins with one); none: any.
    #[serde(default)]
    pub tables: Vec<String>,
}

impl Expect {
    /// Whether `f` is a finding of this bug.
    pub fn matches(&self, f: &Finding) -> bool {
        let text = format!(
            "{} {}",
            f.cause,
            f.localization.as_ref().map_or("", |l| l.bug.as_str())
        )
        .to_lowercase();
        self.verdicts.iter().any(|v| v == f.verdict.name())
            && (self.tables.is_empty()
                || self.tables.iter().any(|t| f.table.starts_with(t.as_str())))
            && self
                .cause_contains
                .iter()
                .all(|w| text.contains(&w.to_lowercase()))
    }
}

/// One version's run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct VersionRun {
    pub version: String,
    /// The reader ran (its environment installed and started).
    pub ran: bool,
    pub cases: u64,
    /// The first matching finding: its cause and when it was listed (seconds).
    pub matched: Option<(String, f64)>,
    /// Why it did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// A known bug's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct BugRecall {
    pub id: String,
    pub reader: String,
    pub upstream: String,
    pub buggy: VersionRun,
    pub fixed: VersionRun,
    /// `found` (on the buggy version, not on the fixed), `missed`, `false alarm` (on the fixed
    /// version too), `not reachable` (with why), `not run`.
    pub outcome: String,
}

/// The recall report.
#[derive(Clone, Debug, Serialize)]
pub struct Recall {
    pub seconds_per_version: u64,
    pub seed: u64,
    pub bugs: Vec<BugRecall>,
    /// Found of all listed; found of the reachable ones.
    pub recall: f64,
    pub recall_reachable: f64,
}

/// The known bugs of `path`.
pub fn read(path: &std::path::Path) -> Result<Vec<KnownBug>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs the campaign on each bug's buggy and fixed versions (`options` for each run;
/// `pinned` starts the reader at a version).
pub fn run(
    bugs: &[KnownBug],
    options: &ConformanceOptions,
    pinned: &mut dyn FnMut(&Pin) -> Box<dyn super::Adapter>,
    progress: &mut dyn FnMut(&str),
) -> Recall {
    let mut out = Vec::new();
    for bug in bugs {
        let reader = oracle::readers::DeltaReader::ALL
            .into_iter()
            .find(|r| r.name() == bug.reader);
        let (Some(reader), Some(expect)) = (reader, &bug.expect) else {
            out.push(BugRecall {
                id: bug.id.clone(),
                reader: bug.reader.clone(),
                upstream: bug.upstream.clone(),
                buggy: VersionRun {
                    version: bug.buggy.clone(),
                    ..VersionRun::default()
                },
                fixed: VersionRun {
                    version: bug.fixed.clone(),
                    ..VersionRun::default()
                },
                outcome: format!(
                    "not reachable: {}",
                    bug.reach.clone().unwrap_or_else(|| format!(
                        "the campaign drives no reader `{}`",
                        bug.reader
                    ))
                ),
            });
            continue;
        };
        let mut one = |version: &str| -> VersionRun {
            progress(&format!("{} at {} {version}", bug.id, bug.reader));
            let pin = Pin {
                reader,
                version: version.to_string(),
            };
            let mut adapters = vec![pinned(&pin)];
            if let Err(why) = adapters[0].version() {
                return VersionRun {
                    version: version.to_string(),
                    unavailable: Some(why),
                    ..VersionRun::default()
                };
            }
            match super::run(options, &mut adapters, &mut |_, _| {}) {
                Ok(report) => version_run(version, &report, expect),
                Err(why) => VersionRun {
                    version: version.to_string(),
                    unavailable: Some(why),
                    ..VersionRun::default()
                },
            }
        };
        let buggy = one(&bug.buggy);
        let fixed = one(&bug.fixed);
        let outcome = match (buggy.ran && fixed.ran, &buggy.matched, &fixed.matched) {
            (false, _, _) => "not run".to_string(),
            (true, Some(_), None) => "found".to_string(),
            (true, _, Some(_)) => "false alarm".to_string(),
            (true, None, None) => "missed".to_string(),
        };
        out.push(BugRecall {
            id: bug.id.clone(),
            reader: bug.reader.clone(),
            upstream: bug.upstream.clone(),
            buggy,
            fixed,
            outcome,
        });
    }
    let found = out.iter().filter(|b| b.outcome == "found").count() as f64;
    let reachable = out
        .iter()
        .filter(|b| !b.outcome.starts_with("not reachable"))
        .count() as f64;
    Recall {
        seconds_per_version: options.seconds,
        seed: options.seed,
        recall: if out.is_empty() {
            0.0
        } else {
            found / out.len() as f64
        },
        recall_reachable: if reachable > 0.0 {
            found / reachable
        } else {
            0.0
        },
        bugs: out,
    }
}

fn version_run(version: &str, report: &ConformanceReport, expect: &Expect) -> VersionRun {
    VersionRun {
        version: version.to_string(),
        ran: true,
        cases: report.engines.values().map(|t| t.cases).sum(),
        matched: report
            .findings
            .iter()
            .filter(|f| expect.matches(f))
            .min_by(|a, b| a.found_after.total_cmp(&b.found_after))
            .map(|f| (f.cause.clone(), f.found_after)),
        unavailable: None,
    }
}

/// `recall.json` and `README.md` in `out`.
pub fn write(out: &std::path::Path, recall: &Recall, command: &str) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    crate::page::write_json(out, "recall.json", recall)?;
    let mut md = format!(
        "# Recall on known bugs\n\nCommand: `{command}`. Each known bug's reader ran the conformance campaign at the version with the bug and at the version with the fix, {} s each (seed {}). Found: a finding matching the bug on the buggy version and none on the fixed.\n\nRecall: {:.0}% of the {} bugs listed, {:.0}% of those the campaign can reach.\n\n| bug | reader | buggy | found after | fixed | outcome | upstream |\n|---|---|---|---:|---|---|---|\n",
        recall.seconds_per_version,
        recall.seed,
        recall.recall * 100.0,
        recall.bugs.len(),
        recall.recall_reachable * 100.0,
    );
    for b in &recall.bugs {
        let when = |r: &VersionRun| match (&r.matched, &r.unavailable) {
            (Some((_, s)), _) => format!("{s:.0} s"),
            (None, Some(why)) => format!("unavailable: {why}"),
            (None, None) if r.ran => format!("not found ({} cases)", r.cases),
            (None, None) => "-".into(),
        };
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} ({}) | {} | {} |\n",
            b.id,
            b.reader,
            b.buggy.version,
            when(&b.buggy),
            b.fixed.version,
            when(&b.fixed),
            b.outcome,
            b.upstream
        ));
    }
    crate::page::write_file(out, "README.md", &md)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_known_bugs_read_and_say_what_a_finding_of_each_looks_like() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("known-bugs.json");
        let bugs = read(&path).unwrap();
        assert!(bugs.len() >= 8, "{}", bugs.len());
        let mut readers: Vec<&str> = bugs.iter().map(|b| b.reader.as_str()).collect();
        readers.sort_unstable();
        readers.dedup();
        assert!(readers.len() >= 3, "{readers:?}");
        for b in &bugs {
            assert!(
                b.expect.is_some() != b.reach.is_some(),
                "{}: an expectation, or why the campaign cannot reach it",
                b.id
            );
            assert!(b.upstream.starts_with("https://"), "{}", b.id);
            assert_ne!(b.buggy, b.fixed, "{}", b.id);
        }
    }
}
