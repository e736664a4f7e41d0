//! The peer delta-explain's consumers, run unchanged against this binary's reports: the jq
//! recipes its documentation gives, the outputs its GitHub Action reads, and every field of its
//! published report (0.5/0.6) with the peer's name and JSON type.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::{run, taxi};

/// `jq ARGS` on `input`: (exit code, stdout).
fn jq(args: &[&str], input: &str) -> (i32, String) {
    let mut child = Command::new("jq")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("jq runs (a Debian package)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.stderr.is_empty(),
        "jq {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn report(args: &[&str]) -> String {
    let table = taxi();
    let mut all = vec![table.as_str()];
    all.extend(args);
    all.extend(["--format", "json"]);
    let run = run(&all);
    assert!(matches!(run.code, 0 | 1), "{args:?}: {}", run.stderr);
    run.stdout
}

const PREDICATE: &str = "pickup_date = '2024-01-03' AND trip_distance > 5";

#[test]
fn the_peers_jq_recipes_read_our_reports() {
    // Gate on the overall result.
    let gated = report(&["-w", PREDICATE, "--min-pruning", "80"]);
    assert_eq!(jq(&["-e", r#".result == "pass""#], &gated).0, 0);
    // The survivor set as a file list.
    let verbose = report(&["-w", PREDICATE, "--verbose"]);
    let (code, kept) = jq(&["-r", ".files[] | select(.kept) | .path"], &verbose);
    assert_eq!((code, kept.lines().count()), (0, 2), "{kept}");
    // The files data skipping removed, by the peer's phase name.
    let (code, skipped) = jq(
        &[
            "-r",
            r#".files[] | select(.pruned_by == "Data skipping (min/max statistics)") | .path"#,
        ],
        &verbose,
    );
    assert_eq!((code, skipped.lines().count()), (0, 2), "{skipped}");
    // Fail a pipeline when deletion vectors appear.
    let plain = report(&[]);
    assert_eq!(
        jq(
            &[
                "-e",
                ".table_features.deletion_vectors.files_with_deletion_vectors == 0"
            ],
            &plain
        )
        .0,
        0
    );
    assert_eq!(
        jq(
            &["-e", ".table_features.deletion_vectors.enabled == false"],
            &plain
        )
        .0,
        0
    );
    // The pruning percentage, and the diagnoses under `explain`.
    let why = report(&["-w", "trip_distance > 5", "--explain-why"]);
    assert_eq!(jq(&[".total_pruning_pct"], &why).1.trim(), "55");
    let (code, codes) = jq(&["-r", ".explain[].code"], &why);
    assert_eq!(code, 0);
    assert!(codes.lines().any(|c| c == "NO_PARTITION_FILTER"), "{codes}");
    // Statistics coverage and table features as the peer types them.
    assert_eq!(jq(&[".stats.pct"], &plain).1.trim(), "100");
    assert_eq!(jq(&[".stats.total_files"], &plain).1.trim(), "20");
    assert_eq!(
        jq(&[".table_features.column_mapping_mode"], &plain)
            .1
            .trim(),
        "null"
    );
    assert_eq!(
        jq(
            &["-c", ".table_features.unrecognized_writer_features"],
            &plain
        )
        .1
        .trim(),
        "[]"
    );
    // The buckets are strings (or null) that string filters accept.
    let (code, lower) = jq(
        &["-r", ".analysis.partition_safe | ascii_downcase"],
        &verbose,
    );
    assert_eq!((code, lower.trim()), (0, "pickup_date = '2024-01-03'"));
    let (code, none) = jq(&["-r", ".analysis.unsplittable // \"none\""], &verbose);
    assert_eq!((code, none.trim()), (0, "none"));
}

/// The peer's GitHub Action writes its outputs with these three filters.
#[test]
fn the_peers_action_outputs_read_our_reports() {
    let doc = report(&["-w", PREDICATE, "--min-pruning", "95"]);
    assert_eq!(jq(&["-r", ".total_pruning_pct"], &doc).1.trim(), "90");
    assert_eq!(jq(&["-r", ".final_files"], &doc).1.trim(), "2");
    assert_eq!(jq(&["-r", ".result"], &doc).1.trim(), "fail");
    let ungated = report(&["-w", PREDICATE]);
    assert_eq!(jq(&["-r", ".result"], &ungated).1.trim(), "null");
}

/// JSON types as the peer's schema names them.
#[derive(Clone, Copy, Debug)]
enum T {
    Str,
    Int,
    Num,
    Bool,
    Arr,
    Obj,
}

fn is(value: &Value, t: T) -> bool {
    match t {
        T::Str => value.is_string(),
        T::Int => value.is_u64() || value.is_i64(),
        T::Num => value.is_number(),
        T::Bool => value.is_boolean(),
        T::Arr => value.is_array(),
        T::Obj => value.is_object(),
    }
}

/// Every field of the peer's published report: its JSON pointer, the types it may take (null
/// where the peer allows it), from `schemas/report-v0.5.schema.json` and the 0.6 additions.
const PEER_FIELDS: &[(&str, &[T], bool)] = &[
    ("/schema_version", &[T::Str], false),
    ("/tool_version", &[T::Str], false),
    ("/elapsed_ms", &[T::Int], false),
    ("/table", &[T::Str], false),
    ("/version", &[T::Int], false),
    ("/predicate", &[T::Str], true),
    ("/total_files", &[T::Int], false),
    ("/final_files", &[T::Int], false),
    ("/total_pruning_pct", &[T::Num], false),
    ("/analysis", &[T::Obj], true),
    ("/analysis/partition_safe", &[T::Str], true),
    ("/analysis/partition_exact", &[T::Str], true),
    ("/analysis/stats_safe", &[T::Str], true),
    ("/analysis/stats_coverage", &[T::Arr], true),
    ("/analysis/unsplittable", &[T::Str], true),
    ("/analysis/confidence", &[T::Str], false),
    ("/analysis/notes", &[T::Arr], false),
    ("/table_features", &[T::Obj], false),
    (
        "/table_features/deletion_vectors/enabled",
        &[T::Bool],
        false,
    ),
    (
        "/table_features/deletion_vectors/files_with_deletion_vectors",
        &[T::Int],
        false,
    ),
    ("/table_features/column_mapping_mode", &[T::Str], true),
    ("/table_features/clustering_columns", &[T::Arr], true),
    ("/table_features/in_commit_timestamps", &[T::Bool], false),
    (
        "/table_features/unrecognized_writer_features",
        &[T::Arr],
        false,
    ),
    ("/table_features/notes", &[T::Arr], false),
    ("/stats/mode", &[T::Str], false),
    ("/stats/files_with_stats", &[T::Int], false),
    ("/stats/total_files", &[T::Int], false),
    ("/stats/pct", &[T::Num], false),
    ("/phases", &[T::Arr], false),
    ("/phases/0/name", &[T::Str], false),
    ("/phases/0/confidence", &[T::Str], false),
    ("/phases/0/predicate", &[T::Str], false),
    ("/phases/0/input_files", &[T::Int], false),
    ("/phases/0/output_files", &[T::Int], false),
    ("/phases/0/pruned_files", &[T::Int], false),
    ("/phases/0/pruning_pct", &[T::Num], false),
    ("/assertions", &[T::Arr], false),
    ("/assertions/0/name", &[T::Str], false),
    ("/assertions/0/threshold", &[T::Num], false),
    ("/assertions/0/actual", &[T::Num], false),
    ("/assertions/0/result", &[T::Str], false),
    ("/assertions/1/name", &[T::Str], false),
    ("/assertions/1/missing_count", &[T::Int], false),
    ("/assertions/1/result", &[T::Str], false),
    ("/result", &[T::Str], true),
    ("/files", &[T::Arr], false),
    ("/files/0/path", &[T::Str], false),
    ("/files/0/size_bytes", &[T::Int], false),
    ("/files/0/partition_values", &[T::Obj], false),
    ("/files/0/num_records", &[T::Int], true),
    ("/files/0/has_stats", &[T::Bool], false),
    ("/files/0/kept", &[T::Bool], false),
    ("/files/0/pruned_by", &[T::Str], true),
    ("/files_truncated", &[T::Bool], false),
    ("/explain", &[T::Arr], false),
    ("/explain/0/code", &[T::Str], false),
    ("/explain/0/severity", &[T::Str], false),
    ("/explain/0/message", &[T::Str], false),
    ("/explain/0/suggestion", &[T::Str], true),
];

#[test]
fn every_field_of_the_peers_report_is_here_with_its_type() {
    let doc: Value = serde_json::from_str(&report(&[
        "-w",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
        "-v",
        "--limit",
        "3",
        "--explain-why",
        "--min-pruning",
        "50",
        "--assert-stats",
    ]))
    .unwrap();
    for (pointer, types, nullable) in PEER_FIELDS {
        let value = doc
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{pointer} is missing"));
        let ok = (value.is_null() && *nullable) || types.iter().any(|t| is(value, *t));
        assert!(ok, "{pointer}: {value} is not {types:?}");
    }
    // The peer's enums.
    let phase_names: Vec<&str> = doc["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        phase_names,
        ["Partition pruning", "Data skipping (min/max statistics)"]
    );
    assert_eq!(doc["assertions"][0]["name"], "min_pruning");
    assert_eq!(doc["assertions"][1]["name"], "stats_complete");
    // Our own version series, never one of the peer's.
    let version = doc["schema_version"].as_str().unwrap();
    assert!(version.starts_with("dx-"), "{version}");
}
