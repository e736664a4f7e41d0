//! The fuzz campaign: rounds of (generated table, sampled predicates), every invariant checked,
//! every failure minimized and saved as a regression, and a report of what was checked.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use explain_compiler::ast::Predicate;
use generators::catalog::{NAMES, REFUSED, named_with_seed};
use generators::predicates::{Pools, sample_predicates};
use generators::variants::{ALL, apply};
use generators::writer::write_table;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::checks::{
    EVALUATORS_DISAGREE, Invariant, Outcome, accepted, degradation, equivalence, no_row_read,
    soundness_with, stats_difference,
};
use crate::corpus::{Regression, RegressionTable};
use crate::engine_truth::EngineTruth;
use crate::shrink::minimize;
use crate::subject::{OracleEngine, Subject};
use oracle::engines::{EngineSemantics, EngineWorkers};

/// Tables whose writer breaks the protocol on purpose; see `WRITER_BUGS` in the suites.
pub const WRITER_BUGS: &[&str] = &["strings-bare-prefix"];

#[derive(Clone, Debug)]
pub struct CampaignOptions {
    pub seconds: u64,
    pub max_cases: Option<u64>,
    pub seed: u64,
    pub jobs: usize,
    pub predicates_per_table: usize,
    /// Where the oracle's DataFusion matching runs.
    pub engine: OracleEngine,
    /// Where the generated tables are written (the system's temporary directory by default).
    /// On a cluster of several machines, a directory every executor sees at the same path.
    pub work_dir: Option<PathBuf>,
    /// The engines that run every predicate themselves as the soundness check's truth, beside
    /// the oracle's model (none: the model alone).
    pub engines: Vec<EngineSemantics>,
    /// With more than one: each table's predicates end with an AND and an OR of this many
    /// leaves drawn from its pools (the long chains both the explainer and the oracle must
    /// answer).
    pub chain_leaves: usize,
    /// The log as it evolves: each round appends an OPTIMIZE-style rewrite where the table
    /// allows one, and checks soundness at every version, not only the last.
    pub histories: bool,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    pub pass: u64,
    pub announced: u64,
    pub skipped: u64,
    pub fail: u64,
    /// Cases the oracle's engine could not answer (nothing checked).
    #[serde(default)]
    pub broken: u64,
}

/// Soundness cases under one engine's semantics.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SemanticsCounts {
    /// Cases whose matching files under these semantics were known.
    pub checked: u64,
    /// Cases the interpreter could not decide under these semantics (a construct it does not
    /// evaluate); DataFusion's own answer still held them for its semantics.
    pub unknown: u64,
    pub unknown_reasons: BTreeMap<String, u64>,
    /// Cases the engine refused (it runs no query: no file matches under it).
    #[serde(default)]
    pub refused: u64,
    /// Default-mode drops of a file matching under these semantics (announced ones, or
    /// failures counted under the soundness invariant).
    pub default_dropped: u64,
    /// `--strict` drops (each one a failure).
    pub strict_dropped: u64,
}

impl Counts {
    fn add(&mut self, o: &Outcome) {
        match o {
            Outcome::Pass => self.pass += 1,
            Outcome::Announced { .. } => self.announced += 1,
            Outcome::Skipped { .. } => self.skipped += 1,
            Outcome::Fail { .. } => self.fail += 1,
            Outcome::Broken { .. } => self.broken += 1,
        }
    }

