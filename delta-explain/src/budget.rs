//! Pruning budgets for CI: a file of named predicates, each with its own gates, explained
//! against one replay; an optional stored run to compare with (`--baseline`), so a change that
//! makes pruning remove fewer files or bytes (a layout change, an OPTIMIZE that went wrong)
//! fails the job; and the outputs CI systems read: a markdown summary (a GitHub step summary)
//! and JUnit XML.
//!
//! ```toml
//! [[predicate]]
//! name = "one day"
//! where = "pickup_date = '2024-01-03'"
//! min_pruning = 80     # percent of files pruned, at least
//! min_files = 1        # files kept, at least (0 kept is usually a misspelt literal)
//! assert_stats = true  # every file has statistics for the data columns used
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use explain_compiler::error::ExplainError;
use explain_core::report::Report;
use explain_core::report::assertions::Outcome;

/// The version of the budget run's JSON document.
pub const BUDGET_SCHEMA_VERSION: &str = "dx-budget-1.0.0";

/// A budget file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    #[serde(rename = "predicate", default)]
    pub predicates: Vec<BudgetEntry>,
}

/// One named predicate and its gates.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetEntry {
    pub name: String,
    #[serde(rename = "where")]
    pub predicate: String,
    pub min_pruning: Option<f64>,
    pub min_files: Option<usize>,
    #[serde(default)]
    pub assert_stats: bool,
}

impl Budget {
    /// Parses a budget file's text; `shown` names it in errors (bad input, exit 2).
    pub fn parse(text: &str, shown: &str) -> Result<Budget, ExplainError> {
        let budget: Budget = toml::from_str(text)
            .map_err(|e| ExplainError::Usage(format!("budget {shown}: {}", e.message())))?;
        if budget.predicates.is_empty() {
            return Err(ExplainError::Usage(format!(
                "budget {shown}: no [[predicate]] entries"
            )));
        }
        let mut seen = std::collections::BTreeSet::new();
        for entry in &budget.predicates {
            if !seen.insert(entry.name.as_str()) {
                return Err(ExplainError::Usage(format!(
                    "budget {shown}: the name `{}` is used twice (names match runs to their baseline)",
                    entry.name
                )));
            }
            if let Some(p) = entry.min_pruning
                && !(0.0..=100.0).contains(&p)
            {
                return Err(ExplainError::Usage(format!(
                    "budget {shown}: `{}`: min_pruning {p} is not a percentage from 0 to 100",
                    entry.name
                )));
            }
        }
        Ok(budget)
    }
}

/// What a stored run said of one entry: its table's version and totals, and what it kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub version: Option<u64>,
    pub total_files: u64,
    pub total_bytes: u64,
    pub final_files: u64,
    pub final_bytes: u64,
}

impl Baseline {
    /// The same figures of a report of this run.
    pub fn of(report: &Report) -> Baseline {
        Baseline {
            version: Some(report.version),
            total_files: report.total_files as u64,
            total_bytes: report.total_bytes,
            final_files: report.final_files as u64,
            final_bytes: report.final_bytes,
        }
    }

    /// `version 3: 4 of 20 files, 38.2 KiB of 189.1 KiB kept (80.0% of files pruned)`.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} of {} files, {} of {} bytes kept ({:.1}% of files, {:.1}% of bytes pruned)",
            self.version
                .map_or("version unknown".to_string(), |v| format!("version {v}")),
            self.final_files,
            self.total_files,
            self.final_bytes,
            self.total_bytes,
            pruned_pct(self.final_files, self.total_files),
            pruned_pct(self.final_bytes, self.total_bytes),
        )
    }
}

/// The share pruned, in percent (0 of 0 kept prunes nothing).
fn pruned_pct(kept: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * (1.0 - kept as f64 / total as f64)
    }
}

/// One entry's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct EntryResult {
    pub name: String,
    pub predicate: String,
    pub result: Outcome,
    /// Failed gates and regressions, one line each.
    pub failures: Vec<String>,
    /// The entry in the baseline run, if it had one.
    pub baseline: Option<Baseline>,
    pub report: Report,
}

/// A budget run: what `--budget` prints as JSON, and what `--baseline` reads back.
#[derive(Clone, Debug, Serialize)]
pub struct BudgetRun {
    pub schema_version: &'static str,
    pub table: String,
    pub version: u64,
    pub result: Outcome,
    pub entries: Vec<EntryResult>,
}

