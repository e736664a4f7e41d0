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

/// The doctor's codes are listed once (`doctor::HAZARD_CODES`, `doctor::WORKLOAD_CODES`, the
/// known writer hazards `doctor::writers::KNOWN`): its schema's enums and docs/doctor.md's
/// tables say the same.
#[test]
fn doctor_codes_agree_with_the_schema_and_the_docs() {
    use explain_core::doctor::{HAZARD_CODES, WORKLOAD_CODES, writers::KNOWN};
    let root = testkit::workspace_root();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("docs/doctor.schema.json")).unwrap(),
    )
    .unwrap();
    let listed = |at: &serde_json::Value| -> Vec<String> {
        at["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("an enum: {at}"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let p = &schema["properties"];
    assert_eq!(
        listed(&p["hazards"]["items"]["properties"]["code"]),
        HAZARD_CODES
    );
    let reasons: Vec<&str> = explain_core::diagnose::DIAGNOSIS_CODES
        .iter()
        .chain(WORKLOAD_CODES)
        .copied()
        .collect();
    assert_eq!(
        listed(&p["workload"]["items"]["properties"]["reasons"]["items"]["properties"]["code"]),
        reasons
    );
    let ids: Vec<&str> = KNOWN.iter().map(|k| k.id).collect();
    assert_eq!(
        listed(&p["writer_hazards"]["items"]["properties"]["id"]),
        ids
    );
    let docs = std::fs::read_to_string(root.join("docs/doctor.md")).unwrap();
    for code in HAZARD_CODES.iter().chain(WORKLOAD_CODES) {
        assert!(
            docs.contains(&format!("| `{code}` |")),
            "docs/doctor.md lists {code}"
        );
    }
    let table = docs
        .split("## Known writer hazards")
        .nth(1)
        .expect("docs/doctor.md has the writers' table");
    let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), KNOWN.len(), "a row per known hazard: {rows:?}");
    for (row, known) in rows.iter().zip(KNOWN) {
        assert!(
            row.starts_with(&format!("| `{}` | {} |", known.id, known.writer)),
            "{row} is {}'s row",
            known.id
        );
        for tracker in known.trackers {
            assert!(row.contains(tracker), "{row} names {tracker}");
        }
    }
}
