//! `diff` across an OPTIMIZE-style rewrite of a generated table (`generators::rewrite`): the
//! rows of a table written in random order, rewritten sorted by one column in one commit. The
//! diff shows each phase's change; skipping gets better from the old version to the new one,
//! and the gate says worse the other way round.

use explain_core::diff::diff;
use explain_core::explain_request::ExplainRequest;
use generators::spec::{Checkpoint, ColumnSpec, Hint, Kind, Layout, LogShape};
use generators::values::Cell;

#[test]
fn a_rewrite_sorted_by_a_column_shows_in_the_diff_and_the_gate() {
    let mut spec = generators::catalog::named("all-types").unwrap();
    spec.columns = ["id", "v"]
        .iter()
        .map(|name| ColumnSpec {
            name: name.to_string(),
            kind: Kind::Int64,
            partition: false,
        })
        .collect();
    spec.layout = Layout::Random;
    spec.null_fraction = 0.0;
    spec.special_values = false;
    spec.log = LogShape {
        commits: 1,
        removed_files: Vec::new(),
        checkpoint: Checkpoint::None,
        hint: Hint::Accurate,
    };
    let dir = tempfile::tempdir().unwrap();
    let written = generators::writer::write_table(&spec, dir.path()).unwrap();
    let before = written.version;
    let rewritten = generators::rewrite::rewrite_sorted(&spec, &written, "id").unwrap();
    let after = rewritten.version;
    assert_eq!(after, before + 1);
    // A predicate that keeps about a tenth of the rows: above the 90th percentile of `id`.
    let mut ids: Vec<i64> = written
        .files
        .iter()
        .flat_map(|f| f.cells[0].iter())
        .filter_map(|c| match c {
            Cell::Int(v) => Some(*v),
            _ => None,
        })
        .collect();
    ids.sort_unstable();
    let predicate = format!("id > {}", ids[ids.len() * 9 / 10]);
    let location = dir.path().to_string_lossy().into_owned();
    let at = |version: u64| {
        ExplainRequest::new(&location)
            .version(Some(version))
            .predicate(Some(predicate.clone()))
    };
    let better = diff(&at(before), &at(after), 0.0).unwrap();
    assert!(!better.worse, "{better:#?}");
    assert!(
        better.pruned_bytes_pct_change > 20.0,
        "sorting by `id` lets `{predicate}` skip more: {better:#?}"
    );
    assert_eq!(better.from.version, before);
    assert_eq!(better.to.version, after);
    let skipping = better
        .phases
        .iter()
        .find(|p| p.phase == explain_core::explain::DATA_SKIPPING_PHASE)
        .expect("a data-skipping phase on both sides");
    let (from, to) = (skipping.from.unwrap(), skipping.to.unwrap());
    assert!(to.files < from.files, "{skipping:?}");
    // Both versions hold the same rows.
    assert_eq!(better.from.snapshot.records, better.to.snapshot.records);
    let worse = diff(&at(after), &at(before), 0.0).unwrap();
    assert!(worse.worse, "{worse:#?}");
    assert!(
        (worse.pruned_bytes_pct_change + better.pruned_bytes_pct_change).abs() < 1e-9,
        "the change reads the same both ways"
    );
    // A tolerance as large as the loss lets it pass.
    let tolerated = diff(&at(after), &at(before), -worse.pruned_bytes_pct_change).unwrap();
    assert!(!tolerated.worse, "{tolerated:#?}");
    // The doctor sees it too: a lookup of one `id` reads far fewer files after the rewrite.
    let depth = |version: u64| {
        explain_core::doctor::doctor(&ExplainRequest::new(&location).version(Some(version)))
            .unwrap()
            .columns
            .into_iter()
            .find(|c| c.column == "id")
            .and_then(|c| c.average_depth)
            .unwrap()
    };
    let (random, sorted) = (depth(before), depth(after));
    assert!(
        sorted < 2.0 && random > 2.0 * sorted,
        "{random} -> {sorted}"
    );
    let json = serde_json::to_value(&better).unwrap();
    assert_eq!(json["schema_version"], 1);
    assert!(json["phases"].as_array().is_some_and(|p| !p.is_empty()));
}
