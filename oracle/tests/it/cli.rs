//! `delta-oracle`: its output, and its errors on bad input (one line naming the file).

use testkit::{copy_table, fixtures, taxi};

use crate::support::{run, run_json};

#[test]
fn lists_matching_files_and_the_statistics_kept_set() {
    let doc = run_json(&[
        &taxi(),
        "-w",
        "pickup_date = '2024-01-03' AND trip_distance > 5",
    ]);
    assert_eq!(doc["live_files"], 20);
    assert_eq!(doc["matching_files"], 2);
    let files = doc["files"].as_array().unwrap();
    let matching: u64 = files
        .iter()
        .map(|f| f["matching_rows"].as_u64().unwrap())
        .sum();
    assert!(matching > 0);
    for f in files {
        if f["matching_rows"].as_u64().unwrap() > 0 {
            assert_eq!(
                f["kept_by_statistics"], true,
                "statistics pruning never drops a matching file: {f}"
            );
        }
    }
    let text = run(&[&taxi(), "-w", "trip_distance > 8"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains("Live files: 20"), "{}", text.stdout);
}

/// A predicate may start with a minus sign: `-w '-x > 0'` is the predicate, not a flag.
#[test]
fn a_predicate_may_start_with_a_minus_sign() {
    let negated = run_json(&[&taxi(), "-w", "-trip_distance < -5"]);
    let plain = run_json(&[&taxi(), "--where", "trip_distance > 5"]);
    assert_eq!(negated["matching_files"], plain["matching_files"]);
    assert!(plain["matching_files"].as_u64().unwrap() > 0);
}

fn check_error(args: &[&str], code: i32, fragment: &str) {
    testkit::assert_error(&run(args), &format!("{args:?}"), code, fragment);
}

#[test]
fn bad_predicates_exit_2() {
    let t = taxi();
    for (predicate, fragment) in [
        ("trip_distance >", "invalid predicate"),
        ("nosuch = 1", "nosuch"),
        ("trip_distance + 1", "not a boolean"),
        ("", "empty"),
    ] {
        check_error(&[&t, "-w", predicate], 2, fragment);
    }
    check_error(&[&t], 2, "--where");
}

type Damage = fn(&std::path::Path);

#[test]
fn broken_tables_exit_3_naming_the_file() {
    let cases: &[(&str, Damage, &str)] = &[
        (
            "taxi-nyc",
            |t| {
                std::fs::write(
                    t.join("_delta_log/00000000000000000002.json"),
                    "{\"add\": {\"path\": trunc",
                )
                .unwrap()
            },
            "00000000000000000002.json",
        ),
        (
            "taxi-nyc",
            |t| std::fs::remove_file(t.join("_delta_log/00000000000000000001.json")).unwrap(),
            "00000000000000000001.json",
        ),
        (
            "real/multi-part-checkpoint",
            |t| {
                std::fs::remove_file(t.join(
                    "_delta_log/00000000000000000001.checkpoint.0000000002.0000000002.parquet",
                ))
                .unwrap()
            },
            "00000000000000000001.checkpoint.0000000002.0000000002.parquet",
        ),
        (
            "real/multi-part-checkpoint",
            |t| {
                let p = t.join(
                    "_delta_log/00000000000000000001.checkpoint.0000000001.0000000002.parquet",
                );
                let bytes = std::fs::read(&p).unwrap();
                std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
            },
            "00000000000000000001.checkpoint.0000000001.0000000002.parquet",
        ),
        (
            "real/basic_partitioned",
            |t| remove_first_data_file(t),
            ".parquet",
        ),
        (
            "real/basic_partitioned",
            |t| truncate_first_data_file(t),
            ".parquet",
        ),
    ];
    for (table, damage, names) in cases {
        let (_dir, copy) = copy_table(&fixtures().join(table));
        damage(&copy);
        let location = copy.to_string_lossy().into_owned();
        check_error(&[&location, "-w", "true"], 3, names);
    }
    check_error(
        &[&fixtures().join("nope").to_string_lossy(), "-w", "true"],
        3,
        "no such directory",
    );
}

fn first_data_file(t: &std::path::Path) -> std::path::PathBuf {
    let mut found: Vec<std::path::PathBuf> = walk(t)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    found.retain(|p| !p.to_string_lossy().contains("_delta_log"));
    found.sort();
    found.remove(0)
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p))
        } else {
            out.push(p)
        }
    }
    out
}

fn remove_first_data_file(t: &std::path::Path) {
    std::fs::remove_file(first_data_file(t)).unwrap();
}

fn truncate_first_data_file(t: &std::path::Path) {
    let p = first_data_file(t);
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() - 10]).unwrap();
}

