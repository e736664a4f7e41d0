//! Regressions of the real writers' behaviours (pitfalls 21-24), one generated table a class:
//! for the predicates drawn from each table's own data, the kernel asked the predicate as
//! written (no guard) drops a file that holds a matching row, which shows the generator knob
//! reproduces the class; explain-core with its guards never does under `--strict`, and in the
//! default mode only where it announces a NaN hazard.

use explain_compiler::ast::CmpOp;
use explain_compiler::guards::{Effect, Guard};
use explain_compiler::lower::{kernel_can_evaluate, to_kernel};
use explain_core::explain::{CompiledPredicate, ExplainOptions, explain_with};
use explain_core::file_set::FileSet;
use generators::catalog::named;
use generators::predicates::Pools;
use generators::spec::Kind;
use generators::writer::write_table;
use harness::subject::Subject;

/// The comparisons each column's literals are tried with.
const OPS: [CmpOp; 6] = [
    CmpOp::Eq,
    CmpOp::NotEq,
    CmpOp::Lt,
    CmpOp::LtEq,
    CmpOp::Gt,
    CmpOp::GtEq,
];

/// Files holding matching rows, per kernel file.
fn matching(subject: &Subject, predicate: &str) -> Vec<bool> {
    let rows = subject
        .oracle
        .matching_rows(predicate)
        .unwrap_or_else(|e| panic!("{}: oracle refuses `{predicate}`: {e}", subject.name));
    subject
        .oracle_index
        .iter()
        .map(|i| i.is_some_and(|i| rows[i] > 0))
        .collect()
}

/// What the kernel keeps when asked the predicate as written: no guard, the partition
/// evaluator left out (nothing here needs it).
/// `Err`: the kernel's scan fails (a partition value its parser refuses).
fn unguarded_kept(
    subject: &Subject,
    predicate: &str,
) -> Result<Vec<bool>, explain_compiler::error::ExplainError> {
    let compiled = CompiledPredicate::compile(predicate, &subject.kernel).unwrap();
    let (evaluable, _) = compiled.normalized.weaken(&kernel_can_evaluate);
    subject
        .kernel
        .survivors(to_kernel(&evaluable, subject.kernel.columns()).unwrap())
}

struct Tally {
    predicates: usize,
    unguarded_drops: usize,
    /// Predicates the kernel asked as written fails on (its scan stops).
    unguarded_failures: usize,
    announced: usize,
}

/// Checks every `column op literal` of the table's pools, plus `extra` predicates.
fn check_table(name: &str, columns: &[&str], extra: &[&str]) -> Tally {
    let spec = named(name).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = write_table(&spec, dir.path()).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let subject = Subject::load(&format!("gen/{name}"), &location).unwrap();
    let pools = Pools::from_table(&spec, &written);
    let mut predicates: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    for pool in pools
        .columns
        .iter()
        .filter(|p| columns.contains(&p.column.dotted().as_str()))
    {
        for literal in &pool.literals {
            for op in OPS {
                predicates.push(format!("{} {} {literal}", pool.column, op.sql()));
            }
        }
    }
    let mut tally = Tally {
        predicates: 0,
        unguarded_drops: 0,
        unguarded_failures: 0,
        announced: 0,
    };
    for predicate in &predicates {
        let matches = matching(&subject, predicate);
        let dropped = |kept: &FileSet| (0..kept.len()).find(|&i| matches[i] && !kept[i]);
        tally.predicates += 1;
        match unguarded_kept(&subject, predicate) {
            Ok(kept) if dropped(&FileSet::from(kept.clone())).is_some() => {
                tally.unguarded_drops += 1
            }
            Ok(_) => {}
            Err(_) => tally.unguarded_failures += 1,
        }
        let strict = explain_with(
            &subject.kernel,
            Some(predicate),
            ExplainOptions { strict: true },
        )
        .unwrap();
        if let Some(i) = dropped(&strict.kept) {
            panic!(
                "gen/{name}: --strict drops {} holding a match of `{predicate}`",
                subject.kernel.path(i)
            );
        }
        let default = explain_with(
            &subject.kernel,
            Some(predicate),
            ExplainOptions { strict: false },
        )
        .unwrap();
        if let Some(i) = dropped(&default.kept) {
            let announced = default
                .hazards
                .iter()
                .any(|h| h.guard == Guard::NanBounds && h.effect == Effect::Announced);
            assert!(
                announced,
                "gen/{name}: drops {} holding a match of `{predicate}` unannounced",
                subject.kernel.path(i)
            );
            tally.announced += 1;
        }
    }
    tally
}

