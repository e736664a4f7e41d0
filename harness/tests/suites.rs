//! The invariant suites, one trial per (invariant, table, predicate), run by `cargo test`:
//! `cargo test -p harness --test suites -- soundness::taxi-nyc` filters by name.
//!
//! Tables: every shared fixture with its corpus under `corpora/`, the generated catalog
//! (fixed seeds) with sampled predicates, and every regression under `corpora/regressions/`.
//! A failure names the table, the predicate, the invariant, the file and its values.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use explain_compiler::ast::Predicate;
use generators::catalog::{NAMES, named};
use generators::predicates::{Pools, sample_predicates};
use generators::variants::ALL;
use generators::writer::write_table;
use harness::checks::{
    Outcome, accepted, degradation, equivalence, no_row_read, replay_agreement, soundness,
};
use harness::corpus::{RegressionTable, corpus_path, read_corpus, read_regressions};
use harness::subject::Subject;
use libtest_mimic::{Arguments, Failed, Trial};

/// Generated tables writers of which break the protocol on purpose (a bare string prefix as
/// max): the campaign shows they are caught; the suites leave them out.
const WRITER_BUGS: &[&str] = &["strings-bare-prefix"];

/// Predicates sampled per generated table.
const GENERATED_PREDICATES: usize = 60;

type LazySubject = Arc<OnceLock<Result<Subject, String>>>;

struct Table {
    name: String,
    location: String,
    subject: LazySubject,
    predicates: Vec<String>,
    /// Parsed forms, for the variant suites (generated predicates only).
    trees: Vec<Predicate>,
}

fn subject(table: &Table) -> (LazySubject, String, String) {
    (
        table.subject.clone(),
        table.name.clone(),
        table.location.clone(),
    )
}

/// The table's subject, loaded by the first trial that needs it and shared by the rest.
fn load<'a>(lazy: &'a LazySubject, name: &str, location: &str) -> Result<&'a Subject, Failed> {
    lazy.get_or_init(|| Subject::load(name, location))
        .as_ref()
        .map_err(|e| Failed::from(e.clone()))
}

/// Trials run and skipped, per suite (the invariant's name), for the skip budget.
#[derive(Default)]
struct Tally {
    run: std::collections::BTreeMap<String, usize>,
    skipped: std::collections::BTreeMap<String, Vec<String>>,
}

fn tally() -> &'static std::sync::Mutex<Tally> {
    static TALLY: OnceLock<std::sync::Mutex<Tally>> = OnceLock::new();
    TALLY.get_or_init(Default::default)
}

/// At most this share of a suite's trials may be skipped (a front end refusing the predicate,
/// no variant form): a skipped trial proves nothing, so a suite that skips more fails.
const SKIP_BUDGET: f64 = 0.01;

/// The suite of a trial context (`..., invariant soundness`).
fn suite_of(context: &str) -> String {
    context
        .rsplit("invariant ")
        .next()
        .unwrap_or("unknown")
        .to_string()
}

fn verdict(outcome: Outcome, context: &str) -> Result<(), Failed> {
    let suite = suite_of(context);
    {
        let mut t = tally().lock().unwrap_or_else(|p| p.into_inner());
        *t.run.entry(suite.clone()).or_default() += 1;
        if let Outcome::Skipped { reason } = &outcome {
            t.skipped
                .entry(suite)
                .or_default()
                .push(format!("{context}: {reason}"));
        }
    }
    match outcome {
        Outcome::Fail { message } => Err(format!("{context}: {message}").into()),
        _ => Ok(()),
    }
}

/// Prints the skipped trials per suite with their reasons; `false` when a suite is over budget.
fn skip_budget_holds() -> bool {
    let t = tally().lock().unwrap_or_else(|p| p.into_inner());
    let mut holds = true;
    for (suite, run) in &t.run {
        let skipped = t.skipped.get(suite).map_or(&[][..], Vec::as_slice);
        let share = skipped.len() as f64 / (*run).max(1) as f64;
        println!(
            "skipped: {} of {run} {suite} trial(s) ({:.2}%, budget {:.0}%)",
            skipped.len(),
            share * 100.0,
            SKIP_BUDGET * 100.0
        );
        // Reasons, most common first (the text after the predicate's context).
        let mut reasons: std::collections::BTreeMap<&str, usize> =
            std::collections::BTreeMap::new();
        for s in skipped {
            let reason = s.rsplit_once(": ").map_or(s.as_str(), |(_, r)| r);
            *reasons.entry(reason).or_default() += 1;
        }
        let mut reasons: Vec<_> = reasons.into_iter().collect();
        reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
        for (reason, n) in reasons.iter().take(5) {
            println!("  {n} x {reason}");
        }
        if share > SKIP_BUDGET && *run >= 100 {
            println!("  over budget: the first skipped trial is {}", skipped[0]);
            holds = false;
        }
    }
    holds
}

fn fixture_tables() -> Vec<Table> {
    testkit::all_tables()
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let predicates = read_corpus(&corpus_path(&name))
                .unwrap_or_else(|e| panic!("corpus of {name}: {e} (run make-corpus)"));
            Table {
                name,
                location: path.to_string_lossy().into_owned(),
                subject: Arc::default(),
                predicates,
                trees: Vec::new(),
            }
        })
        .collect()
}