/// `--row-groups`: the same report, each file's matching rows split by row group, the split
/// adding up to the file's matching rows; on every fixture and a file of many row groups.
#[test]
fn row_groups_split_each_files_matching_rows() {
    let dir = tempfile::tempdir().unwrap();
    crate::support::write_table(dir.path(), 1000, 100, None);
    let many = dir.path().to_string_lossy().into_owned();
    let mut cases: Vec<(String, String)> = vec![(many.clone(), "id % 3 = 0 AND id < 450".into())];
    for table in testkit::all_tables() {
        let name = table.file_name().unwrap().to_string_lossy().into_owned();
        for p in crate::support::corpus_predicates(&name) {
            cases.push((table.to_string_lossy().into_owned(), p));
        }
    }
    let mut split = 0;
    for (table, predicate) in &cases {
        let plain = run(&[table, "-w", predicate, "--format", "json"]);
        let grouped = run(&[table, "-w", predicate, "--format", "json", "--row-groups"]);
        assert_eq!(
            grouped.code, plain.code,
            "{table}: {predicate}: {}",
            grouped.stderr
        );
        if plain.code != 0 {
            continue;
        }
        let plain: serde_json::Value = serde_json::from_str(&plain.stdout).unwrap();
        let mut grouped: serde_json::Value = serde_json::from_str(&grouped.stdout).unwrap();
        for f in grouped["files"].as_array_mut().unwrap() {
            let groups = f
                .as_object_mut()
                .unwrap()
                .remove("matching_row_groups")
                .expect("every file has its row groups");
            let groups = groups.as_array().unwrap();
            let sum: u64 = groups
                .iter()
                .map(|g| g["matching_rows"].as_u64().unwrap())
                .sum();
            assert_eq!(
                Some(sum),
                f["matching_rows"].as_u64(),
                "{table}: {predicate}"
            );
            assert!(
                groups
                    .windows(2)
                    .all(|w| w[0]["row_group"].as_u64() < w[1]["row_group"].as_u64()),
                "{table}: {predicate}: {groups:?}"
            );
            assert!(groups.iter().all(|g| g["matching_rows"].as_u64() > Some(0)));
            split += usize::from(groups.len() > 1);
        }
        assert_eq!(grouped, plain, "{table}: {predicate}");
    }
    assert!(split > 0, "no file had matches in several row groups");
    // Ten row groups of 100 ids: `id % 3 = 0 AND id < 450` matches in the first five.
    let doc = run_json(&[&many, "-w", "id % 3 = 0 AND id < 450", "--row-groups"]);
    let groups: Vec<(u64, u64)> = doc["files"][0]["matching_row_groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["row_group"].as_u64().unwrap(),
                g["matching_rows"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(groups, vec![(0, 34), (1, 33), (2, 33), (3, 34), (4, 16)]);
    let text = run(&[&many, "-w", "id < 150", "--row-groups"]);
    assert!(
        text.stdout.contains("by row group  0: 100, 1: 50"),
        "{}",
        text.stdout
    );
}

/// An AND and an OR of thousands of leaves, as the explainer accepts them: answered, the same
/// files as the short predicate each is equivalent to (DataFusion evaluates an expression by
/// recursion, one level per operator: every thread that evaluates runs on a deep stack).
#[test]
fn long_and_and_or_chains_are_answered() {
    let t = taxi();
    let matching = |predicate: &str| run_json(&[&t, "-w", predicate])["matching_files"].as_u64();
    // Leaves on values no row holds (no tip of 1,000 or more): each `!=` is TRUE for every
    // non-NULL tip, each `=` FALSE; the last leaf decides. Short, to stay within one argument
    // (128 KiB).
    assert_eq!(matching("tip_amount >= 1000"), Some(0));
    let and_expected = matching("tip_amount IS NOT NULL AND trip_distance > 5");
    let or_expected = matching("trip_distance > 5");
    assert!(or_expected > Some(0), "a leaf that tells files apart");
    // 1,000 leaves: past the depth that overflowed a default stack (334 worked); 5,000 take
    // minutes in a debug build and are left to release runs.
    let leaves = 1_000;
    {
        let absent = |op: &'static str| {
            (0..leaves - 1).map(move |i| format!("tip_amount {op} {}", 1000 + i))
        };
        let and: Vec<String> = absent("!=").chain(["trip_distance > 5".into()]).collect();
        assert_eq!(
            matching(&and.join(" AND ")),
            and_expected,
            "AND of {leaves} leaves"
        );
        let or: Vec<String> = absent("=").chain(["trip_distance > 5".into()]).collect();
        assert_eq!(
            matching(&or.join(" OR ")),
            or_expected,
            "OR of {leaves} leaves"
        );
    }
}

/// Signs before signed numbers, as the explainer reads them (`- -5` is 5).
#[test]
fn stacked_signs_read_as_the_number() {
    let t = taxi();
    let matching = |predicate: &str| run_json(&[&t, "-w", predicate])["matching_files"].as_u64();
    let five = matching("trip_distance > 5");
    for predicate in [
        "trip_distance > - -5",
        "trip_distance > -(-5)",
        "trip_distance > + +5",
        "trip_distance > - - - -5",
    ] {
        assert_eq!(matching(predicate), five, "`{predicate}`");
    }
    assert_eq!(
        matching("trip_distance > - - -5"),
        matching("trip_distance > -5")
    );
}

/// The protocol's gates on the tables `delta-explain` is held to (testkit::gates): refused
/// with exit 3 naming the column or the version; the version before the change and the
/// allowed widenings are read.
#[test]
fn the_protocols_gates_refuse_what_no_reader_may_read() {
    let gates = testkit::gates::gate_tables();
    let before = testkit::gates::VERSION_BEFORE.to_string();
    for case in &gates.cases {
        let table = case.table.to_str().unwrap();
        let latest = run(&[table, "-w", "passenger_count > 2"]);
        match case.refused {
            Some(fragment) => testkit::assert_error(&latest, case.name, 3, fragment),
            None => assert_eq!(latest.code, 0, "{}: {}", case.name, latest.stderr),
        }
        let doc = run_json(&[table, "--at-version", &before, "-w", "passenger_count > 2"]);
        assert_eq!(doc["live_files"], 20, "{}", case.name);
        if case.refused.is_none() {
            // Read as version 3 is: the same files match and the same statistics keep them
            // (a column mapping applied where the protocol says to ignore it would read every
            // value as NULL and find no statistics).
            let predicate = "passenger_count > 5";
            let latest = run_json(&[table, "-w", predicate]);
            let earlier = run_json(&[table, "--at-version", &before, "-w", predicate]);
            assert_eq!(earlier["matching_files"], 8, "{}", case.name);
            for key in ["matching_files", "kept_by_statistics"] {
                assert_eq!(latest[key], earlier[key], "{}: {key}", case.name);
            }
        }
    }
}
