//! The error contract: exit 2 for usage or invalid input, 3 for table or I/O errors; stdout
//! empty and exactly one line on stderr; never a panic.

use std::path::Path;

use crate::support::{copy_table, fixtures, run, taxi};

fn check_error(args: &[&str], code: i32, fragment: &str) {
    testkit::assert_error(&run(args), &format!("{args:?}"), code, fragment);
}

#[test]
fn invalid_input_exits_2() {
    let t = taxi();
    let deep = format!("{}trip_distance > 1{}", "(".repeat(400), ")".repeat(400));
    let long_and = (0..3000)
        .map(|i| format!("trip_distance > {i}"))
        .collect::<Vec<_>>()
        .join(" AND ");
    let cases: &[(&[&str], &str)] = &[
        (&[&t, "-w", "trip_distance >"], "malformed SQL"),
        (&[&t, "-w", "trip_distance > 5 5"], "malformed SQL"),
        (&[&t, "-w", ""], "empty"),
        (&[&t, "-w", "nosuch = 1"], "unknown column `nosuch`"),
        (
            &[&t, "-w", "UPPER(nosuch) = 'x'"],
            "unknown column `nosuch`",
        ),
        (&[&t, "-w", &deep], "nests more than 100 levels"),
        (&[&t, "--format", "yaml"], "invalid value 'yaml'"),
        (&[&t, "--bogus"], "unexpected argument"),
        (&[&t, "--at-version", "-1"], "unexpected argument"),
        (&[], "required"),
        (&[&t, "--limit", "3"], "--verbose"),
        (&[&t, "--strict"], "--where"),
        (
            &[&t, "--predicates", "/nonexistent", "-w", "x > 1"],
            "cannot be used with",
        ),
        (
            &[&t, "--predicates", "/nonexistent"],
            "cannot read /nonexistent",
        ),
        (&[&t, "--min-pruning", "50"], "--where"),
        (
            &[&t, "-w", "trip_distance > 1", "--min-pruning", "101"],
            "percentage",
        ),
        (
            &[&t, "-w", "trip_distance > 1", "--min-pruning", "lots"],
            "percentage",
        ),
        (
            &[&t, "-w", "trip_distance > 1", "--limit", "-3", "-v"],
            "unexpected argument",
        ),
    ];
    for (args, fragment) in cases {
        check_error(args, 2, fragment);
    }
    // A very long (but flat) conjunction is fine: it is not deep.
    let r = run(&[&t, "-w", &long_and]);
    assert_eq!(r.code, 0, "a wide predicate explains: {}", r.stderr);
}

/// A literal of a type its column cannot hold is not bad input where an engine runs the
/// comparison (Spark with ANSI off casts almost anything): each is read as those engines read it, with a `CROSS_TYPE_COMPARISON` note,
/// and the files that reading keeps (Spark matches no row for a word against a number; the
/// others depend on the data and keep every file). harness/tests/it/engine_readings.rs holds
/// each against the engines themselves.
#[test]
fn literals_an_engine_runs_are_read_not_refused() {
    let t = taxi();
    for (predicate, kept, note) in [
        ("trip_distance > 'far'", 0, true),
        ("passenger_count = 'two'", 0, true),
        ("trip_distance = TRUE", 5, true),
        ("pickup_date = 5", 20, true),
        (
            "tpep_pickup_datetime > '2024-01-03T00:00:00+01:00'",
            20,
            true,
        ),
        ("tpep_pickup_datetime > 'yesterday'", 20, true),
        ("tpep_pickup_datetime > '2024-01-03T10'", 20, true),
        ("passenger_count = 2Y AND trip_distance > 1.5D", 15, false),
        ("pickup_date = \"2024-01-03\"", 4, false),
        ("\"trip_distance\" > 5", 9, false),
    ] {
        let r = run(&[&t, "-w", predicate, "--format", "json"]);
        assert_eq!(r.code, 0, "{predicate}: {}", r.stderr);
        let json: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
        assert_eq!(
            json["final_files"], kept,
            "{predicate}: {}",
            json["normalized_predicate"]
        );
        let notes = json["analysis"]["notes"].to_string();
        assert_eq!(
            notes.contains("CROSS_TYPE_COMPARISON"),
            note,
            "{predicate}: {notes}"
        );
    }
}