/// Reads the baselines of a stored run, by name: a budget run (`--budget ... --format json`,
/// its entries by name), one report (`-w ... --format json`) or an array of reports
/// (`--predicates ... --format json`), each report by its predicate's text.
pub fn read_baseline(text: &str, shown: &str) -> Result<BTreeMap<String, Baseline>, ExplainError> {
    let bad = |why: String| ExplainError::Usage(format!("baseline {shown}: {why}"));
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    // (name, report, the run's version where the report does not carry it)
    let named: Vec<(String, &serde_json::Value, Option<u64>)> = match &doc {
        serde_json::Value::Object(o) if o.contains_key("entries") => {
            let entries = doc["entries"]
                .as_array()
                .ok_or_else(|| bad("`entries` is not an array".into()))?;
            entries
                .iter()
                .map(|e| {
                    let name = e["name"]
                        .as_str()
                        .ok_or_else(|| bad("an entry without a name".into()))?;
                    Ok((name.to_string(), &e["report"], doc["version"].as_u64()))
                })
                .collect::<Result<_, ExplainError>>()?
        }
        serde_json::Value::Object(o) if o.contains_key("total_files") => {
            vec![(report_name(&doc), &doc, None)]
        }
        // Error entries of a --predicates run (a line that was not a predicate) have no counts.
        serde_json::Value::Array(reports) => reports
            .iter()
            .filter(|r| r.get("error").is_none())
            .map(|r| (report_name(r), r, None))
            .collect(),
        _ => {
            return Err(bad(
                "not a budget run, a report or an array of reports (the JSON of --budget, -w or --predicates)".into(),
            ));
        }
    };
    let mut out = BTreeMap::new();
    for (name, report, run_version) in named {
        let number = |key: &str| {
            report[key]
                .as_u64()
                .ok_or_else(|| bad(format!("`{name}` has no {key}")))
        };
        out.insert(
            name.clone(),
            Baseline {
                version: report["version"].as_u64().or(run_version),
                total_files: number("total_files")?,
                total_bytes: number("total_bytes")?,
                final_files: number("final_files")?,
                final_bytes: number("final_bytes")?,
            },
        );
    }
    Ok(out)
}

/// The name a report of one predicate is matched to its baseline by: the predicate as written
/// (the baseline listing has none).
pub fn report_name(report: &serde_json::Value) -> String {
    report["predicate"]
        .as_str()
        .map_or_else(|| NO_PREDICATE.to_string(), |p| p.trim().to_string())
}

/// The name of the baseline listing (no predicate) in CI outputs and baselines.
pub const NO_PREDICATE: &str = "(no predicate)";

/// The regressions of `report` against its baseline: pruning that now removes a smaller share
/// of the files or of the bytes than it did, by more than `tolerance` percentage points. Shares,
/// not counts: a table that only gained data keeps more files for the same predicate and has
/// not regressed.
pub fn regressions(report: &Report, baseline: &Baseline, tolerance: f64) -> Vec<String> {
    let now = Baseline::of(report);
    let mut out = Vec::new();
    for (what, before, after) in [
        (
            "files",
            pruned_pct(baseline.final_files, baseline.total_files),
            pruned_pct(now.final_files, now.total_files),
        ),
        (
            "bytes",
            pruned_pct(baseline.final_bytes, baseline.total_bytes),
            pruned_pct(now.final_bytes, now.total_bytes),
        ),
    ] {
        if before - after > tolerance {
            out.push(format!(
                "regression: {after:.1}% of {what} pruned, {before:.1}% in the baseline (tolerance {tolerance} percentage points)"
            ));
        }
    }
    out
}