#[test]
fn negative_nan_is_announced_by_default_and_left_out_under_strict() {
    let t = check_table("nan-negative", &["x", "y"], &[]);
    assert!(
        t.unguarded_drops > 0,
        "the knob reproduces the class: some `<` drops a file whose match is a negative NaN"
    );
    assert!(
        t.announced > 0,
        "default mode follows the kernel and announces it ({} predicates)",
        t.predicates
    );
}

#[test]
fn signed_zero_partitions_are_one_value() {
    let extra = [
        "pf = 0",
        "pf >= 0",
        "pf <= 0",
        "pf IN (0, 5)",
        "pf BETWEEN 0 AND 0",
        "pf = -0.0",
        "NOT (pf != 0)",
    ];
    let t = check_table("signed-zero-partitions", &["pf", "x"], &extra);
    assert!(
        t.unguarded_drops > 0,
        "the knob reproduces the class: `pf = 0` drops the `-0` partitions without the guard"
    );
    // The partition phase stays exact: the zero rewrite is an equivalence, not a loss.
    let dir = tempfile::tempdir().unwrap();
    write_table(&named("signed-zero-partitions").unwrap(), dir.path()).unwrap();
    let subject =
        Subject::load("gen/signed-zero-partitions", &dir.path().to_string_lossy()).unwrap();
    let ex = explain_with(&subject.kernel, Some("pf = 0"), ExplainOptions::default()).unwrap();
    assert_eq!(ex.phases[0].confidence.label(), "exact");
    assert_eq!(
        ex.final_files(),
        6,
        "the three spellings of zero, two files each"
    );
}

#[test]
fn decimal_bounds_written_through_a_double_are_widened() {
    let t = check_table(
        "decimal-f64-bounds",
        &["w"],
        &[
            "w = 1.000000000000000001",
            "w > 1",
            "w >= 1.000000000000000001",
        ],
    );
    assert!(
        t.unguarded_drops > 0,
        "the knob reproduces the class: a rounded bound drops a matching file"
    );
    assert_eq!(t.announced, 0, "no NaN on a decimal column");
}

#[test]
fn legacy_tie_breaker_string_max_is_cut_before_the_supplementary_character() {
    let t = check_table("strings-legacy-tie-breaker", &["s"], &[]);
    assert!(
        t.unguarded_drops > 0,
        "the knob reproduces the class: a U+FFFD max below the real max drops a match"
    );
    assert_eq!(t.announced, 0);
}