#[test]
fn table_errors_exit_3() {
    let missing = fixtures()
        .join("no-such-table")
        .to_string_lossy()
        .into_owned();
    let not_delta = fixtures()
        .join("taxi-nyc/pickup_date=2024-01-03")
        .to_string_lossy()
        .into_owned();
    let cases: &[(&[&str], &str)] = &[
        (&[&missing, "-w", "x = 1"], "cannot read table"),
        (&[&not_delta, "-w", "x = 1"], "not a Delta table"),
        (
            &[&taxi(), "--at-version", "99", "-w", "trip_distance > 1"],
            "cannot read table",
        ),
    ];
    for (args, fragment) in cases {
        check_error(args, 3, fragment);
    }
}

/// A damaged copy of a fixture: how to damage it, and the file the error must name.
struct Damage {
    table: &'static str,
    damage: fn(&Path),
    names: &'static str,
}

fn log_file(table: &Path, name: &str) -> std::path::PathBuf {
    table.join("_delta_log").join(name)
}

const MULTI_PART_2: &str = "00000000000000000001.checkpoint.0000000002.0000000002.parquet";

#[test]
fn a_broken_log_exits_3_naming_the_file() {
    let cases = [
        Damage {
            table: "taxi-nyc",
            damage: |t| {
                std::fs::write(
                    log_file(t, "00000000000000000002.json"),
                    "{\"add\": {\"path\": truncated",
                )
                .unwrap()
            },
            names: "`_delta_log/00000000000000000002.json` line 1 is not a JSON action",
        },
        Damage {
            table: "taxi-nyc",
            damage: |t| std::fs::remove_file(log_file(t, "00000000000000000001.json")).unwrap(),
            names: "the commit of version 1 is missing",
        },
        Damage {
            table: "real/multi-part-checkpoint",
            damage: |t| std::fs::remove_file(log_file(t, MULTI_PART_2)).unwrap(),
            names: "`_delta_log/00000000000000000001.checkpoint.0000000002.0000000002.parquet` is missing",
        },
        Damage {
            table: "real/multi-part-checkpoint",
            damage: |t| {
                let path = log_file(t, MULTI_PART_2);
                let bytes = std::fs::read(&path).unwrap();
                std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
            },
            names: "`_delta_log/00000000000000000001.checkpoint.0000000002.0000000002.parquet` is truncated",
        },
    ];
    for case in cases {
        let (_dir, table) = copy_table(&fixtures().join(case.table));
        (case.damage)(&table);
        let table = table.to_string_lossy().into_owned();
        check_error(&[&table, "-w", "true"], 3, "cannot read table");
        check_error(&[&table, "-w", "true"], 3, case.names);
    }
}

#[test]
fn nothing_is_written_into_the_table() {
    let before = snapshot_tree(&fixtures().join("taxi-nyc"));
    let r = run(&[
        &taxi(),
        "-w",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
    ]);
    assert_eq!(r.code, 0);
    assert_eq!(
        snapshot_tree(&fixtures().join("taxi-nyc")),
        before,
        "the table directory is unchanged"
    );
}

fn snapshot_tree(dir: &std::path::Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path().to_string_lossy().into_owned(), meta.len()));
            }
        }
    }
    out.sort();
    out
}

