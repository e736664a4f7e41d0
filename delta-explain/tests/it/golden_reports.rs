//! The JSON report of every corpus predicate on its fixture, and `advise` on taxi-nyc, held
//! field by field: a move of code between modules or crates changes no report, and a change
//! that is meant shows which reports moved and how.
//!
//! golden/reports/ holds one JSON file per corpus (`<corpus>.json`, and `advise-taxi-nyc.json`):
//! an array of `{"entry": N, "report": {...}}`, N the predicate's place in its corpus file, the
//! report as the binary prints it with the two fields that differ between runs and machines
//! (`elapsed_ms` set to 0, the table's path replaced by its name). A difference is listed by
//! corpus, entry and JSON pointer (`taxi-nyc #12 /analysis/confidence: "exact" -> "conservative"`),
//! and `git diff` of the rewritten files shows the same. `UPDATE_GOLDEN=1` rewrites them; a
//! change must be one the commit means.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::support::{assert_valid_advice, assert_valid_report, fixtures, run, taxi};

const GOLDEN: &str = "delta-explain/tests/it/golden/reports";

/// Differences listed in a failure at the most; the count of every one is given.
const SHOWN: usize = 40;

/// The fixture a corpus file belongs to.
fn fixture_of(corpus: &str) -> String {
    if corpus == "taxi-nyc" {
        taxi()
    } else {
        fixtures().join("real").join(corpus).display().to_string()
    }
}

/// `doc` with the run-dependent fields replaced.
fn normalized(mut doc: Value, table: &str) -> Value {
    if let Some(object) = doc.as_object_mut() {
        if object.contains_key("elapsed_ms") {
            object.insert("elapsed_ms".into(), 0.into());
        }
        if object.contains_key("table") {
            object.insert("table".into(), table.into());
        }
    }
    doc
}

/// Every snapshot file's name (without `.json`) with its reports in corpus order.
fn reports() -> BTreeMap<String, Vec<Value>> {
    let corpora = testkit::workspace_root().join("corpora");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpora)
        .expect("corpora/ is readable")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut out = BTreeMap::new();
    for file in files {
        let name = file.file_stem().unwrap().to_str().unwrap().to_string();
        let table = fixture_of(&name);
        let r = run(&[
            &table,
            "--predicates",
            file.to_str().unwrap(),
            "--format",
            "json",
            "--verbose",
            "--explain-why",
        ]);
        // A corpus line the explainer refuses is an error entry in its place (exit 2); the
        // entry is held like a report.
        assert!(
            r.code == 0 || r.code == 2,
            "{name}: exit {}: {}",
            r.code,
            r.stderr
        );
        let docs: Vec<Value> =
            serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{name}: JSON ({e})"));
        let held = docs
            .into_iter()
            .map(|doc| {
                // A report (an error entry in its place has no schema version).
                if doc.get("schema_version").is_some() {
                    assert_valid_report(&doc);
                }
                normalized(doc, &name)
            })
            .collect();
        out.insert(name, held);
    }
    let workload = corpora.join("taxi-nyc.txt");
    let advice = run(&[
        "advise",
        &taxi(),
        "--predicates",
        workload.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(advice.code, 0, "advise: {}", advice.stderr);
    let doc: Value = serde_json::from_str(&advice.stdout).expect("advice is JSON");
    assert_valid_advice(&doc);
    out.insert("advise-taxi-nyc".into(), vec![normalized(doc, "taxi-nyc")]);
    out
}

/// A snapshot file's text: the reports numbered from 1, pretty-printed (one field a line, so
/// that `git diff` shows a moved field with its neighbours).
fn snapshot(reports: &[Value]) -> String {
    let entries: Vec<Value> = reports
        .iter()
        .enumerate()
        .map(|(i, report)| serde_json::json!({ "entry": i + 1, "report": report }))
        .collect();
    serde_json::to_string_pretty(&entries).expect("the reports print") + "\n"
}

/// The reports a snapshot file holds, by entry.
fn held(text: &str, file: &str) -> Vec<Value> {
    let entries: Vec<Value> =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{file}: not a snapshot ({e})"));
    entries
        .into_iter()
        .enumerate()
        .map(|(i, mut entry)| {
            assert_eq!(entry["entry"], i + 1, "{file}: entries in order");
            entry["report"].take()
        })
        .collect()
}

/// A value in one line, cut to a readable length.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 160 {
        format!("{}...", text.chars().take(160).collect::<String>())
    } else {
        text
    }
}

