//! One reader, two paths: the same table read through its JSON commits (statistics as JSON
//! text), through a checkpoint that records statistics only as the typed `stats_parsed`
//! struct (`delta.checkpoint.writeStatsAsJson = false`), and with a log compaction file over
//! its commits, must give the same files for every predicate, in default mode and `--strict`.
//! No row is read: a difference is a fault of a replay path (statistics parsed one way and
//! not the other, a compaction file read as a commit), whatever the rows hold.

use std::collections::BTreeSet;

use explain_core::check::{Explainer, KeptFiles};
use explain_core::replay::ReplayedTable;
use generators::spec::{Checkpoint, TableSpec};

use crate::checks::Outcome;

/// The table written three ways, each in its own directory.
pub struct TwoPaths {
    _dirs: Vec<tempfile::TempDir>,
    /// The path each table is read by (`json`, `stats_parsed`, `compacted`) and the table.
    pub tables: Vec<(&'static str, ReplayedTable)>,
}

impl TwoPaths {
    /// Writes `spec` with JSON statistics alone, with a `stats_parsed`-only checkpoint at its
    /// last version, and with JSON statistics and a compaction of its commits from 1 (where it
    /// has two or more); `None` with the reason where the spec does not allow one of them (a
    /// table the readers must refuse, a log shape of its own).
    pub fn write(spec: &TableSpec, work_dir: Option<&std::path::Path>) -> Result<Self, String> {
        if spec.refused_from().is_some() {
            return Err("a table the readers must refuse".into());
        }
        let dir = || {
            match work_dir {
                Some(d) => tempfile::tempdir_in(d),
                None => tempfile::tempdir(),
            }
            .map_err(|e| e.to_string())
        };
        let mut json_spec = spec.clone();
        json_spec.log.checkpoint = Checkpoint::None;
        let mut parsed_spec = spec.clone();
        parsed_spec.log.checkpoint = Checkpoint::StructStatsOnly;
        let (json_dir, parsed_dir, compacted_dir) = (dir()?, dir()?, dir()?);
        generators::writer::write_table(&json_spec, json_dir.path())?;
        generators::writer::write_table(&parsed_spec, parsed_dir.path())?;
        let written = generators::writer::write_table(&json_spec, compacted_dir.path())?;
        if written.version < 2 {
            return Err(format!(
                "{} commit(s) after the first: nothing to compact",
                written.version
            ));
        }
        generators::compaction::compact(compacted_dir.path(), 1, written.version)?;
        let open = |name: &'static str, dir: &tempfile::TempDir| {
            ReplayedTable::open(&dir.path().to_string_lossy(), None)
                .map(|t| (name, t))
                .map_err(|e| format!("{name}: {e}"))
        };
        let tables = vec![
            open("json", &json_dir)?,
            open("stats_parsed", &parsed_dir)?,
            open("compacted", &compacted_dir)?,
        ];
        Ok(TwoPaths {
            _dirs: vec![json_dir, parsed_dir, compacted_dir],
            tables,
        })
    }

    /// Tables already written, read by the paths they name (the first is the reference): what
    /// a test gives to break one path on purpose.
    pub fn from_tables(tables: Vec<(&'static str, ReplayedTable)>) -> Self {
        TwoPaths {
            _dirs: Vec::new(),
            tables,
        }
    }

    /// The paths of the files `table` keeps for `predicate`.
    fn kept(
        table: &ReplayedTable,
        predicate: &str,
        strict: bool,
    ) -> Result<BTreeSet<String>, String> {
        let kept = Explainer::new(table)
            .kept(predicate, strict)
            .map_err(|e| e.to_string())?;
        Ok(kept
            .files
            .iter()
            .enumerate()
            .filter(|(_, k)| **k)
            .map(|(i, _)| table.path(i).to_string())
            .collect())
    }

    /// Whether every path keeps the files the JSON path keeps, default mode and `--strict`;
    /// a predicate the explainer refuses on every path is skipped, on some paths only a
    /// failure. A path keeping more files than the JSON path (a superset: sound, less tight)
    /// is `Announced`, naming them, where the predicate reads a timestamp column: delta_kernel
    /// turns `stats_parsed` into the JSON its data skipping reads with timestamps cut to the
    /// millisecond, so a typed path prunes less on a timestamp within a millisecond of a
    /// bound. Any other difference fails (a path that lost statistics keeps more too).
    pub fn same_files(&self, predicate: &str) -> Outcome {
        let live = |t: &ReplayedTable| t.paths().map(str::to_string).collect::<BTreeSet<_>>();
        let (first, reference) = &self.tables[0];
        for (name, table) in &self.tables[1..] {
            if live(table) != live(reference) {
                return Outcome::Fail {
                    message: format!(
                        "the {name} path lists other live files than the {first} path"
                    ),
                };
            }
        }
        let mut looser: Option<String> = None;
        let reads_timestamps = reads_timestamps(reference, predicate);
        for strict in [false, true] {
            let mode = if strict { "--strict" } else { "default" };
            let answers: Vec<(&str, Result<BTreeSet<String>, String>)> = self
                .tables
                .iter()
                .map(|(name, t)| (*name, Self::kept(t, predicate, strict)))
                .collect();
            if answers.iter().all(|(_, a)| a.is_err()) {
                return Outcome::Skipped {
                    reason: format!(
                        "explain-core refuses it: {}",
                        answers[0].1.as_ref().err().cloned().unwrap_or_default()
                    ),
                };
            }
            let (first, reference) = &answers[0];
            for (name, answer) in &answers[1..] {
                if let (Ok(more), Ok(fewer)) = (answer, reference)
                    && reads_timestamps
                    && more.is_superset(fewer)
                    && more != fewer
                {
                    looser.get_or_insert_with(|| {
                        format!(
                            "{mode}: the {name} path keeps {} more than the {first} path (sound, less tight): {}",
                            more.len() - fewer.len(),
                            more.difference(fewer).take(4).cloned().collect::<Vec<_>>().join(", ")
                        )
                    });
                    continue;
                }
                if answer != reference {
                    return Outcome::Fail {
                        message: format!(
                            "{mode}: the {name} path keeps {} where the {first} path keeps {}",
                            said(answer),
                            said(reference)
                        ),
                    };
                }
            }
        }
        match looser {
            Some(message) => Outcome::Announced { message },
            None => Outcome::Pass,
        }
    }
}

/// Whether `predicate` reads a timestamp or timestamp_ntz column of `table`.
fn reads_timestamps(table: &ReplayedTable, predicate: &str) -> bool {
    use delta_kernel::schema::{DataType, PrimitiveType};
    explain_compiler::sql::parse_predicate(predicate).is_ok_and(|p| {
        p.columns().iter().any(|c| {
            table.columns().resolve(c).is_ok_and(|info| {
                matches!(
                    info.data_type,
                    DataType::Primitive(PrimitiveType::Timestamp | PrimitiveType::TimestampNtz)
                )
            })
        })
    })
}

fn said(answer: &Result<BTreeSet<String>, String>) -> String {
    match answer {
        Ok(files) => format!(
            "{} file(s) [{}]",
            files.len(),
            files.iter().take(4).cloned().collect::<Vec<_>>().join(", ")
        ),
        Err(e) => format!("nothing (refused: {e})"),
    }
}