/// A checkpoint that records statistics only as `stats_parsed` (`checkpoint-struct-stats`)
/// prunes exactly as its twin with JSON statistics (`checkpoint-classic`, the same seed, the
/// same files and bounds): the replay reads the struct, so no file is left without
/// statistics and every phase scan over the cached rows sees them.
#[test]
fn struct_only_checkpoint_statistics_prune_as_json_ones() {
    let load = |name: &str, dir: &tempfile::TempDir| {
        let spec = generators::catalog::named_with_seed(name, 20261130).unwrap();
        let written = write_table(&spec, dir.path()).unwrap();
        let location = dir.path().to_string_lossy().into_owned();
        let subject = Subject::load(&format!("gen/{name}"), &location).unwrap();
        (spec, written, subject)
    };
    let (json_dir, struct_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (spec, written, json) = load("checkpoint-classic", &json_dir);
    let (_, _, parsed) = load("checkpoint-struct-stats", &struct_dir);
    let paths = |s: &Subject| -> Vec<String> { s.kernel.paths().map(str::to_string).collect() };
    assert_eq!(
        paths(&json),
        paths(&parsed),
        "the twins hold the same files"
    );
    for file in 0..parsed.kernel.files().len() {
        assert!(
            parsed.kernel.files()[file].has_stats && parsed.kernel.stats_json(file).is_some(),
            "{}: statistics read from stats_parsed",
            parsed.kernel.path(file)
        );
    }
    let pools = Pools::from_table(&spec, &written);
    let (mut predicates, mut pruning) = (0usize, 0usize);
    for pool in &pools.columns {
        for literal in &pool.literals {
            for op in OPS {
                let predicate = format!("{} {} {literal}", pool.column, op.sql());
                let Ok(compiled) = CompiledPredicate::compile(&predicate, &json.kernel) else {
                    continue;
                };
                let (evaluable, _) = compiled.normalized.weaken(&kernel_can_evaluate);
                let Ok(kernel) = to_kernel(&evaluable, json.kernel.columns()) else {
                    continue;
                };
                let from_json = json.kernel.survivors(kernel.clone()).unwrap();
                let from_struct = parsed.kernel.survivors(kernel).unwrap();
                // The kernel writes a timestamp of the struct as JSON in milliseconds (both
                // bounds cut down, the max then widened by the kernel as for any JSON
                // timestamp), so there the struct side may keep more, never less.
                if matches!(pool.kind, Kind::Timestamp | Kind::TimestampNtz) {
                    for (file, (s, j)) in from_struct.iter().zip(&from_json).enumerate() {
                        assert!(
                            *s || !*j,
                            "`{predicate}`: file {file} pruned from the struct only"
                        );
                    }
                } else {
                    assert_eq!(from_struct, from_json, "`{predicate}`");
                }
                let matches = matching(&parsed, &predicate);
                for (file, (kept, holds)) in from_struct.iter().zip(&matches).enumerate() {
                    assert!(*kept || !*holds, "`{predicate}`: file {file} holds a match");
                }
                predicates += 1;
                pruning += usize::from(from_json.iter().any(|kept| !kept));
            }
        }
    }
    assert!(
        predicates > 50 && pruning > 10,
        "{predicates} predicates, {pruning} pruning"
    );
}

/// Decimal partition values as writers spell them (pitfall 29: `2.5` in decimal(10,2),
/// delta-rs 1.6's `0.-25`) make the kernel's scan fail on any predicate over the column. The
/// explanation never stops on them (exit 3 was the old answer): the kernel's scans leave that
/// column's leaves out, the partition evaluator decides every other value and keeps the files
/// it cannot read, and a note names the values. The oracle reads `0.-25` as NULL (Spark's
/// cast with ANSI off) and `2.5` as 2.50.
#[test]
fn misspelt_decimal_partitions_are_distrusted_not_fatal() {
    use explain_compiler::classify::PARTITION_VALUE_DISTRUSTED;
    let extra = [
        "pdec = 2.5",
        "pdec = 2.50",
        "pdec = -0.25",
        "pdec IS NULL",
        "pdec IS NOT NULL AND v > 0",
        "pdec > 1 OR pl = 1",
        "pdec IN (1.13, 2.5)",
    ];
    let t = check_table("partition-spellings", &["pdec", "pl"], &extra);
    assert!(
        t.predicates > extra.len(),
        "the pools' literals were tried too"
    );
    assert!(
        t.unguarded_failures > 0,
        "the knob reproduces the class: the kernel's scan fails on the column"
    );
    let dir = tempfile::tempdir().unwrap();
    write_table(&named("partition-spellings").unwrap(), dir.path()).unwrap();
    let subject = Subject::load("gen/partition-spellings", &dir.path().to_string_lossy()).unwrap();
    let ex = explain_with(
        &subject.kernel,
        Some("pdec = 3.39"),
        ExplainOptions::default(),
    )
    .unwrap();
    let note = ex
        .notes
        .iter()
        .find(|n| n.code == PARTITION_VALUE_DISTRUSTED)
        .expect("a note names the values the kernel cannot read");
    assert!(
        note.message.contains("0.-25") && note.message.contains("2.5"),
        "{}",
        note.message
    );
    // Pay narrowly: the readable values are still decided, so the other partitions go.
    let matching = matching(&subject, "pdec = 3.39")
        .iter()
        .filter(|m| **m)
        .count();
    assert!(matching > 0);
    assert!(
        ex.final_files() < subject.kernel.files().len(),
        "partitions the evaluator can read are pruned"
    );
}

/// Spark folds a comparison with a number beyond BIGINT's range to TRUE before reading, NULL
/// rows included (measured on pyspark, ANSI on and off; `engine_readings` holds the engines to
/// it): on the `null-files` table, whose first file of each partition is NULL in every data
/// column beside the NULL partition, every file is kept, default and `--strict`, with the
/// literal noted. The knob reproduces the class: the exact reading (`x IS NOT NULL`) that the
/// literal was rewritten to before drops the NULL files.
#[test]
fn comparisons_spark_folds_to_true_keep_the_null_files() {
    use explain_compiler::retype::LITERAL_OUT_OF_RANGE;

    let dir = tempfile::tempdir().unwrap();
    write_table(&named("null-files").unwrap(), dir.path()).unwrap();
    let subject = Subject::load("gen/null-files", &dir.path().to_string_lossy()).unwrap();
    let total = subject.kernel.files().len();
    for column in ["i8", "i16", "i32", "i64", "p_int"] {
        let exact = unguarded_kept(&subject, &format!("{column} IS NOT NULL")).unwrap();
        assert!(
            exact.iter().any(|kept| !kept),
            "the knob reproduces the class: `{column} IS NOT NULL` drops a NULL file"
        );
        for predicate in [
            format!("{column} > -9223372036854775809"),
            format!("{column} >= -9223372036854775809"),
            format!("{column} < 9223372036854775808"),
            format!("{column} <= 9223372036854775808"),
            format!("{column} > -9223372036854775809.5"),
            format!("-9223372036854775809 < {column}"),
            format!("{column} BETWEEN -9223372036854775809 AND 9223372036854775808"),
            format!("NOT ({column} < -9223372036854775809)"),
        ] {
            for strict in [false, true] {
                let ex = explain_with(&subject.kernel, Some(&predicate), ExplainOptions { strict })
                    .unwrap();
                assert_eq!(
                    ex.final_files(),
                    total,
                    "`{predicate}` (strict {strict}) keeps every file"
                );
                assert!(
                    ex.notes.iter().any(|n| n.code == LITERAL_OUT_OF_RANGE),
                    "`{predicate}`: the literal is noted: {:?}",
                    ex.notes
                );
            }
        }
    }
}

/// `st IS NULL` on a struct column: a NULL struct has every field NULL, so the predicate is
/// conjoined with each leaf `IS NULL`, whose null counts prune the files where a leaf is never
/// NULL. On the `null-files` table without other NULLs (the first file of each partition NULL
/// in every data column, struct included), the files kept are exactly the files holding a
/// NULL struct, default and `--strict`; `st IS NOT NULL` implies nothing of the leaves and
/// keeps every file.
#[test]
fn a_struct_is_null_prunes_by_its_leaves_null_counts() {
    let spec = generators::spec::TableSpec {
        null_fraction: 0.0,
        ..named("null-files").unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    write_table(&spec, dir.path()).unwrap();
    let subject = Subject::load("gen/null-files", &dir.path().to_string_lossy()).unwrap();
    let total = subject.kernel.files().len();
    for predicate in [
        "st IS NULL",
        "NOT (st IS NOT NULL)",
        "st IS NULL AND i32 IS NULL",
        "st IS NULL OR st.a = 2147483647",
    ] {
        let matches = matching(&subject, predicate);
        let holding = matches.iter().filter(|m| **m).count();
        assert!(
            holding > 0 && holding < total,
            "`{predicate}` matches in some files, not all ({holding} of {total})"
        );
        for strict in [false, true] {
            let ex =
                explain_with(&subject.kernel, Some(predicate), ExplainOptions { strict }).unwrap();
            let kept: Vec<bool> = (0..total).map(|i| ex.kept[i]).collect();
            assert_eq!(
                kept, matches,
                "`{predicate}` (strict {strict}) keeps exactly the files holding a NULL struct"
            );
        }
    }
    for strict in [false, true] {
        let ex = explain_with(
            &subject.kernel,
            Some("st IS NOT NULL"),
            ExplainOptions { strict },
        )
        .unwrap();
        assert_eq!(ex.final_files(), total, "`st IS NOT NULL` keeps every file");
    }
}
