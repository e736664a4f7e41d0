//! The JSON report of every corpus predicate on its fixture, and `advise` on taxi-nyc, held
//! byte for byte: a move of code between modules or crates changes no report.
//!
//! golden/reports.tsv has one line per report: the table, the predicate's place in its corpus
//! file, and the SHA-256 of the report as printed (with `elapsed_ms` set to 0 and the table's
//! path replaced by its name, the two fields that differ between runs and machines).
//! `UPDATE_GOLDEN=1` rewrites it; a change must be one the commit means.

use std::fmt::Write as _;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use crate::support::{assert_valid_advice, assert_valid_report, fixtures, run, taxi};

const GOLDEN: &str = "delta-explain/tests/it/golden/reports.tsv";

/// The fixture a corpus file belongs to.
fn fixture_of(corpus: &str) -> String {
    if corpus == "taxi-nyc" {
        taxi()
    } else {
        fixtures().join("real").join(corpus).display().to_string()
    }
}

/// `doc` with the run-dependent fields replaced, printed as the binary prints it.
fn normalized(mut doc: serde_json::Value, table: &str) -> String {
    if let Some(object) = doc.as_object_mut() {
        if object.contains_key("elapsed_ms") {
            object.insert("elapsed_ms".into(), 0.into());
        }
        if object.contains_key("table") {
            object.insert("table".into(), table.into());
        }
    }
    serde_json::to_string_pretty(&doc).expect("a report prints")
}

fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .fold(String::new(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

/// Every report, as `(key, normalized text)`, in a fixed order.
fn reports() -> Vec<(String, String)> {
    let corpora = testkit::workspace_root().join("corpora");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpora)
        .expect("corpora/ is readable")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut out = Vec::new();
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
        let docs: Vec<serde_json::Value> =
            serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{name}: JSON ({e})"));
        for (i, doc) in docs.into_iter().enumerate() {
            // A report (an error entry in its place has no schema version).
            if doc.get("schema_version").is_some() {
                assert_valid_report(&doc);
            }
            out.push((format!("{name}\t{}", i + 1), normalized(doc, &name)));
        }
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
    let doc: serde_json::Value = serde_json::from_str(&advice.stdout).expect("advice is JSON");
    assert_valid_advice(&doc);
    out.push(("advise:taxi-nyc\t0".into(), normalized(doc, "taxi-nyc")));
    out
}

#[test]
fn every_corpus_report_and_the_taxi_advice_are_unchanged() {
    let reports = reports();
    let actual: String = reports
        .iter()
        .map(|(key, text)| format!("{key}\t{}\n", digest(text)))
        .collect();
    let path = testkit::workspace_root().join(GOLDEN);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &actual).expect("golden file written");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{GOLDEN} is missing; run with UPDATE_GOLDEN=1"));
    let expected: Vec<&str> = expected.lines().collect();
    let changed: Vec<String> = reports
        .iter()
        .zip(actual.lines())
        .enumerate()
        .filter(|(i, (_, line))| expected.get(*i) != Some(line))
        .take(3)
        .map(|(_, ((key, text), _))| format!("{key}:\n{text}"))
        .collect();
    assert!(
        changed.is_empty() && expected.len() == reports.len(),
        "{} reports held, {} made; the first that differ (UPDATE_GOLDEN=1 rewrites {GOLDEN} \
         after review):\n{}",
        expected.len(),
        reports.len(),
        changed.join("\n")
    );
}