/// Each hint, as the one line a user reads (golden): what a mistyped flag or column probably
/// meant, a string written in double quotes, a version past the table's end, the parser's
/// message without repeated words.
#[test]
fn hints_say_what_was_meant() {
    let t = taxi();
    let columns = "tpep_pickup_datetime, tpep_dropoff_datetime, passenger_count, trip_distance, PULocationID, DOLocationID, payment_type, fare_amount, tip_amount, total_amount, pickup_date";
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec![&t, "--wher", "x > 1"],
            "unexpected argument '--wher' found; tip: a similar argument exists: '--where'".into(),
        ),
        (
            vec![&t, "-w", "fare_amout > 10"],
            format!(
                "unknown column `fare_amout` (did you mean `fare_amount`?); the table has: {columns}"
            ),
        ),
        (
            // Standing alone no engine runs it (Spark reads a string, which is no predicate;
            // the others a column); compared, it is Spark's string (errors.rs above).
            vec![&t, "-w", "\"2024-01-03\""],
            format!(
                "unknown column `2024-01-03` (double quotes make an identifier in SQL; for a string write '2024-01-03'); the table has: {columns}"
            ),
        ),
        (
            vec![&t, "-w", "zzz > 1"],
            format!("unknown column `zzz`; the table has: {columns}"),
        ),
        (
            vec![&t, "-w", "trip_distance >"],
            "invalid predicate: malformed SQL: expected an expression at the end of the predicate"
                .into(),
        ),
    ];
    for (args, expected) in cases {
        let run = run(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}");
        assert_eq!(
            run.stderr.trim_end(),
            format!("delta-explain: {expected}"),
            "{args:?}"
        );
        for word in ["error error", "SQL: sql", "parser error", "Expected: "] {
            assert!(!run.stderr.contains(word), "{args:?}: {}", run.stderr);
        }
    }
    // A version past the table's end is a table error (exit 3) that says where the log ends.
    let run = run(&[&t, "--at-version", "99"]);
    assert_eq!(run.code, 3);
    assert_eq!(
        run.stderr.trim_end(),
        format!(
            "delta-explain: cannot read table {t}: --at-version 99: the table has no version 99; its latest is 3"
        )
    );
}

