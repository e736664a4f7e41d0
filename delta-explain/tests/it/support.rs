//! Shared helpers: where the fixtures are, how to run the binary, golden files.

pub use testkit::{Run, copy_table, fixtures, taxi};

/// Runs `delta-explain` with `args`.
pub fn run(args: &[&str]) -> Run {
    testkit::run_binary(env!("CARGO_BIN_EXE_delta-explain"), args)
}

/// Runs with `--format json` and parses the document; the run must succeed.
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--format", "json"]);
    let r = run(&all);
    assert_eq!(r.code, 0, "delta-explain {args:?} failed: {}", r.stderr);
    assert!(r.stderr.is_empty(), "no stderr on success: {}", r.stderr);
    parse_report(&r.stdout)
}

/// Parses a printed JSON report and validates it against docs/report.schema.json. Every JSON
/// document the suite reads goes through here, so the schema cannot drift from the output.
pub fn parse_report(stdout: &str) -> serde_json::Value {
    let doc: serde_json::Value =
        serde_json::from_str(stdout).unwrap_or_else(|e| panic!("stdout is JSON ({e}): {stdout}"));
    assert_valid_report(&doc);
    doc
}

/// The schema at `path` (from the workspace root), compiled.
fn compile_schema(path: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(testkit::workspace_root().join(path))
        .unwrap_or_else(|e| panic!("{path} is readable: {e}"));
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::draft202012::new(&schema).unwrap_or_else(|e| panic!("{path} compiles: {e}"))
}

/// Asserts that `doc` is valid under `validator`, the schema at `path`.
fn assert_valid(validator: &jsonschema::Validator, path: &str, doc: &serde_json::Value) {
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "the document violates {path}:\n{}\n{doc:#}",
        errors.join("\n")
    );
}

/// The report schema, compiled once per test binary.
pub fn report_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| compile_schema("docs/report.schema.json"))
}

pub fn assert_valid_report(doc: &serde_json::Value) {
    assert_valid(report_validator(), "docs/report.schema.json", doc);
}

/// Validates an advice (`delta-explain advise --format json`) against docs/advise.schema.json.
pub fn assert_valid_advice(doc: &serde_json::Value) {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| compile_schema("docs/advise.schema.json"));
    assert_valid(validator, "docs/advise.schema.json", doc);
}

/// Validates a doctor's page (`delta-explain doctor --format json`) against
/// docs/doctor.schema.json.
pub fn assert_valid_doctor(doc: &serde_json::Value) {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| compile_schema("docs/doctor.schema.json"));
    assert_valid(validator, "docs/doctor.schema.json", doc);
}

/// The paths of the files a verbose report keeps, in its order.
pub fn kept_paths(doc: &serde_json::Value) -> Vec<&str> {
    doc["files"]
        .as_array()
        .expect("a verbose report lists its files")
        .iter()
        .filter(|f| f["kept"] == true)
        .map(|f| f["path"].as_str().expect("a path"))
        .collect()
}

/// The codes of a report's `analysis.hazards` or `analysis.notes` (`field`).
pub fn analysis_codes<'a>(doc: &'a serde_json::Value, field: &str) -> Vec<&'a str> {
    doc["analysis"][field]
        .as_array()
        .expect("an analysis list")
        .iter()
        .map(|n| n["code"].as_str().expect("a code"))
        .collect()
}

/// Compares `actual` with the golden file `name` under tests/it/golden. With
/// `UPDATE_GOLDEN=1` the file is rewritten instead. Lines naming the table path are
/// normalized first: the fixtures' location differs between machines.
pub fn assert_golden(name: &str, actual: &str) {
    let actual: String = actual
        .lines()
        .map(|l| {
            if l.starts_with("Delta table: ") {
                "Delta table: <taxi-nyc>"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let path = testkit::workspace_root()
        .join("delta-explain/tests/it/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &actual).expect("golden file written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "golden file {} is missing; run with UPDATE_GOLDEN=1",
            path.display()
        )
    });
    assert_eq!(
        actual, expected,
        "golden {name} differs (UPDATE_GOLDEN=1 rewrites it after review)"
    );
}
