//! The conformance campaign: the Delta readers users run, checked on generated tables (every
//! writer knob of the catalog) against the oracle's rows, each reader under its own engine's
//! reading of SQL.
//!
//! Each reader is an [`Adapter`]: given a local table and a predicate it returns the rows it
//! matched (per file where it can say) or the files it kept, or its refusal; and the truth for
//! it, the same engine's reading of the predicate over rows it did not read through Delta (the
//! oracle's replay). A case is classified ([`Verdict`]): missing rows (unsound skipping or a
//! wrong read), extra rows (a wrong filter), a refusal of a predicate the same engine runs
//! over plain rows, or an error. Two equivalent spellings of a predicate (the metamorphic
//! variants) that give one reader different rows are a finding even where the truth is
//! unknown.
//!
//! | adapter | reads | survivor set | truth |
//! |---|---|---|---|
//! | `kernel` | a delta_kernel scan with the predicate lowered as written, no guard of ours ([`kernel`]) | yes | files with a row matching under any engine's reading (the oracle's two evaluators) |
//! | `datafusion-parquet` | DataFusion's Parquet scan of each live file, row-group and page pruning and filter pushdown on, partition values as columns ([`datafusion_parquet`]) | rows per file | DataFusion over the oracle's rows, pruning off |
//! | `duckdb-delta`, `polars`, `delta-rs` | the worker of `oracle/engines/worker.py` ([`workers`], `oracle::readers`) | rows (per file for DuckDB) | see `oracle::readers` |

pub mod cause;
pub mod datafusion_parquet;
pub mod hazard;
pub mod kernel;
pub mod localize;
pub mod locked;
pub mod pack;
pub mod page;
pub mod recall;
pub mod reduce;
pub mod repro;
pub mod surgery;
pub mod table_level;
pub mod validate;
pub mod workers;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use explain_compiler::ast::Predicate;
use generators::catalog::{NAMES, named_with_seed};
use generators::predicates::{Pools, sample_predicates};
use generators::variants::{Variant, apply};
use generators::writer::write_table;
use oracle::engines::Answer;
use oracle::log::Snapshot;
use oracle::matching::LoadedTable;
use oracle::planning::plan;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::campaign::WRITER_BUGS;
use crate::shrink::minimize;

/// A generated table under test: where it is, its oracle replay and rows, how it was made.
pub struct TableUnderTest {
    pub location: String,
    pub loaded: LoadedTable,
    /// The catalog name (the writer knobs) and seed that made it.
    pub spec: String,
    pub seed: u64,
}

impl TableUnderTest {
    pub fn load(location: &str, spec: &str, seed: u64) -> Result<TableUnderTest, String> {
        let snapshot = Snapshot::open(location, None).map_err(|e| e.to_string())?;
        let loaded = LoadedTable::load(snapshot, &plan(1)).map_err(|e| e.to_string())?;
        Ok(TableUnderTest {
            location: location.to_string(),
            loaded,
            spec: spec.to_string(),
            seed,
        })
    }

    /// How many live files the table has.
    pub fn files(&self) -> usize {
        self.loaded.snapshot.files.len()
    }

    /// The live file with the log path `path` (decoded), if any.
    pub fn file_index(&self, path: &str) -> Option<usize> {
        let wanted = oracle::readers::decoded(path);
        self.loaded
            .snapshot
            .files
            .iter()
            .position(|f| oracle::readers::decoded(&f.path) == wanted)
    }
}

/// What a reader returned for one predicate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Matching rows: the table's count, and per live file (the oracle's order) where the
    /// reader says which file a row came from.
    Rows {
        total: u64,
        per_file: Option<Vec<u64>>,
    },
    /// The files a scan kept (the oracle's order): a survivor set, no rows.
    Survivors(Vec<bool>),
    /// The reader refused the predicate (its message).
    Refused(String),
    /// The reader raised an arithmetic error while running the predicate (overflow, out of
    /// range, division by zero; its message): an engine raises it only on the rows its plan
    /// evaluates the expression on, so whether it does depends on the plan.
    PlanDependent(String),
}

/// A reader of Delta tables, as the campaign drives it.
pub trait Adapter {
    fn name(&self) -> &'static str;
    /// The reader's version, or why it is unavailable.
    fn version(&self) -> Result<String, String>;
    /// Prepares for `table`: `Ok(Err(reason))` where this reader cannot read such a table
    /// (the cases are counted as skipped with the reason), `Err` where it failed.
    fn open(&mut self, table: &TableUnderTest) -> Result<Result<(), String>, String>;
    /// `predicate` read by the reader; `Err` is the reader's error (a crash of its worker,
    /// an internal error), a finding.
    fn read(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Reading, String>;
    /// The truth for this reader: the matching rows per live file under its engine's reading.
    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String>;
}

/// What one case says about a reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The rows (or a survivor set holding every matching file) the truth gives.
    Correct,
    /// Fewer rows than the truth, or a matching file not kept: unsound skipping or a wrong
    /// read.
    MissingRows,
    /// More rows than the truth: a wrong filter.
    ExtraRows,
    /// The reader refused a predicate its own engine runs over plain rows.
    Refused,
    /// The reader refused with its own word that it does not support the table's feature
    /// ([`DOCUMENTED_UNSUPPORTED`]: column mapping in Polars, type widening's preview feature in
    /// delta-rs): a documented limit, not a finding.
    Unsupported,
    /// The reader failed (an error, its worker ended).
    Error,
    /// Equivalent spellings of the predicate gave the reader different rows.
    VariantsDiffer,
    /// The engine refuses the predicate over plain rows too: nothing to check.
    BothRefused,
    /// The engine refuses the predicate over plain rows and the reader runs it: the truth is
    /// unknown (not a finding).
    TruthRefused,
    /// The table's log contradicts its own files ([`validate`]): ours to fix, or a writer
    /// bug a knob reproduces; no reader is blamed.
    InvalidTable,
    /// The reader raised an arithmetic error its engine does not raise over plain rows:
    /// whether an engine evaluates an overflowing expression on a row depends on its plan
    /// (pushdown, the order of filters), so neither answer is wrong (not a finding).
    PlanDependent,
}

impl Verdict {
    pub fn is_finding(self) -> bool {
        match self {
            Verdict::MissingRows
            | Verdict::ExtraRows
            | Verdict::Refused
            | Verdict::Error
            | Verdict::VariantsDiffer => true,
            Verdict::Correct
            | Verdict::Unsupported
            | Verdict::BothRefused
            | Verdict::TruthRefused
            | Verdict::InvalidTable
            | Verdict::PlanDependent => false,
        }
    }

    /// Whether the verdict says the reader got rows wrong (missing or extra): no words, the
    /// predicate's shape keys its cause.
    pub fn wrong_rows(self) -> bool {
        match self {
            Verdict::MissingRows | Verdict::ExtraRows => true,
            Verdict::Correct
            | Verdict::Refused
            | Verdict::Error
            | Verdict::VariantsDiffer
            | Verdict::Unsupported
            | Verdict::BothRefused
            | Verdict::TruthRefused
            | Verdict::InvalidTable
            | Verdict::PlanDependent => false,
        }
    }

