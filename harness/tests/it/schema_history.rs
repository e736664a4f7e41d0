//! Tables whose schema changes over their history (issue class: the log as it evolves),
//! walked version by version: column mapping in name and id modes, renamed after the first
//! commit of adds (two data columns swap names, partition columns and struct fields are
//! renamed), with statistics, `stats_parsed` and partition values under the physical names;
//! type widening of every kind the generator writes (the first files in the narrow Parquet
//! types, with narrow JSON statistics or a narrow `stats_parsed` checkpoint); a column dropped
//! and added again under its name; `delta.dataSkippingNumIndexedCols` changed to
//! `delta.dataSkippingStatsColumns` (each file records the columns its writer's settings
//! named). At every version, predicates drawn from that version's names are held to the oracle's rows,
//! default and `--strict`, through the entry point the command calls; the tightness (files
//! kept against files that match) is printed beside the counts.

use generators::catalog::named;
use generators::predicates::{Pools, sample_predicates};
use generators::writer::{spec_at, write_table, written_at};
use harness::checks::{Outcome, soundness};
use harness::subject::Subject;

/// Per table: (cases, passes, files, kept, matching), the last three summed over the cases.
fn walk(name: &str) -> (usize, usize, usize, usize, usize) {
    let spec = named(name).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = write_table(&spec, dir.path()).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let (mut cases, mut passes, mut files, mut kept, mut matching) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for version in 0..=written.version {
        let at = spec_at(&spec, version);
        let subject = Subject::load_at(&format!("gen/{name}@{version}"), &location, Some(version))
            .unwrap_or_else(|e| panic!("{name} at version {version}: {e}"));
        let seen = written_at(&spec, &written, version);
        let mut pools = Pools::from_table(&at, &seen);
        // The struct's fields are named by the pools as written after the rename; before the
        // first files there is no value to draw.
        if at.quirks.mapping.is_some() && at != spec || seen.files.is_empty() {
            pools.columns.retain(|p| p.column.path.len() == 1);
            pools.structs.clear();
        }
        let predicates = sample_predicates(&pools, 3, spec.seed ^ version, 40);
        for predicate in predicates.iter().map(ToString::to_string) {
            let case = soundness(&subject, &predicate);
            cases += 1;
            match &case.outcome {
                Outcome::Pass => {
                    passes += 1;
                    files += case.tightness.total;
                    kept += case.tightness.kept;
                    matching += case.tightness.matching;
                }
                other => failures.push(format!("{name}@{version}: `{predicate}`: {other:?}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    (cases, passes, files, kept, matching)
}

#[test]
fn every_version_of_a_renamed_table_keeps_every_matching_file() {
    for name in [
        "mapping-renames",
        "mapping-id",
        "mapping-readded",
        "mapping-id-parquet-names",
    ] {
        check_walk(name);
    }
}

#[test]
fn every_version_of_a_widened_table_keeps_every_matching_file() {
    for name in ["widening-history", "widening-checkpoint"] {
        check_walk(name);
    }
}

#[test]
fn every_version_of_a_table_with_changed_statistics_settings_keeps_every_matching_file() {
    for name in ["stats-settings-history", "mapping-stats-settings"] {
        check_walk(name);
    }
}

fn check_walk(name: &str) {
    let (cases, passes, files, kept, matching) = walk(name);
    println!(
        "{name}: {passes} of {cases} cases pass; {kept} of {files} files kept for {matching} matching"
    );
    assert!(
        cases >= 120,
        "{name}: every version draws predicates ({cases})"
    );
    // Statistics and partition values under physical names and narrow types are read: files
    // are pruned.
    assert!(
        kept < files,
        "{name}: nothing pruned ({kept} of {files} kept)"
    );
}

/// A checkpoint written before the change records statistics only as `stats_parsed`, in the
/// narrow types (date where the column is now timestamp_ntz, decimal(10,2) where it is now
/// decimal(38,18)), which the kernel leaves unread: they are read in their own types, so the
/// files it holds prune like the files written after it, on every widened column.
#[test]
fn a_checkpoint_before_a_widening_still_prunes_its_files() {
    let spec = named("widening-checkpoint").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = write_table(&spec, dir.path()).unwrap();
    let location = dir.path().to_string_lossy().into_owned();
    let subject = Subject::load_at("gen/widening-checkpoint", &location, None).unwrap();
    let narrow = written.files.len().div_ceil(spec.log.commits);
    for predicate in [
        "x > 9223372036854775806",
        "h < -2147483648",
        "dec > 99999999999999999999",
        "t < TIMESTAMP_NTZ '1900-01-01 00:00:00'",
        "f > 1e300",
    ] {
        let case = soundness(&subject, predicate);
        assert!(
            matches!(case.outcome, Outcome::Pass),
            "`{predicate}`: {:?}",
            case.outcome
        );
        assert_eq!(
            (case.tightness.kept, case.tightness.matching),
            (0, 0),
            "`{predicate}`: the {narrow} files of the narrow checkpoint are pruned too"
        );
    }
}

/// A recorded type change the protocol does not list (long -> double): both readers refuse
/// every version from the change on, naming the column and the change, and read the versions
/// before it, where every predicate keeps every matching file.
#[test]
fn a_change_the_protocol_does_not_list_is_refused_from_its_version_on() {
    for name in generators::catalog::REFUSED {
        let spec = named(name).unwrap();
        let from = spec.refused_from().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let written = write_table(&spec, dir.path()).unwrap();
        let location = dir.path().to_string_lossy().into_owned();
        for version in from..=written.version {
            let kernel = explain_core::replay::ReplayedTable::open(&location, Some(version));
            let oracle = oracle::log::Snapshot::open(&location, Some(version));
            let (Err(explainer), Err(oracle)) = (kernel.map(|_| ()), oracle.map(|_| ())) else {
                panic!("{name}@{version}: read although its type change must be refused");
            };
            for message in [explainer.to_string(), oracle.to_string()] {
                assert!(
                    message.contains("column `f`") && message.contains("long -> double"),
                    "{name}@{version}: the refusal names the column and the change: {message}"
                );
            }
        }
        let before = from - 1;
        let subject = Subject::load_at(name, &location, Some(before))
            .unwrap_or_else(|e| panic!("{name}@{before}: {e}"));
        let at = spec_at(&spec, before);
        let pools = Pools::from_table(&at, &written_at(&spec, &written, before));
        for predicate in sample_predicates(&pools, 3, spec.seed, 40) {
            let predicate = predicate.to_string();
            let case = soundness(&subject, &predicate);
            assert!(
                matches!(case.outcome, Outcome::Pass),
                "{name}@{before}: `{predicate}`: {:?}",
                case.outcome
            );
        }
    }
}

/// `st IS NULL` on a struct column (issue class: the log as it evolves, item 3): a struct is
/// NULL only where every leaf is, so a file where a leaf's `nullCount` is 0 holds no such row.
/// Before the rewrite the leaf was outside the language and every file was kept. At every
/// version of each schema-history table with a struct (under the name that version gives it),
/// on `null-files` (whole files NULL) and on a checkpoint holding only `stats_parsed`, each shape keeps every matching file, default and
/// `--strict`; the counts are printed, and `IS NULL` prunes files somewhere in the corpus.
#[test]
fn struct_is_null_keeps_every_matching_file_at_every_version() {
    let mut pruned_somewhere = false;
    let mut failures = Vec::new();
    for name in [
        "null-files",
        "checkpoint-struct-stats",
        "mapping-renames",
        "mapping-readded",
        "stats-settings-history",
        "mapping-stats-settings",
    ] {
        let spec = named(name).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let written = write_table(&spec, dir.path()).unwrap();
        let location = dir.path().to_string_lossy().into_owned();
        // Per shape: (files, kept, matching), summed over the versions.
        let mut sums = [(0, 0, 0); 3];
        for version in 0..=written.version {
            let at = spec_at(&spec, version);
            let Some(st) = at
                .columns
                .iter()
                .find(|c| c.kind == generators::spec::Kind::Struct)
            else {
                continue;
            };
            let subject =
                Subject::load_at(&format!("gen/{name}@{version}"), &location, Some(version))
                    .unwrap();
            let st = &st.name;
            let sibling = at
                .columns
                .iter()
                .find(|c| c.kind == generators::spec::Kind::Int64 && !c.partition)
                .map_or("true", |c| c.name.as_str());
            let shapes = [
                format!("{st} IS NULL"),
                format!("{st} IS NOT NULL"),
                format!("NOT ({st} IS NULL) AND {sibling} IS NOT NULL"),
            ];
            for (shape, sum) in shapes.iter().zip(sums.iter_mut()) {
                let case = soundness(&subject, shape);
                match case.outcome {
                    Outcome::Pass => {
                        sum.0 += case.tightness.total;
                        sum.1 += case.tightness.kept;
                        sum.2 += case.tightness.matching;
                    }
                    other => failures.push(format!("{name}@{version}: `{shape}`: {other:?}")),
                }
            }
        }
        let [null, not_null, conjoined] = sums;
        println!(
            "{name}: IS NULL {} of {} files kept for {} matching; IS NOT NULL {} of {} for {}; \
             with a sibling leaf {} of {} for {}",
            null.1,
            null.0,
            null.2,
            not_null.1,
            not_null.0,
            not_null.2,
            conjoined.1,
            conjoined.0,
            conjoined.2
        );
        assert!(null.0 > 0, "{name} has a struct column at some version");
        pruned_somewhere |= null.1 < null.0;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        pruned_somewhere,
        "`st IS NULL` prunes no file of the corpus"
    );
}