fn generated_tables(root: &std::path::Path) -> Vec<Table> {
    NAMES
        .iter()
        .filter(|n| !WRITER_BUGS.contains(n))
        .map(|name| {
            let spec = named(name).unwrap();
            let dir = root.join(name);
            let written =
                write_table(&spec, &dir).unwrap_or_else(|e| panic!("writing {name}: {e}"));
            let trees = sample_predicates(
                &Pools::from_table(&spec, &written),
                3,
                spec.seed,
                GENERATED_PREDICATES,
            );
            Table {
                name: format!("gen-{name}"),
                location: dir.to_string_lossy().into_owned(),
                subject: Arc::default(),
                predicates: trees.iter().map(ToString::to_string).collect(),
                trees,
            }
        })
        .collect()
}

fn trials_for(table: &Table) -> Vec<Trial> {
    let mut trials = Vec::new();
    let (lazy, name, location) = subject(table);
    trials.push(Trial::test(format!("replay::{name}"), move || {
        let s = load(&lazy, &name, &location)?;
        verdict(
            replay_agreement(s),
            &format!("table {name}, invariant replay"),
        )
    }));
    for (i, predicate) in table.predicates.iter().enumerate() {
        let (lazy, name, location) = subject(table);
        let p = predicate.clone();
        trials.push(Trial::test(
            format!("soundness::{}::{i:04}", table.name),
            move || {
                let s = load(&lazy, &name, &location)?;
                verdict(
                    soundness(s, &p).outcome,
                    &format!("table {name}, predicate `{p}`, invariant soundness"),
                )
            },
        ));
        let (lazy, name, location) = subject(table);
        let p = predicate.clone();
        trials.push(Trial::test(
            format!("accepted::{}::{i:04}", table.name),
            move || {
                let s = load(&lazy, &name, &location)?;
                verdict(
                    accepted(s, &p),
                    &format!("table {name}, predicate `{p}`, invariant accepted"),
                )
            },
        ));
    }
    // Variants and degradation over parsed predicates: the generated ones, and the corpus
    // predicates explain-core parses.
    let trees: Vec<Predicate> = if table.trees.is_empty() {
        table
            .predicates
            .iter()
            .filter_map(|p| explain_compiler::sql::parse_predicate(p).ok())
            .collect()
    } else {
        table.trees.clone()
    };
    for (i, tree) in trees.iter().enumerate() {
        for variant in ALL {
            if generators::variants::apply(variant, tree).is_none() {
                continue;
            }
            let (lazy, name, location) = subject(table);
            let t = tree.clone();
            trials.push(Trial::test(
                format!("equivalence::{}::{i:04}::{}", table.name, variant.name()),
                move || {
                    let s = load(&lazy, &name, &location)?;
                    verdict(
                        equivalence(s, &t, variant),
                        &format!("table {name}, predicate `{t}`, invariant equivalence"),
                    )
                },
            ));
        }
        let (lazy, name, location) = subject(table);
        let t = tree.clone();
        trials.push(Trial::test(
            format!("degradation::{}::{i:04}", table.name),
            move || {
                let s = load(&lazy, &name, &location)?;
                verdict(
                    degradation(s, &t),
                    &format!("table {name}, predicate `{t}`, invariant degradation"),
                )
            },
        ));
    }
    trials
}

fn regression_trials(root: &std::path::Path) -> Vec<Trial> {
    let regressions = read_regressions().unwrap_or_else(|e| panic!("{e}"));
    regressions
        .into_iter()
        .map(|(file, r)| {
            let location: PathBuf = match &r.table {
                RegressionTable::Fixture(path) => testkit::fixtures().join(path),
                RegressionTable::Generated(spec) => {
                    let dir = root.join(format!("regression-{file}"));
                    write_table(spec, &dir).unwrap_or_else(|e| panic!("regression {file}: {e}"));
                    dir
                }
            };
            let location = location.to_string_lossy().into_owned();
            let lazy: LazySubject = Arc::default();
            Trial::test(format!("regression::{file}"), move || {
                let s = load(&lazy, &file, &location)?;
                let context = format!(
                    "regression {file}: predicate `{}`, invariant {}",
                    r.predicate, r.invariant
                );
                let tree = explain_compiler::sql::parse_predicate(&r.predicate)
                    .map_err(|e| Failed::from(format!("{context}: {e}")))?;
                let outcome = match r.invariant.as_str() {
                    "soundness" => soundness(s, &r.predicate).outcome,
                    "accepted" => accepted(s, &r.predicate),
                    "degradation" => degradation(s, &tree),
                    "no-row-read" => no_row_read(s, &r.predicate),
                    "equivalence" => {
                        // An unknown or missing variant name fails: falling back to another
                        // variant would replay a different case and pass it silently.
                        let Some(variant) = ALL
                            .iter()
                            .copied()
                            .find(|v| Some(v.name()) == r.variant.as_deref())
                        else {
                            return Err(format!(
                                "{context}: unknown variant {:?}; known: {}",
                                r.variant,
                                ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
                            )
                            .into());
                        };
                        equivalence(s, &tree, variant)
                    }
                    other => return Err(format!("{context}: unknown invariant {other}").into()),
                };
                verdict(outcome, &context)
            })
        })
        .collect()
}

fn main() {
    let args = Arguments::from_args();
    let root = tempfile::tempdir().expect("temp dir");
    let mut tables = fixture_tables();
    tables.extend(generated_tables(root.path()));
    let mut trials: Vec<Trial> = tables.iter().flat_map(trials_for).collect();
    trials.extend(regression_trials(root.path()));
    let conclusion = libtest_mimic::run(&args, trials);
    drop(root);
    if !skip_budget_holds() {
        println!(
            "a suite skipped more than {:.0}% of its trials",
            SKIP_BUDGET * 100.0
        );
        std::process::exit(101);
    }
    conclusion.exit();
}