    /// Whether the verdict carries the reader's words (an error or a refusal): they key its
    /// cause.
    pub fn has_words(self) -> bool {
        match self {
            Verdict::Refused | Verdict::Error => true,
            Verdict::Correct
            | Verdict::MissingRows
            | Verdict::ExtraRows
            | Verdict::VariantsDiffer
            | Verdict::Unsupported
            | Verdict::BothRefused
            | Verdict::TruthRefused
            | Verdict::InvalidTable
            | Verdict::PlanDependent => false,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::MissingRows => "missing-rows",
            Verdict::ExtraRows => "extra-rows",
            Verdict::Refused => "refused",
            Verdict::Unsupported => "unsupported",
            Verdict::Error => "error",
            Verdict::VariantsDiffer => "variants-differ",
            Verdict::BothRefused => "both-refused",
            Verdict::TruthRefused => "truth-refused",
            Verdict::InvalidTable => "invalid-table",
            Verdict::PlanDependent => "plan-dependent",
        }
    }

    pub const ALL: [Verdict; 11] = [
        Verdict::Correct,
        Verdict::MissingRows,
        Verdict::ExtraRows,
        Verdict::Refused,
        Verdict::Unsupported,
        Verdict::Error,
        Verdict::VariantsDiffer,
        Verdict::BothRefused,
        Verdict::TruthRefused,
        Verdict::InvalidTable,
        Verdict::PlanDependent,
    ];
}

/// How readers say that they do not support a table's feature (each reader's own message, as
/// measured in the conformance campaign), with the reader: a refusal that says so is the
/// reader's documented limit (`unsupported`), not a finding.
pub const DOCUMENTED_UNSUPPORTED: &[(&str, &str)] = &[
    // "delta table requires reader version 2 (column mapping), which polars does not support";
    // "... requires reader features ['typeWidening-preview'], which polars does not support".
    ("polars", "which polars does not support"),
    // "Transaction failed: Unsupported table features required: [TypeWideningPreview]".
    ("delta-rs", "Unsupported table features required"),
    // Older releases (1.1): "Unsupported reader features required: [ColumnMapping]".
    ("delta-rs", "Unsupported reader features required"),
];

/// Whether `why`, a refusal, is the reader's own word that it does not support the table.
pub(crate) fn documented_unsupported(why: &str) -> bool {
    DOCUMENTED_UNSUPPORTED
        .iter()
        .any(|(_, pattern)| why.contains(pattern))
}

/// The verdict of `reading` against `truth`, with what differs.
pub fn classify(reading: &Reading, truth: &Answer) -> (Verdict, String) {
    let rows = match truth {
        Answer::Refused(why) => {
            return match reading {
                Reading::Refused(_) | Reading::PlanDependent(_) => {
                    (Verdict::BothRefused, why.clone())
                }
                Reading::Rows { .. } | Reading::Survivors(_) => {
                    (Verdict::TruthRefused, why.clone())
                }
            };
        }
        Answer::Rows(rows) => rows,
    };
    match reading {
        Reading::Refused(why) if documented_unsupported(why) => (Verdict::Unsupported, why.clone()),
        Reading::Refused(why) => (Verdict::Refused, why.clone()),
        Reading::PlanDependent(why) => (Verdict::PlanDependent, why.clone()),
        Reading::Survivors(kept) => {
            let dropped: Vec<usize> = rows
                .iter()
                .enumerate()
                .filter(|(i, n)| **n > 0 && !kept.get(*i).copied().unwrap_or(false))
                .map(|(i, _)| i)
                .collect();
            if dropped.is_empty() {
                (Verdict::Correct, String::new())
            } else {
                let rows_lost: u64 = dropped.iter().map(|i| rows[*i]).sum();
                (
                    Verdict::MissingRows,
                    format!(
                        "{} matching file(s) not kept ({rows_lost} matching row(s)): files {dropped:?}",
                        dropped.len()
                    ),
                )
            }
        }
        Reading::Rows { total, per_file } => {
            let expected: u64 = rows.iter().sum();
            if let Some(per_file) = per_file {
                let fewer: Vec<usize> = (0..rows.len())
                    .filter(|i| per_file.get(*i).copied().unwrap_or(0) < rows[*i])
                    .collect();
                let more: Vec<usize> = (0..rows.len())
                    .filter(|i| per_file.get(*i).copied().unwrap_or(0) > rows[*i])
                    .collect();
                if !fewer.is_empty() {
                    return (
                        Verdict::MissingRows,
                        format!("{total} row(s) where {expected} match; fewer in files {fewer:?}"),
                    );
                }
                if !more.is_empty() {
                    return (
                        Verdict::ExtraRows,
                        format!("{total} row(s) where {expected} match; more in files {more:?}"),
                    );
                }
            }
            match total.cmp(&expected) {
                std::cmp::Ordering::Equal => (Verdict::Correct, String::new()),
                std::cmp::Ordering::Less => (
                    Verdict::MissingRows,
                    format!("{total} row(s) where {expected} match"),
                ),
                std::cmp::Ordering::Greater => (
                    Verdict::ExtraRows,
                    format!("{total} row(s) where {expected} match"),
                ),
            }
        }
    }
}

/// One case run against one adapter: the verdict and what differs.
pub fn check(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    predicate: &str,
) -> (Verdict, String) {
    let c = checked(adapter, table, predicate);
    (c.verdict, c.detail)
}

/// One case's outcome: the verdict, what differs, the reader's reading and the truth where
/// each was given.
pub struct Checked {
    pub verdict: Verdict,
    pub detail: String,
    pub reading: Option<Reading>,
    pub truth: Option<Answer>,
}

/// [`check`], with the reader's reading and the truth (the metamorphic check compares an
/// equivalent spelling with the reading rather than reading the predicate again; a hazard's
/// cause is decided by what the reading got wrong against the truth).
pub fn checked(adapter: &mut dyn Adapter, table: &TableUnderTest, predicate: &str) -> Checked {
    let reading = match adapter.read(table, predicate) {
        Ok(r) => r,
        Err(e) => {
            return Checked {
                verdict: failed(adapter, table, predicate),
                detail: e,
                reading: None,
                truth: None,
            };
        }
    };
    let (verdict, detail, truth) = match adapter.truth(table, predicate) {
        Ok(truth) => {
            let (verdict, detail) = classify(&reading, &truth);
            (verdict, detail, Some(truth))
        }
        Err(e) => (Verdict::Error, format!("the truth failed: {e}"), None),
    };
    Checked {
        verdict,
        detail,
        reading: Some(reading),
        truth,
    }
}

/// The verdict of a reader that failed on `predicate`: `error`, unless its engine refuses the
/// predicate over plain rows too (Polars comparing an `f32` column with a string, in its
/// pruning and in its filter alike): then nothing is known to be wrong (`both-refused`).
fn failed(adapter: &mut dyn Adapter, table: &TableUnderTest, predicate: &str) -> Verdict {
    match adapter.truth(table, predicate) {
        Ok(Answer::Refused(_)) => Verdict::BothRefused,
        Ok(Answer::Rows(_)) | Err(_) => Verdict::Error,
    }
}

