//! Filters bound at query time: `current_date()`, `current_timestamp()` and `now()` are bound
//! before planning, as every engine binds them, to the time of the run or to `--now`; the
//! report says each value bound, and the predicate prunes as the literal it stands for.

use crate::support::{run, run_json};

const TODAY: &str = "day = current_date()";

/// A table of three days (2024-01-02 to 2024-01-04), a file each, partitioned by the DATE
/// `day`, with a TIMESTAMP `ts` whose bounds are that day's hours 08:00 to 18:00 (UTC). The
/// log alone: the explanation reads no data file.
fn days() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let schema = delta_commit::schema_string(&[
        serde_json::json!({"name": "day", "type": "date", "nullable": true, "metadata": {}}),
        serde_json::json!({"name": "ts", "type": "timestamp", "nullable": true, "metadata": {}}),
    ]);
    let mut actions = vec![
        delta_commit::protocol(&[], &[]),
        delta_commit::metadata("days", &schema, &["day"], Default::default()),
    ];
    for day in ["2024-01-02", "2024-01-03", "2024-01-04"] {
        let stats = format!(
            "{{\"numRecords\":10,\"minValues\":{{\"ts\":\"{day}T08:00:00.000Z\"}},\"maxValues\":{{\"ts\":\"{day}T18:00:00.000Z\"}},\"nullCount\":{{\"ts\":0}}}}"
        );
        actions.push(delta_commit::add(
            &format!("day={day}/part-0.parquet"),
            &[("day".to_string(), Some(day.to_string()))],
            1000,
            Some(&stats),
            Default::default(),
        ));
    }
    delta_commit::write_commit(&dir.path().join("_delta_log"), 0, &actions).unwrap();
    dir
}

#[test]
fn current_date_prunes_as_the_date_it_is_bound_to() {
    let table = days();
    let table = table.path().to_str().unwrap();
    let bound = run_json(&[table, "-w", TODAY, "--now", "2024-01-03T12:00:00Z"]);
    let literal = run_json(&[table, "-w", "day = DATE '2024-01-03'"]);
    // Before: `current_date()` was outside the pruning language and all 3 files were kept.
    assert_eq!(bound["final_files"], 1);
    for field in [
        "final_files",
        "final_records",
        "phases",
        "normalized_predicate",
    ] {
        assert_eq!(bound[field], literal[field], "{field}");
    }
    assert_eq!(bound["predicate"], TODAY, "the predicate as written");
    assert_eq!(
        bound["bindings"],
        serde_json::json!([{"function": "current_date()", "value": "DATE '2024-01-03'"}])
    );
    // Without a binding the document has no `bindings`.
    assert!(literal.get("bindings").is_none());
    let page = run(&[table, "-w", TODAY, "--now", "2024-01-03"]);
    assert_eq!(page.code, 0, "{}", page.stderr);
    assert!(
        page.stdout
            .contains("Bound:       current_date() = DATE '2024-01-03'"),
        "{}",
        page.stdout
    );
}