impl BudgetRun {
    /// A markdown summary (GitHub renders it as the step summary).
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "### delta-explain budget: {}\n\n`{}` at version {}\n\n| predicate | files kept | bytes kept | pruned | baseline | result |\n|---|---|---|---|---|---|\n",
            match self.result {
                Outcome::Pass => "pass",
                Outcome::Fail => "fail",
            },
            self.table,
            self.version
        );
        for e in &self.entries {
            let baseline = e
                .baseline
                .as_ref()
                .map_or("-".to_string(), Baseline::describe);
            let result = match e.result {
                Outcome::Pass => "pass".to_string(),
                Outcome::Fail => format!("**fail**: {}", e.failures.join("; ")),
            };
            out.push_str(&format!(
                "| {} (`{}`) | {} of {} | {} of {} | {}% | {} | {} |\n",
                markdown_cell(&e.name),
                markdown_cell(&e.predicate),
                e.report.final_files,
                e.report.total_files,
                e.report.final_bytes,
                e.report.total_bytes,
                e.report.total_pruning_pct,
                baseline,
                markdown_cell(&result)
            ));
        }
        out
    }

    /// JUnit XML: one test case per entry, a failure per failed gate or regression.
    pub fn to_junit(&self) -> String {
        use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
        let failures = self
            .entries
            .iter()
            .filter(|e| e.result == Outcome::Fail)
            .count();
        let mut writer = quick_xml::Writer::new_with_indent(Vec::new(), b' ', 2);
        let suite = BytesStart::new("testsuite").with_attributes([
            ("name", "delta-explain budget"),
            ("tests", &self.entries.len().to_string()),
            ("failures", &failures.to_string()),
            ("errors", "0"),
        ]);
        let table = xml_text(&self.table);
        // Writing into a Vec cannot fail.
        let _ = writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
        let _ = writer.write_event(Event::Start(BytesStart::new("testsuites")));
        let _ = writer.write_event(Event::Start(suite));
        for e in &self.entries {
            let case = BytesStart::new("testcase").with_attributes([
                ("classname", table.as_str()),
                ("name", &xml_text(&e.name)),
                (
                    "time",
                    &format!("{:.3}", e.report.elapsed_ms as f64 / 1000.0),
                ),
            ]);
            let _ = writer.write_event(Event::Start(case));
            for f in &e.failures {
                let _ = writer
                    .create_element("failure")
                    .with_attribute(("message", xml_text(f).as_str()))
                    .write_text_content(BytesText::new(&xml_text(&e.predicate)));
            }
            let _ = writer
                .create_element("system-out")
                .write_text_content(BytesText::new(&format!(
                    "{} of {} files kept ({}% pruned)",
                    e.report.final_files, e.report.total_files, e.report.total_pruning_pct
                )));
            let _ = writer.write_event(Event::End(BytesEnd::new("testcase")));
        }
        let _ = writer.write_event(Event::End(BytesEnd::new("testsuite")));
        let _ = writer.write_event(Event::End(BytesEnd::new("testsuites")));
        let mut out = String::from_utf8(writer.into_inner()).unwrap_or_default();
        out.push('\n');
        out
    }

    /// One line per entry, for the terminal.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            out.push_str(&format!(
                "{}: {}  {}\n",
                match e.result {
                    Outcome::Pass => "pass",
                    Outcome::Fail => "FAIL",
                },
                e.name,
                crate::render::summary_line(&e.report)
            ));
            if let Some(b) = &e.baseline {
                out.push_str(&format!(
                    "    now      {}\n    baseline {}\n",
                    Baseline::of(&e.report).describe(),
                    b.describe()
                ));
            }
            for f in &e.failures {
                out.push_str(&format!("    {f}\n"));
            }
        }
        out
    }
}

fn markdown_cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// `text` as XML 1.0 may hold it: the control characters it cannot hold at all (even as
/// references) written as Rust escapes (`\u{1}`); quick-xml escapes the rest.
fn xml_text(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && !matches!(c, '\n' | '\t' | '\r') {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse_and_refuse_what_they_cannot_mean() {
        let ok = Budget::parse(
            "[[predicate]]\nname = \"day\"\nwhere = \"d = 1\"\nmin_pruning = 80\nmin_files = 1\n",
            "b.toml",
        )
        .unwrap();
        assert_eq!(ok.predicates[0].min_files, Some(1));
        assert!(!ok.predicates[0].assert_stats);
        for (text, fragment) in [
            ("", "no [[predicate]]"),
            ("[[predicate]]\nname = \"a\"\n", "missing field `where`"),
            (
                "[[predicate]]\nname = \"a\"\nwhere = \"x\"\nmin_prunning = 3\n",
                "unknown field `min_prunning`",
            ),
            (
                "[[predicate]]\nname = \"a\"\nwhere = \"x\"\n[[predicate]]\nname = \"a\"\nwhere = \"y\"\n",
                "used twice",
            ),
            (
                "[[predicate]]\nname = \"a\"\nwhere = \"x\"\nmin_pruning = 120\n",
                "not a percentage",
            ),
        ] {
            let e = Budget::parse(text, "b.toml").unwrap_err().to_string();
            assert!(e.contains(fragment), "{text:?}: {e}");
        }
    }

    #[test]
    fn xml_and_markdown_escape_what_they_must() {
        // quick-xml escapes markup; what XML 1.0 cannot hold at all is written out.
        assert_eq!(xml_text("a\u{1}b\tc"), "a\\u{1}b\tc");
        assert_eq!(markdown_cell("a | b"), "a \\| b");
    }
}