    pub fn total(&self) -> u64 {
        self.pass + self.announced + self.skipped + self.fail + self.broken
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct TableTightness {
    pub cases: u64,
    pub files: u64,
    pub kept: u64,
    pub matching: u64,
    /// Files explain-core prunes that DataFusion's statistics pruning keeps.
    pub explain_tighter: u64,
    /// Files DataFusion's statistics pruning prunes that explain-core keeps.
    pub oracle_tighter: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub table: String,
    pub seed: u64,
    pub invariant: Invariant,
    pub predicate: String,
    pub minimized: String,
    pub message: String,
    pub reproduce: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct CampaignReport {
    pub seed: u64,
    /// Where the oracle's DataFusion matching ran (`local`, `ballista df://HOST:PORT`).
    #[serde(default)]
    pub oracle_engine: String,
    /// Predicates matched on the cluster (0 locally).
    #[serde(default)]
    pub cluster_jobs: u64,
    /// The engine failure that stopped the campaign, if one did: the cases it broke checked
    /// nothing.
    #[serde(default)]
    pub engine_error: Option<String>,
    pub seconds: f64,
    pub jobs: usize,
    pub tables: u64,
    /// Tables the protocol tells readers to refuse (`catalog::REFUSED`) that both readers
    /// refused at every version it names, and read at the version before.
    #[serde(default)]
    pub tables_refused: u64,
    pub predicates: u64,
    pub cases: u64,
    pub cases_per_second: f64,
    pub per_invariant: BTreeMap<String, Counts>,
    /// Soundness cases by the constructs their predicate uses.
    pub per_construct: BTreeMap<String, Counts>,
    pub tightness: BTreeMap<String, TableTightness>,
    /// The same sums by the constructs the predicates use.
    #[serde(default)]
    pub tightness_per_construct: BTreeMap<String, TableTightness>,
    /// Soundness cases by engine semantics (`spark-duckdb`, `datafusion`).
    #[serde(default)]
    pub per_semantics: BTreeMap<String, SemanticsCounts>,
    /// Skipped cases of every invariant, by reason (the reason's first clause).
    #[serde(default)]
    pub skipped_reasons: BTreeMap<String, u64>,
    /// Cases where the oracle's DataFusion evaluation and its row-wise interpreter disagree
    /// (the oracle's two evaluators disagree; each is also a soundness failure).
    #[serde(default)]
    pub evaluator_disagreements: u64,
    /// With `--histories`: the operations appended to the rounds' tables
    /// (`generators::history`: rewrite, delete, compact), how many of each.
    #[serde(default)]
    pub history_ops: BTreeMap<String, u64>,
    /// Default-mode violations announced by NAN_UNGUARDED_BOUNDS (pitfall 2), with one example.
    pub nan_announced: u64,
    pub nan_example: Option<String>,
    /// Each engine that ran the predicates itself: its version, or why it was unavailable.
    #[serde(default)]
    pub engine_versions: BTreeMap<String, String>,
    /// Predicates explain-core rejected (exit 2), by reason; a rejection of a predicate an
    /// engine runs is also a soundness failure.
    #[serde(default)]
    pub rejections: BTreeMap<String, RejectionCount>,
    pub failures: Vec<Failure>,
}

/// Rejections of one kind: how many, how many of them an engine runs, one example.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RejectionCount {
    pub cases: u64,
    pub run_by_an_engine: u64,
    pub example: String,
}

/// The constructs a predicate uses, for per-construct counts.
pub fn constructs(p: &Predicate) -> Vec<&'static str> {
    let mut out = Vec::new();
    fn walk(p: &Predicate, out: &mut Vec<&'static str>) {
        match p {
            Predicate::And(items) | Predicate::Or(items) => items.iter().for_each(|i| walk(i, out)),
            Predicate::Not(inner) => walk(inner, out),
            _ => {}
        }
        if !out.contains(&p.construct()) {
            out.push(p.construct());
        }
    }
    walk(p, &mut out);
    out
}

/// A skip reason without its particulars: the text up to the first colon or backtick, so
/// reasons of one kind count together.
fn reason_class(reason: &str) -> String {
    let end = reason.find([':', '`']).unwrap_or(reason.len());
    reason[..end].trim().to_string()
}

/// Checks the protocol's gate on a table readers must refuse from version `from` on: both
/// readers refuse every version from `from` to `last` and read version `from - 1`. A table
/// read where it must be refused is an error of the round, listed as a failure.
fn refused_at_and_after(name: &str, location: &str, from: u64, last: u64) -> Result<(), String> {
    for version in from..=last {
        let explained = explain_core::replay::ReplayedTable::open(location, Some(version)).is_ok();
        let matched = oracle::log::Snapshot::open(location, Some(version)).is_ok();
        if explained || matched {
            return Err(format!(
                "{name}@{version}: read by {} although the protocol refuses it",
                match (explained, matched) {
                    (true, true) => "explain-core and the oracle",
                    (true, false) => "explain-core",
                    _ => "the oracle",
                }
            ));
        }
    }
    Subject::load_at(name, location, Some(from.saturating_sub(1)))
        .map(|_| ())
        .map_err(|e| format!("the version before the refused change: {e}"))
}

/// Runs one round: a table of `name` with `seed`, `n` predicates, every invariant.
/// A round stops at the first case the oracle's engine cannot answer; the campaign stops with
/// it.
fn round(
    name: &str,
    seed: u64,
    options: &CampaignOptions,
    workers: &mut EngineWorkers,
    report: &Mutex<CampaignReport>,
    regressions: &Mutex<Vec<Regression>>,
) -> Result<u64, String> {
    let n = options.predicates_per_table;
    let spec = named_with_seed(name, seed).ok_or("unknown spec")?;
    let dir = match &options.work_dir {
        Some(d) => tempfile::tempdir_in(d),
        None => tempfile::tempdir(),
    }
    .map_err(|e| e.to_string())?;
    let written = write_table(&spec, dir.path())?;
    let location = dir.path().to_string_lossy().into_owned();
    if let Some(from) = spec.refused_from() {
        refused_at_and_after(name, &location, from, written.version)?;
        report
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .tables_refused += 1;
        return Ok(0);
    }
    let subject = Subject::load(name, &location)?.with_engine(options.engine.clone());
    let truth = if options.engines.is_empty() {
        None
    } else {
        let truth = EngineTruth::start(&subject, &options.engines, std::mem::take(workers))?;
        let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
        for (engine, version) in truth.versions() {
            r.engine_versions.insert(
                engine.to_string(),
                version.unwrap_or_else(|why| format!("unavailable: {why}")),
            );
        }
        Some(truth)
    };
    let cases = cases_of_round(
        &subject,
        truth.as_ref(),
        &spec,
        &written,
        seed,
        n,
        options.chain_leaves,
        report,
        regressions,
    );
    if let Some(truth) = truth {
        *workers = truth.into_workers();
    }
    let cases = if options.histories {
        cases + history_cases(name, seed, &spec, &written, &location, n, report)
    } else {
        cases
    };
    let cases = cases + two_paths_cases(name, seed, &spec, &written, options, report);
    report
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .cluster_jobs += subject.cluster_jobs();
    Ok(cases)
}

/// The log as it evolves: a random sequence of operations appended where the table allows
/// them (`generators::history`: an OPTIMIZE-style rewrite, deletes with deletion vectors, a
/// log compaction), then a sample of predicates checked for soundness at every version, the
/// explainer and the oracle both reading that version (predicates naming a column a version
/// lacks are skipped).
fn history_cases(
    name: &str,
    seed: u64,
    spec: &generators::spec::TableSpec,
    written: &generators::writer::WrittenTable,
    location: &str,
    n: usize,
    report: &Mutex<CampaignReport>,
) -> u64 {
    let (last, ops) = generators::history::evolve(spec, written, seed);
    {
        let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
        for op in ops {
            *r.history_ops.entry(op.name().to_string()).or_default() += 1;
        }
    }
    let pools = Pools::from_table(spec, written);
    let predicates = sample_predicates(&pools, 3, seed ^ 0x4849_5354, n.clamp(1, 10));
    let mut cases = 0;
    for version in 1..=last {
        let Ok(subject) = Subject::load_at(name, location, Some(version)) else {
            continue;
        };
        for p in &predicates {
            let sql = p.to_string();
            let outcome = soundness_with(&subject, &sql, None).outcome;
            cases += 1;
            record_unminimized(
                report,
                Failure {
                    table: format!("{name}@{version}"),
                    seed,
                    invariant: Invariant::History,
                    predicate: sql.clone(),
                    minimized: sql.clone(),
                    message: String::new(),
                    reproduce: format!("{} --at-version {version}", reproduce(name, seed, &sql)),
                },
                outcome,
            );
        }
    }
    cases
}

/// One reader, two paths: the round's table written again with statistics only in a
/// `stats_parsed` checkpoint and with a log compaction, a sample of predicates keeping the
/// same files on every path (no row read).
fn two_paths_cases(
    name: &str,
    seed: u64,
    spec: &generators::spec::TableSpec,
    written: &generators::writer::WrittenTable,
    options: &CampaignOptions,
    report: &Mutex<CampaignReport>,
) -> u64 {
    let record = |outcome: Outcome, sql: &str| {
        let failure = Failure {
            table: name.to_string(),
            seed,
            invariant: Invariant::TwoPaths,
            predicate: sql.to_string(),
            minimized: sql.to_string(),
            message: String::new(),
            reproduce: reproduce(name, seed, sql),
        };
        record_unminimized(report, failure, outcome);
    };
    let paths = match crate::two_paths::TwoPaths::write(spec, options.work_dir.as_deref()) {
        Ok(paths) => paths,
        Err(reason) => {
            record(Outcome::Skipped { reason }, "");
            return 1;
        }
    };
    let pools = Pools::from_table(spec, written);
    let predicates = sample_predicates(&pools, 3, seed ^ 0x5450_4154, TWO_PATHS_PREDICATES);
    for p in &predicates {
        let sql = p.to_string();
        record(paths.same_files(&sql), &sql);
    }
    predicates.len() as u64
}

/// Tallies `outcome` of an invariant whose failures are not minimized (checked on tables or
/// versions of their own); a failure is `failure` with the outcome's message.
fn record_unminimized(report: &Mutex<CampaignReport>, failure: Failure, outcome: Outcome) {
    let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
    r.per_invariant
        .entry(failure.invariant.name().to_string())
        .or_default()
        .add(&outcome);
    if let Outcome::Skipped { reason } = &outcome {
        *r.skipped_reasons.entry(reason_class(reason)).or_default() += 1;
    }
    if let Outcome::Fail { message } = outcome {
        r.failures.push(Failure { message, ..failure });
    }
}

/// The predicates a round's two-paths check asks.
const TWO_PATHS_PREDICATES: usize = 5;

/// The cases of one round on its loaded table.
#[allow(clippy::too_many_arguments)]
fn cases_of_round(
    subject: &Subject,
    truth: Option<&EngineTruth>,
    spec: &generators::spec::TableSpec,
    written: &generators::writer::WrittenTable,
    seed: u64,
    n: usize,
    chain_leaves: usize,
    report: &Mutex<CampaignReport>,
    regressions: &Mutex<Vec<Regression>>,
) -> u64 {
    let name = subject.name.as_str();
    let pools = Pools::from_table(spec, written);
    let mut predicates = sample_predicates(&pools, 3, seed, n);
    predicates.extend(generators::predicates::long_chains(
        &pools,
        seed,
        chain_leaves,
    ));
    let mut cases = 0u64;
    let reproduce = |p: &str| reproduce(name, seed, p);
    for (k, p) in predicates.iter().enumerate() {
        let sql = p.to_string();
        let mut outcomes: Vec<(Invariant, Option<&'static str>, Outcome)> = Vec::new();
        let case = soundness_with(subject, &sql, truth);
        let (sound, tight, verdicts) = (case.outcome, case.tightness, case.verdicts);
        if let Outcome::Broken { message } = &sound {
            let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
            r.per_invariant
                .entry(Invariant::Soundness.name().to_string())
                .or_default()
                .add(&sound);
            r.engine_error
                .get_or_insert_with(|| format!("{name} (seed {seed}): {message}"));
            return cases + 1;
        }
        let diff = stats_difference(subject, &sql);
        outcomes.push((Invariant::Soundness, None, sound.clone()));
        outcomes.push((Invariant::Accepted, None, accepted(subject, &sql)));
        outcomes.push((Invariant::Degradation, None, degradation(subject, p)));
        // The no-row-read checks ask ten explanations of a predicate: one predicate in four.
        if k % 4 == 0 {
            outcomes.push((Invariant::NoRowRead, None, no_row_read(subject, &sql)));
        }
        for v in ALL {
            if apply(v, p).is_some() {
                outcomes.push((
                    Invariant::Equivalence,
                    Some(v.name()),
                    equivalence(subject, p, v),
                ));
            }
        }
        cases += outcomes.len() as u64;
        let mut r = report.lock().unwrap_or_else(|e| e.into_inner());
        r.predicates += 1;
        tally_tightness(&mut r, name, p, &sound, &tight, diff);
        if let Outcome::Announced { message } = &sound {
            r.nan_announced += 1;
            if r.nan_example.is_none() {
                r.nan_example = Some(format!("{name} (seed {seed}): `{sql}`: {message}"));
            }
        }
        tally_semantics(
            &mut r,
            &verdicts,
            case.rejection.as_ref(),
            &format!("{name} (seed {seed}): `{sql}`"),
        );
        if let Outcome::Fail { message } = &sound
            && message.starts_with(EVALUATORS_DISAGREE)
        {
            r.evaluator_disagreements += 1;
        }
        for (invariant, _, outcome) in &outcomes {
            r.per_invariant
                .entry(invariant.name().to_string())
                .or_default()
                .add(outcome);
            if let Outcome::Skipped { reason } = outcome {
                *r.skipped_reasons.entry(reason_class(reason)).or_default() += 1;
            }
        }
        let broken = outcomes.iter().find_map(|(_, _, o)| match o {
            Outcome::Broken { message } => Some(message.clone()),
            Outcome::Pass
            | Outcome::Announced { .. }
            | Outcome::Skipped { .. }
            | Outcome::Fail { .. } => None,
        });
        if let Some(message) = broken {
            r.engine_error
                .get_or_insert_with(|| format!("{name} (seed {seed}): {message}"));
            return cases;
        }
        drop(r);
        for (invariant, variant, outcome) in outcomes {
            let Outcome::Fail { message } = outcome else {
                continue;
            };
            let still_fails = |q: &Predicate| still_fails(subject, truth, invariant, variant, q);
            let minimized = minimize(p, &still_fails).to_string();
            report
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .failures
                .push(Failure {
                    table: name.to_string(),
                    seed,
                    invariant,
                    predicate: sql.clone(),
                    minimized: minimized.clone(),
                    message: message.clone(),
                    reproduce: reproduce(&minimized),
                });
            regressions
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(Regression {
                    table: RegressionTable::Generated(Box::new(spec.clone())),
                    predicate: minimized,
                    invariant: invariant.name().to_string(),
                    variant: variant.map(str::to_string),
                    found: format!("campaign seed {seed}: {message}"),
                });
        }
    }
    cases
}

/// A soundness case's kept and matching files, per construct its predicate uses and per table,
/// and where DataFusion's statistics pruning and explain-core's disagree.
fn tally_tightness(
    r: &mut CampaignReport,
    name: &str,
    p: &Predicate,
    sound: &Outcome,
    tight: &crate::checks::Tightness,
    diff: Option<(usize, usize)>,
) {
    for c in constructs(p) {
        r.per_construct.entry(c.to_string()).or_default().add(sound);
        if checked(sound) {
            let t = r.tightness_per_construct.entry(c.to_string()).or_default();
            t.cases += 1;
            t.files += tight.total as u64;
            t.kept += tight.kept as u64;
            t.matching += tight.matching as u64;
        }
    }
    let t = r.tightness.entry(name.to_string()).or_default();
    if checked(sound) {
        t.cases += 1;
        t.files += tight.total as u64;
        t.kept += tight.kept as u64;
        t.matching += tight.matching as u64;
    }
    if let Some((e, o)) = diff {
        t.explain_tighter += e as u64;
        t.oracle_tighter += o as u64;
    }
}

/// A soundness case's verdict under each engine's semantics, and the rejection, if any (`at`
/// names the case: table, seed, predicate).
fn tally_semantics(
    r: &mut CampaignReport,
    verdicts: &[crate::checks::SemanticsVerdict],
    rejection: Option<&crate::checks::Rejection>,
    at: &str,
) {
    for v in verdicts {
        let c = r.per_semantics.entry(v.semantics.to_string()).or_default();
        match &v.unknown {
            None => c.checked += 1,
            Some(reason) => {
                c.unknown += 1;
                *c.unknown_reasons.entry(reason_class(reason)).or_default() += 1;
            }
        }
        c.refused += u64::from(v.refused);
        c.default_dropped += u64::from(v.default_dropped);
        c.strict_dropped += u64::from(v.strict_dropped);
    }
    if let Some(rejection) = rejection {
        let c = r
            .rejections
            .entry(reason_class(&rejection.reason))
            .or_default();
        c.cases += 1;
        c.run_by_an_engine += u64::from(!rejection.run_by.is_empty());
        if c.example.is_empty() {
            c.example = format!("{at}: {}", rejection.reason);
        }
    }
}

/// Whether `q` still fails `invariant` (under `variant`, for equivalence): what minimizing a
/// failing predicate keeps.
fn still_fails(
    subject: &Subject,
    truth: Option<&EngineTruth>,
    invariant: Invariant,
    variant: Option<&str>,
    q: &Predicate,
) -> bool {
    match invariant {
        Invariant::Soundness => soundness_with(subject, &q.to_string(), truth)
            .outcome
            .is_failure(),
        Invariant::Accepted => accepted(subject, &q.to_string()).is_failure(),
        Invariant::Degradation => degradation(subject, q).is_failure(),
        Invariant::Equivalence => ALL
            .iter()
            .find(|v| Some(v.name()) == variant)
            .is_some_and(|v| equivalence(subject, q, *v).is_failure()),
        Invariant::NoRowRead => no_row_read(subject, &q.to_string()).is_failure(),
        // Checked at an earlier version, or on tables of its own: not minimized.
        Invariant::History | Invariant::TwoPaths => false,
        Invariant::Replay => false,
    }
}

/// The commands that reproduce a failing case: the table generated, both binaries run.
fn reproduce(name: &str, seed: u64, p: &str) -> String {
    format!(
        "cargo run -p generators --bin gen-table -- {name} /tmp/case --seed {seed} && cargo run -p delta-explain --bin delta-explain -- /tmp/case -w {p:?} && cargo run -p oracle --bin delta-oracle -- /tmp/case -w {p:?}"
    )
}

/// A soundness case that compared a kept set with the matching files.
fn checked(sound: &Outcome) -> bool {
    match sound {
        Outcome::Pass | Outcome::Announced { .. } | Outcome::Fail { .. } => true,
        Outcome::Skipped { .. } | Outcome::Broken { .. } => false,
    }
}

/// Runs the campaign; `progress` is told the cases done so far.
pub fn run(
    options: &CampaignOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> (CampaignReport, Vec<Regression>) {
    let started = Instant::now();
    let deadline = started + Duration::from_secs(options.seconds);
    let report = Mutex::new(CampaignReport {
        seed: options.seed,
        oracle_engine: options.engine.describe(),
        jobs: options.jobs,
        ..Default::default()
    });
    let regressions = Mutex::new(Vec::new());
    let next_round = Mutex::new(0u64);
    let cases_done = Mutex::new(0u64);
    let names: Vec<&str> = NAMES
        .iter()
        .chain(REFUSED)
        .copied()
        .filter(|n| !WRITER_BUGS.contains(n))
        .collect();
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            let spawned = std::thread::Builder::new()
                .name("campaign-job".into())
                .stack_size(oracle::DEEP_STACK)
                .spawn_scoped(scope, || {
                // This thread's engine workers, from one table to the next.
                let mut workers = EngineWorkers::default();
                loop {
                if Instant::now() >= deadline
                    || report.lock().unwrap_or_else(|e| e.into_inner()).engine_error.is_some()
                {
                    break;
                }
                if options.max_cases.is_some_and(|m| *cases_done.lock().unwrap_or_else(|e| e.into_inner()) >= m) {
                    break;
                }
                let k = {
                    let mut n = next_round.lock().unwrap_or_else(|e| e.into_inner());
                    *n += 1;
                    *n
                };
                // Each round's table and seed follow from the campaign seed and the round number.
                let mut rng = ChaCha8Rng::seed_from_u64(options.seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let name = names[rng.random_range(0..names.len())];
                let seed: u64 = rng.random();
                match round(name, seed, options, &mut workers, &report, &regressions) {
                    Ok(cases) => {
                        let mut done = cases_done.lock().unwrap_or_else(|e| e.into_inner());
                        *done += cases;
                        report.lock().unwrap_or_else(|e| e.into_inner()).tables += 1;
                        progress(*done);
                    }
                    Err(e) => report.lock().unwrap_or_else(|e| e.into_inner()).failures.push(Failure {
                        table: name.to_string(),
                        seed,
                        invariant: Invariant::Replay,
                        predicate: String::new(),
                        minimized: String::new(),
                        message: format!("the table could not be written or loaded: {e}"),
                        reproduce: format!("cargo run -p generators --bin gen-table -- {name} /tmp/case --seed {seed}"),
                    }),
                }
                }
            });
            if let Err(e) = spawned {
                panic!("cannot start a thread: {e}");
            }
        }
    });
    let mut report = report.into_inner().unwrap_or_else(|e| e.into_inner());
    report.seconds = started.elapsed().as_secs_f64();
    report.cases = cases_done.into_inner().unwrap_or_else(|e| e.into_inner());
    report.cases_per_second = report.cases as f64 / report.seconds.max(0.001);
    (
        report,
        regressions.into_inner().unwrap_or_else(|e| e.into_inner()),
    )
}