/// The variants whose equivalence holds in SQL's three-valued logic in every engine
/// (`LIKE` as a range does not under a collation, `OR` factoring is left to the explainer's
/// suites).
pub const VARIANTS: [Variant; 5] = [
    Variant::DeMorgan,
    Variant::DoubleNegation,
    Variant::BetweenRange,
    Variant::InAsOr,
    Variant::Commuted,
];

/// Whether two readings of equivalent predicates differ in their rows (refusals and survivor
/// sets are not compared: a scan may keep different files for equivalent forms).
pub fn variants_differ(a: &Reading, b: &Reading) -> Option<String> {
    match (a, b) {
        (Reading::Rows { total: x, .. }, Reading::Rows { total: y, .. }) if x != y => {
            Some(format!("{x} row(s) against {y}"))
        }
        _ => None,
    }
}

/// The campaign's options.
#[derive(Clone, Debug)]
pub struct ConformanceOptions {
    pub seconds: u64,
    pub max_cases: Option<u64>,
    pub seed: u64,
    pub predicates_per_table: usize,
    pub work_dir: Option<PathBuf>,
    /// Where the findings' reproductions go (`DIR/repro/`); none: not written.
    pub out: Option<PathBuf>,
    /// Real tables run first, each with its corpus of predicates: `(name, location,
    /// predicates)`.
    pub fixtures: Vec<(String, String, Vec<String>)>,
    /// Each generated table's log evolved (`generators::history::evolve`) and every reader
    /// asked about every version (the table as of it, `generators::history::as_of`).
    pub histories: bool,
}

/// Per reader: its version and the count of every verdict, overall, by writer knob (the
/// catalog table) and by predicate construct.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EngineTally {
    pub version: String,
    pub cases: u64,
    /// Time spent in the reader and its truth (both engine calls of each case), seconds.
    pub seconds: f64,
    pub verdicts: BTreeMap<String, u64>,
    pub by_table: BTreeMap<String, BTreeMap<String, u64>>,
    pub by_construct: BTreeMap<String, BTreeMap<String, u64>>,
    /// Tables this reader cannot read, by reason (their cases skipped).
    pub skipped: BTreeMap<String, u64>,
}

impl EngineTally {
    /// Cases per second of the reader's own time.
    pub fn cases_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.cases as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// One cause of failing cases ([`cause`]): its first case, minimized, and how many cases it
/// explains.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Finding {
    /// The cause's identity ([`cause::cause`]): reader, verdict, the minimized predicate's
    /// shape, the table's features, an error's words abstracted. Empty in reports written
    /// before causes were kept (then [`Finding::key`] identifies it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cause: String,
    /// How many failing cases had this cause (this one included).
    #[serde(default = "one")]
    pub seen: u64,
    /// The upstream issue that tracks the cause, where one is known (from the known causes the
    /// campaign reads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
    /// The causes of the unminimized cases counted here (the first case's before it was
    /// minimized, and any other's whose minimized shape was this one).
    #[serde(skip)]
    pub aliases: Vec<String>,
    pub engine: String,
    pub version: String,
    pub verdict: Verdict,
    pub table: String,
    pub seed: u64,
    pub predicate: String,
    pub minimized: String,
    /// For variants that differ: the equivalent spelling of the minimized predicate that reads
    /// other rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub detail: String,
    /// Where its reproduction was written, relative to the report.
    pub reproduction: Option<String>,
    /// Why no reproduction could be written, where one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreproduced: Option<String>,
    /// Where the fault lies ([`localize`]): the component, the layer, the experiments run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localization: Option<localize::Localization>,
    /// Seconds into the campaign when the cause was first listed (the time to find it).
    #[serde(default)]
    pub found_after: f64,
}

fn one() -> u64 {
    1
}

impl Finding {
    /// What made two findings the same before causes were kept: the reader, the verdict and
    /// the table (a fixture, or a catalog name: its writer knobs).
    pub fn key(&self) -> String {
        format!("{} {} {}", self.engine, self.verdict.name(), self.table)
    }

