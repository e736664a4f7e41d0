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

use explain_core::error::ExplainError;
use explain_core::gates::Outcome;
use explain_core::report::Report;

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

/// What a stored run said of one entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub final_files: u64,
    pub final_bytes: u64,
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

/// Reads the per-entry baselines of a stored budget run (its JSON output).
pub fn read_baseline(text: &str, shown: &str) -> Result<BTreeMap<String, Baseline>, ExplainError> {
    let bad = |why: String| ExplainError::Usage(format!("baseline {shown}: {why}"));
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let entries = doc["entries"]
        .as_array()
        .ok_or_else(|| bad("not a budget run (no `entries`)".into()))?;
    let mut out = BTreeMap::new();
    for entry in entries {
        let name = entry["name"]
            .as_str()
            .ok_or_else(|| bad("an entry without a name".into()))?;
        let number = |key: &str| {
            entry["report"][key]
                .as_u64()
                .ok_or_else(|| bad(format!("`{name}` has no report.{key}")))
        };
        out.insert(
            name.to_string(),
            Baseline {
                final_files: number("final_files")?,
                final_bytes: number("final_bytes")?,
            },
        );
    }
    Ok(out)
}

/// The regressions of `report` against its baseline: files or bytes pruning no longer
/// removes.
pub fn regressions(report: &Report, baseline: &Baseline) -> Vec<String> {
    let mut out = Vec::new();
    if report.final_files as u64 > baseline.final_files {
        out.push(format!(
            "regression: {} files kept, {} in the baseline",
            report.final_files, baseline.final_files
        ));
    }
    if report.final_bytes > baseline.final_bytes {
        out.push(format!(
            "regression: {} bytes kept, {} in the baseline",
            report.final_bytes, baseline.final_bytes
        ));
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
            let baseline = e.baseline.as_ref().map_or("-".to_string(), |b| {
                format!("{} files, {} bytes", b.final_files, b.final_bytes)
            });
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