/// Every difference between `expected` and `actual`, as `pointer: old -> new`, fields compared
/// one by one (a JSON pointer per leaf that differs, or per value present on one side only).
fn differences(pointer: &str, expected: &Value, actual: &Value, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, value) in e {
                let at = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                match a.get(key) {
                    Some(other) => differences(&at, value, other, out),
                    None => out.push(format!("{at}: {} -> (absent)", shown(value))),
                }
            }
            for (key, value) in a.iter().filter(|(key, _)| !e.contains_key(*key)) {
                let at = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
                out.push(format!("{at}: (absent) -> {}", shown(value)));
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            for i in 0..e.len().max(a.len()) {
                let at = format!("{pointer}/{i}");
                match (e.get(i), a.get(i)) {
                    (Some(x), Some(y)) => differences(&at, x, y, out),
                    (Some(x), None) => out.push(format!("{at}: {} -> (absent)", shown(x))),
                    (None, Some(y)) => out.push(format!("{at}: (absent) -> {}", shown(y))),
                    (None, None) => unreachable!("an index below the longer length"),
                }
            }
        }
        (e, a) if e == a => {}
        (e, a) => out.push(format!("{pointer}: {} -> {}", shown(e), shown(a))),
    }
}

#[test]
fn every_corpus_report_and_the_taxi_advice_are_unchanged() {
    let made = reports();
    let folder = testkit::workspace_root().join(GOLDEN);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(&folder).expect("the golden folder");
        for entry in std::fs::read_dir(&folder).expect("the golden folder is readable") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "json") {
                std::fs::remove_file(&path).expect("an old snapshot removed");
            }
        }
        for (name, reports) in &made {
            std::fs::write(folder.join(format!("{name}.json")), snapshot(reports))
                .expect("a snapshot written");
        }
        return;
    }
    let mut on_disk: Vec<String> = std::fs::read_dir(&folder)
        .unwrap_or_else(|_| panic!("{GOLDEN} is missing; run with UPDATE_GOLDEN=1"))
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut found: Vec<String> = on_disk
        .iter()
        .filter(|name| !made.contains_key(*name))
        .map(|name| format!("{name}: a snapshot without a corpus"))
        .collect();
    let mut moved = 0usize;
    let mut held_count = 0usize;
    for (name, reports) in &made {
        let file = format!("{GOLDEN}/{name}.json");
        let Ok(text) = std::fs::read_to_string(folder.join(format!("{name}.json"))) else {
            found.push(format!("{name}: no snapshot ({file})"));
            continue;
        };
        let expected = held(&text, &file);
        held_count += expected.len();
        for i in 0..expected.len().max(reports.len()) {
            let mut diffs = Vec::new();
            match (expected.get(i), reports.get(i)) {
                (Some(e), Some(a)) => differences("", e, a, &mut diffs),
                (Some(_), None) => diffs.push("held, no longer made".into()),
                (None, Some(_)) => diffs.push("made, not held".into()),
                (None, None) => unreachable!("an index below the longer length"),
            }
            if !diffs.is_empty() {
                moved += 1;
            }
            found.extend(diffs.into_iter().map(|d| format!("{name} #{}: {d}", i + 1)));
        }
    }
    let made_count: usize = made.values().map(Vec::len).sum();
    assert!(
        found.is_empty(),
        "{moved} of {made_count} reports moved ({held_count} held); {} difference(s), the first \
         {}:\n{}\n(UPDATE_GOLDEN=1 rewrites {GOLDEN} after review; `git diff` shows the same)",
        found.len(),
        found.len().min(SHOWN),
        found
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(made_count > 3_000, "the corpora hold {made_count} reports");
}