    /// Whether `known`, a finding of a known list, stands for this one: the same cause, or
    /// for a known finding stored without one, the same reader, verdict and table.
    pub fn known_as(&self, known: &Finding) -> bool {
        if known.cause.is_empty() {
            known.key() == self.key()
        } else {
            known.cause == self.cause || self.aliases.contains(&known.cause)
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct ConformanceReport {
    pub seed: u64,
    /// When the campaign started, for each finding's `found_after`.
    #[serde(skip)]
    started: Option<Instant>,
    /// Causes minimized per reader and verdict.
    #[serde(skip)]
    minimized: BTreeMap<String, usize>,
    /// Failing cases, counted under the causes `findings` lists.
    pub failing_cases: u64,
    /// Tables whose log contradicts their files ([`validate`]): no reader ran on them.
    pub invalid_tables: Vec<InvalidTable>,
    pub seconds: f64,
    pub tables: u64,
    pub predicates: u64,
    pub engines: BTreeMap<String, EngineTally>,
    /// With histories: the operations appended to the tables, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub history_ops: BTreeMap<String, u64>,
    /// With histories: the versions every reader was asked about.
    #[serde(skip_serializing_if = "is_zero")]
    pub versions: u64,
    pub findings: Vec<Finding>,
    /// The distinct bugs the findings hold ([`ConformanceReport::group_bugs`]): each cause
    /// placed in its component, the same fault met through several readers once.
    pub bugs: Vec<Bug>,
}

/// A distinct bug: one fault of one component, with every reader it reaches.
#[derive(Clone, Debug, Serialize)]
pub struct Bug {
    /// `component | layer | fault` ([`localize::Localization::bug`]).
    pub bug: String,
    pub component: String,
    pub layer: String,
    /// The readers it was met through.
    pub readers: Vec<String>,
    /// The findings (1-based, as the report lists them) it holds.
    pub findings: Vec<usize>,
    /// The failing cases counted under those findings.
    pub seen: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
}

impl ConformanceReport {
    /// Seconds since the campaign started.
    fn since_start(&self) -> f64 {
        self.started.map_or(0.0, |s| s.elapsed().as_secs_f64())
    }

    /// Groups the findings into [`Bug`]s by their localization (a finding not localized, such
    /// as a reader that cannot open a table, is placed in its reader, in reading).
    pub fn group_bugs(&mut self) {
        let mut bugs: Vec<Bug> = Vec::new();
        for (i, f) in self.findings.iter().enumerate() {
            let (bug, component, layer) = match &f.localization {
                Some(l) => (l.bug.clone(), l.component.clone(), l.layer.clone()),
                None => {
                    let component = localize::component_of(&f.engine).to_string();
                    let layer = localize::Layer::Reading.name().to_string();
                    let fault = f
                        .cause
                        .strip_prefix(&f.engine)
                        .map_or(f.cause.as_str(), str::trim_start);
                    (format!("{component} | {layer} | {fault}"), component, layer)
                }
            };
            let at = match bugs.iter().position(|b| b.bug == bug) {
                Some(at) => at,
                None => {
                    bugs.push(Bug {
                        bug,
                        component,
                        layer,
                        readers: Vec::new(),
                        findings: Vec::new(),
                        seen: 0,
                        upstream: None,
                    });
                    bugs.len() - 1
                }
            };
            let b = &mut bugs[at];
            if !b.readers.contains(&f.engine) {
                b.readers.push(f.engine.clone());
            }
            b.findings.push(i + 1);
            b.seen += f.seen;
            if b.upstream.is_none() {
                b.upstream.clone_from(&f.upstream);
            }
        }
        bugs.sort_by_key(|b| std::cmp::Reverse(b.seen));
        self.bugs = bugs;
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A table no reader was asked about: what [`validate::problems`] found.
#[derive(Clone, Debug, Serialize)]
pub struct InvalidTable {
    /// The catalog name (its writer knobs) or the fixture.
    pub table: String,
    pub seed: u64,
    pub problems: Vec<String>,
}

/// Causes minimized per reader and verdict: past this many, a new cause is listed with its
/// case as found (the minimizer's reader calls are the campaign's largest cost).
const MINIMIZED_PER_KIND: usize = 24;

/// Runs the campaign over `adapters`: the fixtures with their corpora first, then generated
/// tables until the time or the cases run out. `progress` is told each table and the cases so
/// far.
pub fn run(
    options: &ConformanceOptions,
    adapters: &mut [Box<dyn Adapter>],
    progress: &mut dyn FnMut(&str, u64),
) -> Result<ConformanceReport, String> {
    let started = Instant::now();
    let mut report = ConformanceReport {
        seed: options.seed,
        started: Some(started),
        ..ConformanceReport::default()
    };
    for adapter in adapters.iter() {
        let version = adapter
            .version()
            .unwrap_or_else(|why| format!("unavailable: {why}"));
        report.engines.insert(
            adapter.name().to_string(),
            EngineTally {
                version,
                ..EngineTally::default()
            },
        );
    }
    // Nothing to check when no reader runs: the report lists each one unavailable.
    if adapters.iter().all(|a| a.version().is_err()) {
        return Ok(report);
    }
    let mut cases = 0u64;
    for (name, location, corpus) in &options.fixtures {
        progress(name, cases);
        let table = TableUnderTest::load(location, name, 0)?;
        let predicates: Vec<Case> = corpus
            .iter()
            .map(|sql| Case {
                sql: sql.clone(),
                tree: explain_compiler::sql::parse_predicate(sql).ok(),
            })
            .collect();
        report.tables += 1;
        report.predicates += predicates.len() as u64;
        cases += run_table(options, adapters, &table, &predicates, &mut report);
    }
    let names: Vec<&str> = NAMES
        .iter()
        .copied()
        .filter(|n| !WRITER_BUGS.contains(n))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let budget = Duration::from_secs(options.seconds);
    let mut round = 0usize;
    while started.elapsed() < budget && options.max_cases.is_none_or(|m| cases < m) {
        let name = names[round % names.len()];
        round += 1;
        let seed: u64 = rng.random();
        progress(name, cases);
        let dir = match &options.work_dir {
            Some(d) => tempfile::tempdir_in(d),
            None => tempfile::tempdir(),
        }
        .map_err(|e| e.to_string())?;
        let spec = named_with_seed(name, seed).ok_or("unknown spec")?;
        let written = write_table(&spec, dir.path())?;
        let predicates: Vec<Case> = sample_predicates(
            &Pools::from_table(&spec, &written),
            3,
            seed,
            options.predicates_per_table,
        )
        .into_iter()
        .map(|p| Case {
            sql: p.to_string(),
            tree: Some(p),
        })
        .collect();
        let versions = if options.histories {
            history(&spec, &written, seed, &mut report)
        } else {
            vec![written.version]
        };
        report.tables += 1;
        report.predicates += predicates.len() as u64;
        let last = versions.last().copied().unwrap_or(written.version);
        for version in versions {
            let (_copy, table) = as_of(options, &written.root, name, seed, (version, last))?;
            cases += run_table(options, adapters, &table, &predicates, &mut report);
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    report.group_bugs();
    Ok(report)
}

/// The table's log evolved as `seed` draws (`generators::history::evolve`), the operations
/// counted in `report`: every version from the first that adds files, in order.
fn history(
    spec: &generators::spec::TableSpec,
    written: &generators::writer::WrittenTable,
    seed: u64,
    report: &mut ConformanceReport,
) -> Vec<u64> {
    let (last, ops) = generators::history::evolve(spec, written, seed);
    for op in ops {
        *report.history_ops.entry(op.name().to_string()).or_default() += 1;
    }
    // From the first commit that adds files, as the explainer's histories are checked.
    let versions: Vec<u64> = (written.version.min(1)..=last).collect();
    report.versions += versions.len() as u64;
    versions
}

/// The table at `root` as the readers are asked about it at `version` of its `last`: itself
/// at its last version, else a copy whose log stops there; named `name@version` in a history.
/// With the folder holding the copy.
fn as_of(
    options: &ConformanceOptions,
    root: &Path,
    name: &str,
    seed: u64,
    (version, last): (u64, u64),
) -> Result<(Option<tempfile::TempDir>, TableUnderTest), String> {
    let location = root.to_string_lossy().into_owned();
    if !options.histories {
        return Ok((None, TableUnderTest::load(&location, name, seed)?));
    }
    let label = format!("{name}@{version}");
    if version >= last {
        return Ok((None, TableUnderTest::load(&location, &label, seed)?));
    }
    let dir = match &options.work_dir {
        Some(d) => tempfile::tempdir_in(d),
        None => tempfile::tempdir(),
    }
    .map_err(|e| e.to_string())?;
    generators::history::as_of(root, version, dir.path())?;
    let table = TableUnderTest::load(&dir.path().to_string_lossy(), &label, seed)?;
    Ok((Some(dir), table))
}

/// A predicate: its text as the readers get it, and its tree where it parses (for the
/// variants, the shrinker and the per-construct counts).
struct Case {
    sql: String,
    tree: Option<Predicate>,
}

/// A table whose log contradicts its files (`problems`): every one of its `n` cases is counted
/// as `invalid-table` for every available reader; returns the cases counted.
fn count_invalid(
    adapters: &[Box<dyn Adapter>],
    name: &str,
    seed: u64,
    problems: Vec<String>,
    n: u64,
    report: &mut ConformanceReport,
) -> u64 {
    let mut cases = 0;
    report.invalid_tables.push(InvalidTable {
        table: name.to_string(),
        seed,
        problems,
    });
    for adapter in adapters.iter() {
        if adapter.version().is_err() {
            continue;
        }
        let tally = report
            .engines
            .entry(adapter.name().to_string())
            .or_default();
        tally.cases += n;
        *tally
            .verdicts
            .entry(Verdict::InvalidTable.name().into())
            .or_default() += n;
        *tally
            .by_table
            .entry(name.to_string())
            .or_default()
            .entry(Verdict::InvalidTable.name().into())
            .or_default() += n;
        cases += n;
    }
    cases
}

/// A reader that cannot open the table: one `error` case, under its cause.
fn count_unopened(
    engine: &str,
    table: &TableUnderTest,
    features: &str,
    e: &impl std::fmt::Display,
    report: &mut ConformanceReport,
) {
    let tally = report.engines.entry(engine.to_string()).or_default();
    *tally.verdicts.entry("error".into()).or_default() += 1;
    let detail = format!("cannot open the table: {e}");
    let cause = cause::cause(engine, Verdict::Error, cause::THE_TABLE, features, &detail);
    report.failing_cases += 1;
    if let Some(f) = report.findings.iter_mut().find(|f| f.cause == cause) {
        f.seen += 1;
        return;
    }
    let version = tally.version.clone();
    let found_after = report.since_start();
    report.findings.push(Finding {
        cause,
        seen: 1,
        upstream: None,
        aliases: Vec::new(),
        engine: engine.to_string(),
        version,
        verdict: Verdict::Error,
        table: table.spec.clone(),
        seed: table.seed,
        predicate: String::new(),
        minimized: String::new(),
        variant: None,
        detail,
        reproduction: None,
        unreproduced: None,
        localization: None,
        found_after,
    });
}

/// Every case of one table through every available adapter; returns the cases run.
fn run_table(
    options: &ConformanceOptions,
    adapters: &mut [Box<dyn Adapter>],
    table: &TableUnderTest,
    predicates: &[Case],
    report: &mut ConformanceReport,
) -> u64 {
    let name = table.spec.as_str();
    let features = cause::features(&table.loaded.snapshot);
    let mut cases = 0u64;
    // A table whose log contradicts its files blames no reader: its cases are counted as
    // `invalid-table` for every reader that would have run.
    let problems = validate::problems(table);
    if !problems.is_empty() {
        return count_invalid(
            adapters,
            name,
            table.seed,
            problems,
            predicates.len() as u64,
            report,
        );
    }
    for adapter in adapters.iter_mut() {
        let engine = adapter.name().to_string();
        if adapter.version().is_err() {
            continue;
        }
        match adapter.open(table) {
            Ok(Ok(())) => {}
            Ok(Err(reason)) => {
                let tally = report.engines.entry(engine).or_default();
                *tally.skipped.entry(reason).or_default() += predicates.len() as u64;
                continue;
            }
            Err(e) => {
                count_unopened(&engine, table, &features, &e, report);
                continue;
            }
        }
        let mut probed: Option<Option<table_level::Probe>> = None;
        for case in predicates {
            let sql = &case.sql;
            let timer = Instant::now();
            let Checked {
                mut verdict,
                mut detail,
                reading,
                truth,
            } = checked(adapter.as_mut(), table, sql);
            // What the reader got wrong, for a hazard's cause.
            let mut wrong = reading
                .as_ref()
                .zip(truth.as_ref())
                .and_then(|(r, t)| hazard::wrong(r, t));
            // The metamorphic check: one equivalent spelling against the reading just made,
            // where the first is not a finding already.
            if !verdict.is_finding()
                && let Some(a) = &reading
                && let Some(p) = &case.tree
                && let Some(variant) = VARIANTS.iter().find_map(|v| apply(*v, p))
                && let Ok(b) = adapter.read(table, &variant.to_string())
                && let Some(why) = variants_differ(a, &b)
            {
                verdict = Verdict::VariantsDiffer;
                detail = format!("`{variant}` gives {why}");
                wrong = hazard::between(a, &b);
            }
            let spent = timer.elapsed().as_secs_f64();
            cases += 1;
            let tally = report.engines.entry(engine.clone()).or_default();
            tally.cases += 1;
            tally.seconds += spent;
            *tally.verdicts.entry(verdict.name().into()).or_default() += 1;
            *tally
                .by_table
                .entry(name.to_string())
                .or_default()
                .entry(verdict.name().into())
                .or_default() += 1;
            let constructs = case
                .tree
                .as_ref()
                .map_or_else(|| vec!["unparsed"], crate::campaign::constructs);
            for c in constructs {
                *tally
                    .by_construct
                    .entry(c.to_string())
                    .or_default()
                    .entry(verdict.name().into())
                    .or_default() += 1;
            }
            if !verdict.is_finding() {
                continue;
            }
            let version = tally.version.clone();
            // The table probed once per reader, at its first failure there.
            let probe = probed
                .get_or_insert_with(|| table_level::probe(adapter.as_mut(), table))
                .clone();
            // Rows wrong only where a float column holds NaN or a signed zero: the hazard's
            // cause, whatever the predicate's shape.
            let hazard = match verdict {
                Verdict::MissingRows | Verdict::ExtraRows | Verdict::VariantsDiffer => wrong
                    .as_ref()
                    .zip(case.tree.as_ref())
                    .and_then(|(w, p)| hazard::hazard(table, p, w)),
                Verdict::Correct
                | Verdict::Refused
                | Verdict::Error
                | Verdict::Unsupported
                | Verdict::BothRefused
                | Verdict::TruthRefused
                | Verdict::InvalidTable
                | Verdict::PlanDependent => None,
            };
            record_failure(
                options,
                adapter,
                table,
                case,
                Failure {
                    verdict,
                    detail,
                    version,
                    hazard,
                    probe: probe.as_ref(),
                },
                &features,
                report,
            );
        }
    }
    cases
}

/// A failing case's outcome, as [`record_failure`] counts it.
struct Failure<'p> {
    verdict: Verdict,
    detail: String,
    /// The reader's version.
    version: String,
    /// The float hazard that may account for every row the reader got wrong ([`hazard`]): a
    /// candidate, confirmed in [`record_failure`].
    hazard: Option<hazard::Found>,
    /// The table's probe, where the reader failed one ([`table_level`]).
    probe: Option<&'p table_level::Probe>,
}

/// A failing case, counted under its cause: under the table's where the reader fails the
/// table whatever the predicate (`probe`, [`table_level`]); under its float hazard where one
/// accounts for every row it got wrong ([`hazard`]); at once where its own shape, or one of
/// its parts shown failing alone, is a listed cause's; else minimized (within
/// [`MINIMIZED_PER_KIND`]) and counted under the minimized shape's cause, or listed as a new
/// cause with its reproduction (`options.out`).
fn record_failure(
    options: &ConformanceOptions,
    adapter: &mut Box<dyn Adapter>,
    table: &TableUnderTest,
    case: &Case,
    failure: Failure,
    features: &str,
    report: &mut ConformanceReport,
) {
    let Failure {
        verdict,
        detail,
        version,
        hazard,
        probe,
    } = failure;
    let engine = adapter.name().to_string();
    let hazard = confirmed_hazard(adapter.as_mut(), table, case, verdict, hazard);
    let sql = &case.sql;
    report.failing_cases += 1;
    if let Some(p) = probe.filter(|p| p.covers(verdict, &detail)) {
        let found = cause::cause(&engine, p.verdict, cause::THE_TABLE, features, &p.detail);
        if let Some(f) = report.findings.iter_mut().find(|f| f.cause == found) {
            f.seen += 1;
            return;
        }
        let finding = first_case(
            found,
            &engine,
            version,
            p.verdict,
            table,
            sql,
            p.sql.clone(),
            p.detail.clone(),
        );
        let mark = mark_of(adapter.as_mut(), table, &p.sql, p.verdict, &p.detail);
        let shape = Shape {
            shape: cause::THE_TABLE,
            features,
        };
        return listed(options, adapter, table, finding, &mark, &shape, report);
    }
    // Counted under its cause where the case's own shape (or its hazard) is one already
    // listed.
    let first = cause::cause(
        &engine,
        verdict,
        &hazard.as_ref().map_or_else(
            || shape_of(table, sql, case.tree.as_ref()),
            |h| h.label.clone(),
        ),
        features,
        &detail,
    );
    if let Some(f) = report
        .findings
        .iter_mut()
        .find(|f| f.cause == first || f.aliases.contains(&first))
    {
        f.seen += 1;
        return;
    }
    if hazard.is_none()
        && counted_by_part(
            adapter.as_mut(),
            table,
            case,
            verdict,
            features,
            &first,
            report,
        )
    {
        return;
    }
    // What the minimizer keeps, so the reproduction shows the failure found, not another one
    // a smaller predicate meets: an error or a refusal keeps its words, missing or extra rows
    // the files they are in (where the reader says which).
    let mark = mark_of(adapter.as_mut(), table, sql, verdict, &detail);
    let kind = format!("{engine} {}", verdict.name());
    let tried = report.minimized.entry(kind).or_default();
    let shrunk = if *tried < MINIMIZED_PER_KIND {
        *tried += 1;
        case.tree
            .as_ref()
            .map(|p| shrink(adapter.as_mut(), table, p, verdict, &mark))
    } else {
        None
    };
    let minimized = shrunk
        .as_ref()
        .map_or_else(|| sql.clone(), ToString::to_string);
    // The cause is the minimized predicate's: another case that minimizes to its
    // shape is the same cause. A hazard's cause is the hazard's, however it is spelled; so is
    // a minimized predicate's that reads floats only and whose wrong rows a hazard covers.
    // The case's hazard stands only where the minimized predicate still reads its column.
    let hazard = hazard
        .filter(|h| shrunk.as_ref().is_none_or(|p| h.read_by(p)))
        .or_else(|| {
            shrunk
                .as_ref()
                .filter(|p| verdict.wrong_rows() && hazard::reads_only_floats(table, p))
                .and_then(|p| hazard_alone(adapter.as_mut(), table, p, verdict))
        });
    let shape = hazard.map_or_else(|| shape_of(table, &minimized, shrunk.as_ref()), |h| h.label);
    let found = cause::cause(&engine, verdict, &shape, features, &detail);
    if let Some(f) = report.findings.iter_mut().find(|f| f.cause == found) {
        f.seen += 1;
        if f.cause != first {
            f.aliases.push(first);
        }
        return;
    }
    let mut finding = first_case(
        found, &engine, version, verdict, table, sql, minimized, detail,
    );
    if finding.cause != first {
        finding.aliases.push(first);
    }
    // The spelling the shrinker kept differing from it.
    finding.variant = match (verdict, &shrunk) {
        (Verdict::VariantsDiffer, Some(p)) => VARIANTS
            .iter()
            .find_map(|v| apply(*v, p))
            .map(|v| v.to_string()),
        _ => None,
    };
    let shape = Shape {
        shape: &shape,
        features,
    };
    listed(options, adapter, table, finding, &mark, &shape, report);
}

/// The hazard a failing case is counted under ([`hazard`]), where `candidate`'s bound holds and
/// the hazard is what failed: the predicate reads float columns only, or (for missing or extra
/// rows) one of its parts that reads floats only shows the same verdict alone, its wrong rows
/// covered by the hazard too (at most [`PARTS_TRIED`] parts asked). A predicate that also reads
/// another column may have lost rows for another reason that only happen to fit the bound.
fn confirmed_hazard(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    case: &Case,
    verdict: Verdict,
    candidate: Option<hazard::Found>,
) -> Option<hazard::Found> {
    let candidate = candidate?;
    let tree = case.tree.as_ref()?;
    if hazard::reads_only_floats(table, tree) {
        return confirm(adapter, table, tree, verdict, candidate);
    }
    if !verdict.wrong_rows() {
        return None;
    }
    parts(tree)
        .into_iter()
        .filter(|p| hazard::reads_only_floats(table, p))
        .take(PARTS_TRIED)
        .find_map(|part| hazard_alone(adapter, table, part, verdict))
}

/// The hazard that covers the rows the reader gets wrong reading `p` alone, where it shows
/// `verdict` on it too.
fn hazard_alone(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    p: &Predicate,
    verdict: Verdict,
) -> Option<hazard::Found> {
    let alone = checked(adapter, table, &p.to_string());
    if alone.verdict != verdict {
        return None;
    }
    let wrong = hazard::wrong(alone.reading.as_ref()?, alone.truth.as_ref()?)?;
    let found = hazard::hazard(table, p, &wrong)?;
    confirm(adapter, table, p, verdict, found)
}

/// `found`, where removing its rows from a copy of the table ([`surgery`]) removes the failure
/// of `p` (`verdict`); `None` where the failure stays or the copy cannot be made (a deletion
/// vector numbers the rows): then the rows the hazard covers only happen to fit.
fn confirm(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    p: &Predicate,
    verdict: Verdict,
    found: hazard::Found,
) -> Option<hazard::Found> {
    if !found.read_by(p) {
        return None;
    }
    let cut = surgery::Cut {
        drop_rows: Some(found.rows()),
        ..surgery::Cut::default()
    };
    let copy = surgery::copy(table, &cut).ok()?;
    let opened = matches!(adapter.open(&copy.table), Ok(Ok(())));
    let sql = p.to_string();
    let variant = match verdict {
        Verdict::VariantsDiffer => VARIANTS
            .iter()
            .find_map(|v| apply(*v, p))
            .map(|v| v.to_string()),
        _ => None,
    };
    let gone = opened
        && !shows(
            adapter,
            &copy.table,
            &sql,
            variant.as_deref(),
            verdict,
            &Mark::Verdict,
        );
    let _ = adapter.open(table);
    gone.then_some(found)
}

/// How many parts of a case the reader is asked about alone before it is minimized.
const PARTS_TRIED: usize = 4;

/// Whether a failing case of missing or extra rows is counted under a listed cause because one
/// of its parts (an item of an AND or an OR, what a NOT negates, at any depth) has that
/// cause's shape and shows the same verdict alone: what the minimizer would find, for one read
/// rather than a search, so a cause met in many spellings is listed once however many were
/// minimized (`first` becomes one of its aliases).
fn counted_by_part(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    case: &Case,
    verdict: Verdict,
    features: &str,
    first: &str,
    report: &mut ConformanceReport,
) -> bool {
    // Words are their cause whatever the shape; a difference of variants needs both spellings.
    let Some(tree) = case.tree.as_ref().filter(|_| verdict.wrong_rows()) else {
        return false;
    };
    let engine = adapter.name().to_string();
    let listed: Vec<(usize, &Predicate)> = parts(tree)
        .into_iter()
        .filter_map(|part| {
            let shape = shape_of(table, &part.to_string(), Some(part));
            let c = cause::cause(&engine, verdict, &shape, features, "");
            report
                .findings
                .iter()
                .position(|f| f.cause == c)
                .map(|i| (i, part))
        })
        .take(PARTS_TRIED)
        .collect();
    for (i, part) in listed {
        if shows(
            adapter,
            table,
            &part.to_string(),
            None,
            verdict,
            &Mark::Verdict,
        ) {
            let f = &mut report.findings[i];
            f.seen += 1;
            f.aliases.push(first.to_string());
            return true;
        }
    }
    false
}

/// Every proper part of `p`: the items of its ANDs and ORs and what its NOTs negate, at any
/// depth, the outermost first.
fn parts(p: &Predicate) -> Vec<&Predicate> {
    let mut out = Vec::new();
    let mut next = vec![p];
    while let Some(q) = next.pop() {
        let children: Vec<&Predicate> = match q {
            Predicate::And(items) | Predicate::Or(items) => items.iter().collect(),
            Predicate::Not(inner) => vec![inner.as_ref()],
            Predicate::Compare { .. }
            | Predicate::IsNull { .. }
            | Predicate::InList { .. }
            | Predicate::QuotedInList { .. }
            | Predicate::Between { .. }
            | Predicate::Like { .. }
            | Predicate::BoolColumn(_)
            | Predicate::Constant(_)
            | Predicate::Unsupported { .. } => Vec::new(),
        };
        out.extend(children.iter().copied());
        next.extend(children);
    }
    out
}

/// A new cause's finding: its first case (`sql`), minimized to `minimized`.
#[allow(clippy::too_many_arguments)]
fn first_case(
    cause: String,
    engine: &str,
    version: String,
    verdict: Verdict,
    table: &TableUnderTest,
    sql: &str,
    minimized: String,
    detail: String,
) -> Finding {
    Finding {
        cause,
        seen: 1,
        upstream: None,
        aliases: Vec::new(),
        engine: engine.to_string(),
        version,
        verdict,
        table: table.spec.clone(),
        seed: table.seed,
        predicate: sql.to_string(),
        minimized,
        variant: None,
        detail,
        reproduction: None,
        unreproduced: None,
        localization: None,
        found_after: 0.0,
    }
}

/// `finding` listed, with its reproduction where `options.out` asks for one: the table
/// reduced to the fewest files that still show it (`mark`), written in the reader's terms.
fn listed(
    options: &ConformanceOptions,
    adapter: &mut Box<dyn Adapter>,
    table: &TableUnderTest,
    mut finding: Finding,
    mark: &Mark,
    shape: &Shape,
    report: &mut ConformanceReport,
) {
    let n = report.findings.len() + 1;
    let verdict = finding.verdict;
    // The table shrunk too, for the predicate the shrinker kept (for a reproduction).
    let reduced = options.out.as_ref().and_then(|_| {
        reduce::reduce(adapter.as_mut(), table, &|a, t| {
            shows(
                a,
                t,
                &finding.minimized,
                finding.variant.as_deref(),
                verdict,
                mark,
            )
        })
    });
    let shown = match &reduced {
        Some(r) => {
            let _ = adapter.open(&r.table);
            &r.table
        }
        None => table,
    };
    // Where the fault lies, before the finding is listed.
    let localization = localize::localize(
        adapter.as_mut(),
        &localize::Case {
            table: shown,
            predicate: &finding.minimized,
            variant: finding.variant.as_deref(),
            verdict,
            cause: &finding.cause,
            shape: shape.shape,
            features: shape.features,
        },
    );
    finding.localization = Some(localization);
    if let Some(out) = &options.out {
        match repro::write(out, n, &finding, shown, table.files(), adapter.as_mut()) {
            Ok(written) => finding.reproduction = Some(written),
            Err(why) => {
                eprintln!(
                    "campaign: no reproduction of finding {n} ({}): {why}",
                    finding.key()
                );
                finding.unreproduced = Some(why);
            }
        }
    }
    // The campaign goes on with the table it was given.
    let _ = adapter.open(table);
    finding.found_after = report.since_start();
    report.findings.push(finding);
}

/// A new cause's shape (the middle of its identity: the predicate's shape, a hazard or the
/// table) and the table's features, for its localization.
struct Shape<'a> {
    shape: &'a str,
    features: &'a str,
}

/// The shape of `sql` on `table` ([`cause::shape`]), from its tree where it has one.
fn shape_of(table: &TableUnderTest, sql: &str, tree: Option<&Predicate>) -> String {
    let kind_of = |c: &explain_compiler::ast::ColumnRef| cause::kind_of(&table.loaded.snapshot, c);
    match tree {
        Some(p) => cause::shape(p, &kind_of),
        None => match explain_compiler::sql::parse_predicate(sql) {
            Ok(p) => cause::shape(&p, &kind_of),
            Err(_) => format!("unparsed({})", cause::abstracted(sql)),
        },
    }
}

/// The findings of `report` whose cause is not among `known` ([`Finding::known_as`]).
pub fn new_findings<'r>(report: &'r ConformanceReport, known: &[Finding]) -> Vec<&'r Finding> {
    report
        .findings
        .iter()
        .filter(|f| !known.iter().any(|k| f.known_as(k)))
        .collect()
}

/// Gives each finding of `report` the upstream issue a known finding of its cause names.
pub fn annotate_known(report: &mut ConformanceReport, known: &[Finding]) {
    for f in &mut report.findings {
        if f.upstream.is_none() {
            f.upstream = known
                .iter()
                .filter(|k| f.known_as(k))
                .find_map(|k| k.upstream.clone());
        }
    }
}

/// The findings a report's `report.json` lists (its `findings` array).
pub fn read_known(path: &Path) -> Result<Vec<Finding>, String> {
    #[derive(serde::Deserialize)]
    struct Stored {
        findings: Vec<Finding>,
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str::<Stored>(&text)
        .map(|s| s.findings)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The smallest predicate reachable from `p` that still gives `verdict` (the shrinker's
/// steps: a junction or a NOT replaced by a child, one item of a junction dropped).
fn shrink(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    p: &Predicate,
    verdict: Verdict,
    mark: &Mark,
) -> Predicate {
    let adapter = std::cell::RefCell::new(adapter);
    minimize(p, &|q| {
        let variant = match verdict {
            Verdict::VariantsDiffer => match VARIANTS.iter().find_map(|v| apply(*v, q)) {
                Some(v) => Some(v.to_string()),
                None => return false,
            },
            _ => None,
        };
        shows(
            &mut **adapter.borrow_mut(),
            table,
            &q.to_string(),
            variant.as_deref(),
            verdict,
            mark,
        )
    })
}

/// What the minimizer keeps of a failing case ([`Mark`]).
fn mark_of(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    sql: &str,
    verdict: Verdict,
    detail: &str,
) -> Mark {
    match verdict {
        Verdict::Refused | Verdict::Error => Mark::Words(cause::message_pattern(detail)),
        Verdict::MissingRows | Verdict::ExtraRows => match check_files(adapter, table, sql).2 {
            Some(paths) if !paths.is_empty() => Mark::Files(paths),
            Some(_) | None => Mark::Verdict,
        },
        Verdict::VariantsDiffer
        | Verdict::Correct
        | Verdict::Unsupported
        | Verdict::BothRefused
        | Verdict::TruthRefused
        | Verdict::InvalidTable
        | Verdict::PlanDependent => Mark::Verdict,
    }
}

/// What a failing case keeps showing through minimization, beside its verdict.
enum Mark {
    /// The verdict alone (the reader does not say which files).
    Verdict,
    /// An error's or a refusal's words ([`cause::message_pattern`]).
    Words(String),
    /// Missing or extra rows in at least one of these files (paths as the log writes them):
    /// a smaller predicate or table that gets other files wrong shows another failure.
    Files(Vec<String>),
}

/// Whether the reader still gives `verdict` for `sql` on `table`, with its `mark`; for
/// differing variants, whether `sql` and its `variant` read differently.
fn shows(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    sql: &str,
    variant: Option<&str>,
    verdict: Verdict,
    mark: &Mark,
) -> bool {
    match (verdict, variant) {
        (Verdict::VariantsDiffer, Some(v)) => matches!(
            (adapter.read(table, sql), adapter.read(table, v)),
            (Ok(x), Ok(y)) if variants_differ(&x, &y).is_some()
        ),
        (Verdict::VariantsDiffer, None) => false,
        _ => {
            let (seen, detail, files) = check_files(adapter, table, sql);
            seen == verdict
                && match mark {
                    Mark::Verdict => true,
                    Mark::Words(pattern) => cause::message_pattern(&detail) == *pattern,
                    Mark::Files(paths) => {
                        files.is_none_or(|now| now.iter().any(|p| paths.contains(p)))
                    }
                }
        }
    }
}

/// [`check`], and the paths of the live files whose matching rows the reader gets wrong,
/// where it says which (a survivor set, or rows per file).
fn check_files(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    predicate: &str,
) -> (Verdict, String, Option<Vec<String>>) {
    let reading = match adapter.read(table, predicate) {
        Ok(r) => r,
        Err(e) => return (failed(adapter, table, predicate), e, None),
    };
    let truth = match adapter.truth(table, predicate) {
        Ok(t) => t,
        Err(e) => return (Verdict::Error, format!("the truth failed: {e}"), None),
    };
    let (verdict, detail) = classify(&reading, &truth);
    let files = match &truth {
        Answer::Rows(rows) => differing_files(&reading, rows),
        Answer::Refused(_) => None,
    };
    let paths = files.map(|files| {
        files
            .into_iter()
            .filter_map(|i| table.loaded.snapshot.files.get(i).map(|f| f.path.clone()))
            .collect()
    });
    (verdict, detail, paths)
}

/// The live files whose matching rows `reading` gets wrong against `rows`, where it says.
fn differing_files(reading: &Reading, rows: &[u64]) -> Option<Vec<usize>> {
    match reading {
        Reading::Survivors(kept) => Some(
            (0..rows.len())
                .filter(|&i| rows[i] > 0 && !kept.get(i).copied().unwrap_or(false))
                .collect(),
        ),
        Reading::Rows {
            per_file: Some(per_file),
            ..
        } => Some(
            (0..rows.len())
                .filter(|&i| per_file.get(i).copied().unwrap_or(0) != rows[i])
                .collect(),
        ),
        Reading::Rows { per_file: None, .. } | Reading::Refused(_) | Reading::PlanDependent(_) => {
            None
        }
    }
}

/// The folder a report of this campaign goes to by default.
pub fn default_out(root: &Path, date: &str) -> PathBuf {
    root.join(format!("reports/conformance-{date}"))
}

/// A reader as `campaign --engines` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReaderName {
    Kernel,
    DatafusionParquet,
    DuckdbDelta,
    DeltaRs,
    Polars,
    All,
}

/// A reader pinned at a version from the package registry: `campaign --reader NAME==VERSION`
/// (`duckdb-delta`: the version of `duckdb-extension-delta`, which pins its DuckDB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pin {
    pub reader: oracle::readers::DeltaReader,
    pub version: String,
}

impl std::str::FromStr for Pin {
    type Err = String;

    fn from_str(text: &str) -> Result<Pin, String> {
        use oracle::readers::DeltaReader;
        let (name, version) = text.split_once("==").ok_or_else(|| {
            format!("`{text}`: a reader pinned as NAME==VERSION (delta-rs==1.1.4)")
        })?;
        let reader = DeltaReader::ALL
            .into_iter()
            .find(|r| r.name() == name.trim())
            .ok_or_else(|| {
                format!("`{name}`: the readers pinned from PyPI are duckdb-delta, polars, delta-rs")
            })?;
        let version = version.trim();
        if version.is_empty()
            || !version
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || ".+-".contains(c))
        {
            return Err(format!("`{version}`: not a version"));
        }
        Ok(Pin {
            reader,
            version: version.to_string(),
        })
    }
}

impl std::fmt::Display for Pin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}=={}", self.reader.name(), self.version)
    }
}