/// A partition literal no file has prunes everything: said by default (a warning line, the
/// report's `warnings`), diagnosed with the nearest present values, and gated by --min-files.
#[test]
fn a_partition_literal_no_file_has_is_called_out() {
    let t = taxi();
    let warning = "no file holds a `pickup_date` value the predicate accepts, so every file is pruned; present values nearest the literal: 2024-01-03, 2024-01-01, 2024-01-02";
    let run = run(&[
        &t,
        "-w",
        "pickup_date = '2024-1-3'",
        "--format",
        "json",
        "--explain-why",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr.trim_end(),
        format!("delta-explain: warning: {warning}")
    );
    let doc = crate::support::parse_report(&run.stdout);
    assert_eq!(doc["final_files"], 0);
    assert_eq!(doc["warnings"], serde_json::json!([warning]));
    let codes: Vec<&str> = doc["diagnoses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"PARTITION_VALUE_ABSENT"), "{codes:?}");
    // The gate fails the run; the report is still printed.
    let gated = crate::support::run(&[&t, "-w", "pickup_date = '2024-1-3'", "--min-files", "1"]);
    assert_eq!(gated.code, 1);
    assert!(
        gated
            .stdout
            .contains("min_files: 0 file(s) kept, required 1: fail")
    );
    assert!(gated.stderr.contains(
        "delta-explain: gate min_files failed: 0 file(s) kept, fewer than the required 1"
    ));
    // A literal that is present: no warning, and the gate passes.
    let fine = crate::support::run(&[&t, "-w", "pickup_date = '2024-01-03'", "--min-files", "1"]);
    assert_eq!(fine.code, 0, "{}", fine.stderr);
    assert!(!fine.stderr.contains("warning"), "{}", fine.stderr);
}

/// `--assert-stats` without a predicate checks every column the table collects statistics
/// for, not merely that files have some statistics.
#[test]
fn assert_stats_without_a_predicate_checks_every_statistics_column() {
    let table = fixtures().join("real/delta-1.2.1-only-struct-stats");
    let table = table.to_str().unwrap();
    let run = run(&[table, "--assert-stats", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let doc = crate::support::parse_report(&run.stdout);
    let gate = &doc["assertions"][0];
    assert_eq!(gate["name"], "stats_complete");
    assert!(gate["columns"].as_array().unwrap().len() > 3, "{gate}");
    assert_eq!(gate["missing_count"], 11, "{gate}");
    let on_taxi = crate::support::run(&[&taxi(), "--assert-stats", "--format", "json"]);
    assert_eq!(on_taxi.code, 0, "{}", on_taxi.stderr);
    let doc = crate::support::parse_report(&on_taxi.stdout);
    assert_eq!(
        doc["assertions"][0]["columns"].as_array().unwrap().len(),
        10
    );
}

/// `_last_checkpoint` is a hint: naming a checkpoint the log does not hold (a crashed or
/// cleaned-up writer), the log is read by listing, from the newest complete checkpoint before
/// it or from the first commit, with a `LAST_CHECKPOINT_IGNORED` note, and explains the same
/// files as the intact table; with neither to start from, exit 3 in one line.
#[test]
fn a_checkpoint_hint_that_points_at_nothing_is_read_past() {
    const TABLE: &str = "real/basic-with-checkpoint";
    const CHECKPOINT: &str = "00000000000000000010.checkpoint.parquet";
    let report = |table: &str| {
        let doc = crate::support::run_json(&[table, "-w", "id > 5", "-v"]);
        let files: Vec<(String, bool)> = doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().unwrap().to_string(),
                    f["kept"].as_bool().unwrap(),
                )
            })
            .collect();
        let notes: Vec<String> = doc["table_features"]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["code"].as_str().unwrap().to_string())
            .collect();
        (doc["version"].clone(), files, notes)
    };
    let intact = report(&fixtures().join(TABLE).to_string_lossy());
    assert!(!intact.2.contains(&"LAST_CHECKPOINT_IGNORED".to_string()));
    type Damage = fn(&Path);
    let cases: [(&str, Damage); 2] = [
        // The hinted checkpoint deleted: from the first commit.
        ("from commit 0", |t| {
            std::fs::remove_file(log_file(t, CHECKPOINT)).unwrap()
        }),
        // The hint ahead of the checkpoints: from the checkpoint of version 10.
        ("from the older checkpoint", |t| {
            std::fs::write(
                log_file(t, "_last_checkpoint"),
                r#"{"version":12,"size":24}"#,
            )
            .unwrap()
        }),
    ];
    for (what, damage) in cases {
        let (_dir, table) = copy_table(&fixtures().join(TABLE));
        damage(&table);
        let (version, files, notes) = report(&table.to_string_lossy());
        assert_eq!((&version, &files), (&intact.0, &intact.1), "{what}");
        assert!(
            notes.contains(&"LAST_CHECKPOINT_IGNORED".to_string()),
            "{what}: {notes:?}"
        );
    }
    // Nothing to start from: the hinted checkpoint and the first commits gone.
    let (_dir, table) = copy_table(&fixtures().join(TABLE));
    std::fs::remove_file(log_file(&table, CHECKPOINT)).unwrap();
    for v in 0..3 {
        std::fs::remove_file(log_file(&table, &format!("{v:020}.json"))).unwrap();
    }
    check_error(
        &[&table.to_string_lossy(), "-w", "true"],
        3,
        "neither an older complete checkpoint nor its first commit",
    );
    // A torn multi-part checkpoint the hint vouches for: exit 3, the missing part named.
    let (_dir, table) = copy_table(&fixtures().join("real/multi-part-checkpoint"));
    const PART: &str = "00000000000000000001.checkpoint.0000000002.0000000002.parquet";
    std::fs::remove_file(log_file(&table, PART)).unwrap();
    check_error(&[&table.to_string_lossy(), "-w", "true"], 3, PART);
}
