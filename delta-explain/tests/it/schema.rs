//! The JSON Schema of the report (docs/report.schema.json): versioned with the report, and
//! strict enough to reject a document that drifts from it. Every document the suite parses is
//! validated in `support::parse_report`.

use serde_json::{Value, json};

use crate::support::{assert_valid_report, report_validator, run_json, taxi};

#[test]
fn the_schema_carries_the_report_version() {
    let text =
        std::fs::read_to_string(testkit::workspace_root().join("docs/report.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    let version = explain_core::report::SCHEMA_VERSION;
    assert_eq!(schema["properties"]["schema_version"]["const"], version);
    assert!(
        schema["$id"].as_str().unwrap().ends_with(version),
        "$id names version {version}"
    );
}

#[test]
fn every_section_validates_together() {
    let doc = run_json(&[
        &taxi(),
        "-w",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
        "-v",
        "--limit",
        "2",
        "--layers",
        "--explain-why",
        "--min-pruning",
        "50",
        "--assert-stats",
        "--strict",
    ]);
    for key in [
        "files",
        "files_truncated",
        "layers",
        "diagnoses",
        "assertions",
        "result",
    ] {
        assert!(!doc[key].is_null(), "{key} is present");
    }
}

/// Each mutation of a valid report must be rejected: the schema is a check that can fail.
#[test]
fn the_schema_rejects_drift() {
    let valid = run_json(&[
        &taxi(),
        "-w",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
        "-v",
        "--layers",
    ]);
    assert_valid_report(&valid);
    type Mutation = (&'static str, fn(&mut Value));
    let mutations: &[Mutation] = &[
        ("a required field is missing", |d| {
            d.as_object_mut().unwrap().remove("total_files");
        }),
        ("an unknown top-level field", |d| d["surprise"] = json!(1)),
        ("a confidence outside the enum", |d| {
            d["analysis"]["confidence"] = json!("sure")
        }),
        ("a phase with an unknown name", |d| {
            d["phases"][0]["name"] = json!("Magic")
        }),
        ("a negative count", |d| d["final_files"] = json!(-1)),
        ("a pct above 100", |d| d["total_pruning_pct"] = json!(120.0)),
        ("another schema version", |d| {
            d["schema_version"] = json!("0.4.0")
        }),
        ("a file without kept", |d| {
            d["files"][0].as_object_mut().unwrap().remove("kept");
        }),
        ("a note code in lower case", |d| {
            d["analysis"]["notes"] = json!([{"code": "nan", "message": "m"}])
        }),
        ("a tree node of unknown kind", |d| {
            d["layers"]["parsed"]["tree"]["kind"] = json!("xor")
        }),
        ("a fourth survivor set", |d| {
            let extra = d["layers"]["survivors"][0].clone();
            d["layers"]["survivors"].as_array_mut().unwrap().push(extra);
        }),
        ("accepted values that are not strings", |d| {
            d["analysis"]["partition_values_accepted"]["pickup_date"] = json!([3]);
        }),
    ];
    for (what, mutate) in mutations {
        let mut doc = valid.clone();
        mutate(&mut doc);
        assert!(
            !report_validator().is_valid(&doc),
            "the schema should reject {what}"
        );
    }
}

/// Hazard codes are listed once (`guards::HAZARD_CODES`): the schema's enum and the semantics'
/// table must say the same.
#[test]
fn hazard_codes_agree_with_the_schema_and_the_docs() {
    let root = testkit::workspace_root();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("docs/report.schema.json")).unwrap(),
    )
    .unwrap();
    let listed: Vec<&str> = schema["$defs"]["hazards"]["items"]["properties"]["code"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        listed,
        explain_compiler::guards::HAZARD_CODES,
        "schema enum of hazard codes"
    );
    let semantics = std::fs::read_to_string(root.join("docs/semantics.md")).unwrap();
    let section = semantics
        .split("## Hazards and guards")
        .nth(1)
        .expect("docs/semantics.md has a Hazards and guards section");
    for code in explain_compiler::guards::HAZARD_CODES {
        assert!(
            section.contains(&format!("| `{code}` |")),
            "docs/semantics.md's hazard table lists {code}"
        );
    }
}

/// Diagnosis codes are listed once (`diagnose::DIAGNOSIS_CODES`): the schema's enums (under
/// `diagnoses`, which `explain` refers to) and the semantics' table must say the same.
#[test]
fn diagnosis_codes_agree_with_the_schema_and_the_docs() {
    let root = testkit::workspace_root();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("docs/report.schema.json")).unwrap(),
    )
    .unwrap();
    let listed: Vec<&str> =
        schema["properties"]["diagnoses"]["items"]["properties"]["code"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
    assert_eq!(listed, explain_core::diagnose::DIAGNOSIS_CODES);
    assert_eq!(
        schema["properties"]["explain"]["$ref"],
        "#/properties/diagnoses"
    );
    let semantics = std::fs::read_to_string(root.join("docs/semantics.md")).unwrap();
    let section = semantics
        .split("## Diagnoses (`--explain-why`)")
        .nth(1)
        .expect("docs/semantics.md has a Diagnoses section");
    for code in explain_core::diagnose::DIAGNOSIS_CODES {
        assert!(
            section.contains(&format!("| `{code}` |")),
            "docs/semantics.md's diagnosis table lists {code}"
        );
    }
}