/// The adapters `names` ask for, each once, in the order named; the workers start here.
pub fn adapters(names: &[ReaderName]) -> Result<Vec<Box<dyn Adapter>>, String> {
    use oracle::readers::DeltaReader;
    let mut wanted: Vec<ReaderName> = Vec::new();
    for n in names {
        let each = match n {
            ReaderName::All => vec![
                ReaderName::Kernel,
                ReaderName::DatafusionParquet,
                ReaderName::DuckdbDelta,
                ReaderName::DeltaRs,
                ReaderName::Polars,
            ],
            one => vec![*one],
        };
        for r in each {
            if !wanted.contains(&r) {
                wanted.push(r);
            }
        }
    }
    let mut out: Vec<Box<dyn Adapter>> = Vec::new();
    for r in wanted {
        out.push(match r {
            ReaderName::Kernel => Box::new(kernel::KernelAdapter::default()),
            ReaderName::DatafusionParquet => {
                Box::new(datafusion_parquet::DataFusionParquet::new()?)
            }
            ReaderName::DuckdbDelta => {
                Box::new(workers::WorkerAdapter::start(DeltaReader::DuckdbDelta))
            }
            ReaderName::DeltaRs => Box::new(workers::WorkerAdapter::start(DeltaReader::DeltaRs)),
            ReaderName::Polars => Box::new(workers::WorkerAdapter::start(DeltaReader::Polars)),
            ReaderName::All => continue,
        });
    }
    Ok(out)
}