#[test]
fn current_timestamp_and_now_bind_to_the_microsecond_and_an_offset_is_read() {
    let table = days();
    let table = table.path().to_str().unwrap();
    let report = run_json(&[
        table,
        "-w",
        "day <= CURRENT_DATE AND ts > now() AND ts < current_timestamp",
        "--now",
        "2024-01-03 14:30:00.5+02:00",
    ]);
    // `ts > 12:30 on the 3rd` keeps the 3rd and the 4th; `ts < ...` the 2nd and the 3rd; the
    // day the 2nd and the 3rd: the 3rd alone.
    assert_eq!(report["final_files"], 1);
    let values: Vec<(&str, &str)> = report["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["function"].as_str().unwrap(),
                b["value"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        values,
        [
            ("CURRENT_DATE", "DATE '2024-01-03'"),
            ("now()", "TIMESTAMP '2024-01-03 12:30:00.500000'"),
            (
                "current_timestamp",
                "TIMESTAMP '2024-01-03 12:30:00.500000'"
            ),
        ]
    );
}

#[test]
fn a_bad_now_is_bad_input_and_without_one_the_run_binds_its_own_time() {
    let table = days();
    let table = table.path().to_str().unwrap();
    let bad = run(&[table, "-w", TODAY, "--now", "yesterday"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("yesterday"), "{}", bad.stderr);
    assert_eq!(bad.stderr.trim().lines().count(), 1, "{}", bad.stderr);
    // The run's own day: a date of this century, said in the report.
    // (Today holds no file of the table: the run warns that no file holds the day.)
    let today = run(&[table, "-w", TODAY, "--format", "json"]);
    assert_eq!(today.code, 0, "{}", today.stderr);
    let today: serde_json::Value = serde_json::from_str(&today.stdout).unwrap();
    let value = today["bindings"][0]["value"].as_str().unwrap();
    assert!(value.starts_with("DATE '20"), "{value}");
    // Many predicates bind each alike.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.sql");
    std::fs::write(&file, format!("{TODAY}\nday > DATE '2024-01-02'\n")).unwrap();
    let many = run(&[
        table,
        "--predicates",
        file.to_str().unwrap(),
        "--now",
        "2024-01-03",
        "--format",
        "json",
    ]);
    assert_eq!(many.code, 0, "{}", many.stderr);
    let many: serde_json::Value = serde_json::from_str(&many.stdout).unwrap();
    assert_eq!(many[0]["bindings"][0]["value"], "DATE '2024-01-03'");
    assert_eq!(many[0]["predicate"], TODAY);
    assert!(many[1].get("bindings").is_none());
}

/// taxi-nyc's `pickup_date` is a string partition column: `pickup_date = current_date()`
/// binds to a DATE, which the engines compare with the column's values read as dates. With
/// `--now` on 2024-01-03 the partition of that day alone is kept; without, the run's day is
/// bound and said.
#[test]
fn taxis_string_partition_is_pruned_by_the_bound_date() {
    let taxi = testkit::taxi();
    let report = run_json(&[
        &taxi,
        "-w",
        "pickup_date = current_date()",
        "--now",
        "2024-01-03T12:00:00Z",
        "--verbose",
    ]);
    assert_eq!(report["final_files"], 4, "{}", report["phases"]);
    for f in report["files"].as_array().unwrap() {
        let day = f["partition_values"]["pickup_date"].as_str().unwrap();
        assert_eq!(f["kept"] == true, day == "2024-01-03", "{f}");
    }
    assert_eq!(
        report["bindings"],
        serde_json::json!([{"function": "current_date()", "value": "DATE '2024-01-03'"}])
    );
    // Without --now the run's own day is bound (no taxi partition holds it, which the
    // partition-value warning says) and said.
    let run_day = run(&[
        &taxi,
        "-w",
        "pickup_date = current_date()",
        "--format",
        "json",
    ]);
    assert_eq!(run_day.code, 0, "{}", run_day.stderr);
    assert!(
        run_day.stderr.contains("no file holds"),
        "{}",
        run_day.stderr
    );
    let now: serde_json::Value = serde_json::from_str(&run_day.stdout).unwrap();
    let bound = now["bindings"][0]["value"].as_str().unwrap();
    assert!(bound.starts_with("DATE '20"), "{bound}");
    assert_eq!(now["final_files"], 0, "{}", now["phases"]);
    // An order against the bound date prunes alike.
    let after = run_json(&[
        &taxi,
        "-w",
        "pickup_date > current_date()",
        "--now",
        "2024-01-03",
    ]);
    assert_eq!(after["final_files"], 8, "2024-01-04 and 2024-01-05");
}

/// A string partition column against a date, over the spellings engines read as dates
/// (measured with Spark 4 ANSI off: `2024-1-3`, ` 2024-01-03` and `2024-01-03T05:00:00` all
/// read as 2024-01-03): a value spelled yyyy-mm-dd is decided by its text, any other is kept.
#[test]
fn a_string_partition_against_a_date_keeps_every_spelling_an_engine_may_read_as_it() {
    let dir = tempfile::tempdir().unwrap();
    let fields = [
        serde_json::json!({"name": "day", "type": "string", "nullable": true, "metadata": {}}),
        serde_json::json!({"name": "v", "type": "long", "nullable": true, "metadata": {}}),
    ];
    let schema = delta_commit::schema_string(&fields);
    let days = [
        "2024-01-03",
        "2024-1-3",
        " 2024-01-03",
        "2024-01-03T05:00:00",
        "2024-01-04",
        "2024-01-02",
        "abcd-ef-gh",
    ];
    let mut actions = vec![
        delta_commit::protocol_for_schema(&schema),
        delta_commit::metadata("days", &schema, &["day"], Default::default()),
    ];
    for (i, day) in days.iter().enumerate() {
        actions.push(delta_commit::add(
            &format!("f{i}.parquet"),
            &[("day".to_string(), Some(day.to_string()))],
            100,
            Some("{\"numRecords\":1}"),
            Default::default(),
        ));
    }
    delta_commit::write_commit(&dir.path().join("_delta_log"), 0, &actions).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let kept = |predicate: &str| -> Vec<String> {
        let r = run(&[&location, "-w", predicate, "--verbose", "--format", "json"]);
        assert_eq!(r.code, 0, "{predicate}: {}", r.stderr);
        let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        report["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["kept"] == true)
            .map(|f| f["partition_values"]["day"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        kept("day = DATE '2024-01-03'"),
        [
            "2024-01-03",
            "2024-1-3",
            " 2024-01-03",
            "2024-01-03T05:00:00"
        ]
    );
    assert_eq!(
        kept("day > DATE '2024-01-03'"),
        [
            "2024-1-3",
            " 2024-01-03",
            "2024-01-03T05:00:00",
            "2024-01-04",
            "abcd-ef-gh"
        ],
        "a spelling of the shape that is no date is kept where its text orders after"
    );
    assert_eq!(
        kept("NOT (day = DATE '2024-01-03')"),
        [
            "2024-1-3",
            " 2024-01-03",
            "2024-01-03T05:00:00",
            "2024-01-04",
            "2024-01-02",
            "abcd-ef-gh"
        ]
    );
}
