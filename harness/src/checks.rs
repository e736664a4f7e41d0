//! The invariants of the design, each checked for one (table, predicate):
//! 1. soundness: the final kept set holds every file with a matching row (default mode: a
//!    violation must be announced by a `NAN_UNGUARDED_BOUNDS` hazard; `--strict`: none at all);
//! 2. equivalence: a metamorphic variant keeps identical sets in every phase;
//! 3. degradation: a predicate with an unsupported conjunct keeps exactly what its stripped
//!    remainder keeps;
//! 4. replay agreement: checked per table (`replay_agreement`);
//! 5. accepted partition values hold the value of every matching file.

use explain_compiler::ExplainError;
use explain_compiler::guards::{Effect, Guard};
use explain_core::explain::Explanation;
use explain_core::request::{Answer, ExplainRequest, Options, Progress, explain_one};
use generators::variants::{Variant, apply, degraded};
use serde::Serialize;

use oracle::engines::EngineSemantics;

use crate::engine_truth::{EngineAnswer, EngineTruth};
use crate::subject::{MatchError, Subject};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Invariant {
    Soundness,
    Equivalence,
    Degradation,
    Replay,
    Accepted,
    /// The explainer's kept sets held against each other, no row read (`explain_core::check`).
    NoRowRead,
    /// Soundness at every version of a table whose log evolves (`campaign --histories`).
    History,
    /// One reader, two paths: the same table through its JSON commits, a `stats_parsed`-only
    /// checkpoint and a log compaction keeps the same files (`two_paths`).
    TwoPaths,
}

impl Invariant {
    pub fn name(self) -> &'static str {
        match self {
            Invariant::Soundness => "soundness",
            Invariant::Equivalence => "equivalence",
            Invariant::Degradation => "degradation",
            Invariant::Replay => "replay",
            Invariant::Accepted => "accepted",
            Invariant::NoRowRead => "no-row-read",
            Invariant::History => "history",
            Invariant::TwoPaths => "two-paths",
        }
    }
}

/// The result of one check.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    /// A default-mode violation the report announced with `NAN_UNGUARDED_BOUNDS`.
    Announced {
        message: String,
    },
    /// The case does not apply (a front end refuses the predicate, no variant form).
    Skipped {
        reason: String,
    },
    Fail {
        message: String,
    },
    /// The oracle's engine failed (a cluster unreachable or losing its answer): nothing was
    /// checked. Neither a pass nor a finding about explain-core.
    Broken {
        message: String,
    },
}

impl Outcome {
    pub fn is_failure(&self) -> bool {
        matches!(self, Outcome::Fail { .. })
    }
}

/// Tightness of one soundness case: files kept against files that really match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tightness {
    pub total: usize,
    pub kept: usize,
    pub matching: usize,
}

/// The answer of the entry point the command and Python call ([`explain_one`]: the table's
/// log replayed and streamed, as users run it) to the request the command builds for
/// `predicate` with `options`. Its per-file sets are in the replay's order, the subject's
/// cached table's (the streamed and the whole replay list the same files in the same order:
/// `tests/it/streaming.rs`); a count that differs is an error of the table, never a pass.
/// That the answer is the command's own, file for file and field for field, is
/// `tests/it/one_path.rs`.
pub fn answer(
    subject: &Subject,
    predicate: &str,
    options: Options,
) -> Result<Answer, ExplainError> {
    let request = ExplainRequest::new(&subject.location)
        .version(subject.version)
        .predicate(Some(predicate.to_string()))
        .options(options);
    let answer = Progress::silent(|progress| explain_one(&request, progress))?;
    let (streamed, cached) = (answer.explanation.kept.len(), subject.kernel.files().len());
    if streamed != cached {
        return Err(ExplainError::Table {
            table: subject.location.clone(),
            reason: format!(
                "the streamed replay listed {streamed} files, the cached one {cached}: the checks would map rows to the wrong files"
            ),
        });
    }
    Ok(answer)
}

/// The explanation every check reads: [`answer`] with `--strict` or not.
pub fn explained(
    subject: &Subject,
    predicate: &str,
    strict: bool,
) -> Result<Explanation, ExplainError> {
    let options = Options {
        strict,
        ..Options::default()
    };
    answer(subject, predicate, options).map(|answer| answer.explanation)
}

/// Per kernel file: matching rows by the oracle's DataFusion evaluation, on the subject's
/// engine.
fn matching(subject: &Subject, predicate: &str) -> Result<Vec<u64>, MatchError> {
    let rows = subject.matching_rows(predicate)?;
    Ok(by_kernel_file(subject, &rows))
}

fn by_kernel_file(subject: &Subject, rows: &[u64]) -> Vec<u64> {
    subject.by_kernel_file(rows)
}

/// Per kernel file, the rows that match under every engine's semantics at once (the union
/// the strict mode must keep), with each semantics' own rows where they are known, after
/// checking the oracle's two evaluators against each other: DataFusion's answer
/// and the row-wise interpreter's under DataFusion's semantics must agree on every file.
/// Where the interpreter does not evaluate a construct of the predicate, a semantics it alone
/// decides is unknown (`None`): the union then holds DataFusion's answer and what is known.
fn matching_every_engine(
    subject: &Subject,
    predicate: &str,
    datafusion: &[u64],
) -> Result<EngineRows, String> {
    use oracle::interpret::Semantics;
    let mut union = datafusion.to_vec();
    let mut per_semantics = Vec::new();
    for semantics in Semantics::ALL {
        let rows = match subject.oracle.matching_rows_under(predicate, semantics) {
            Ok(Ok(rows)) => by_kernel_file(subject, &rows),
            Ok(Err(unsupported)) => {
                // DataFusion itself answered for its own semantics.
                let known = if semantics == Semantics::DataFusion {
                    Ok(datafusion.to_vec())
                } else {
                    Err(unsupported.0)
                };
                per_semantics.push((semantics.name(), known));
                continue;
            }
            Err(e) => {
                per_semantics.push((semantics.name(), Err(e.to_string())));
                continue;
            }
        };
        if semantics == Semantics::DataFusion
            && let Some(i) = (0..rows.len()).find(|&i| rows[i] != datafusion[i])
        {
            return Err(format!(
                "{EVALUATORS_DISAGREE} on {}: DataFusion matches {} row(s), the interpreter {}",
                describe(subject, i),
                datafusion[i],
                rows[i]
            ));
        }
        for (u, r) in union.iter_mut().zip(&rows) {
            *u = (*u).max(*r);
        }
        per_semantics.push((semantics.name(), Ok(rows)));
    }
    Ok(EngineRows {
        union,
        per_semantics,
    })
}

/// The opening of a failure where the oracle's two evaluators disagree; the
/// campaign counts these apart.
pub const EVALUATORS_DISAGREE: &str = "the oracle's evaluators disagree";

struct EngineRows {
    union: Vec<u64>,
    /// Each semantics' matching rows, or why they are unknown, by the name a verdict gives it.
    per_semantics: Vec<(&'static str, Result<Vec<u64>, String>)>,
}

/// What one soundness case showed under one engine's semantics.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SemanticsVerdict {
    /// The oracle's model of a semantics (`spark-duckdb`, `datafusion`), or an engine that ran
    /// the predicate itself (`engine:spark`, `engine:spark-ansi`, `engine:duckdb`,
    /// `engine:datafusion`).
    pub semantics: &'static str,
    /// Why the matching files under these semantics are unknown (the interpreter does not
    /// evaluate a construct of the predicate, the engine is unavailable), or `None` where they
    /// were checked.
    pub unknown: Option<String>,
    /// The engine refused the predicate (it runs no query, so no file matches under it).
    pub refused: bool,
    /// The default mode dropped a file holding a row that matches under these semantics.
    pub default_dropped: bool,
    /// `--strict` did (always a failure).
    pub strict_dropped: bool,
}

/// How a report names an engine that ran a predicate itself.
pub fn engine_verdict_name(semantics: EngineSemantics) -> &'static str {
    match semantics {
        EngineSemantics::Spark => "engine:spark",
        EngineSemantics::SparkAnsi => "engine:spark-ansi",
        EngineSemantics::Duckdb => "engine:duckdb",
        EngineSemantics::Datafusion => "engine:datafusion",
    }
}

/// The opening of a skip reason where every engine asked refuses the predicate.
pub const NO_ENGINE_RUNS_IT: &str = "no engine runs it";

/// explain-core rejected a predicate (exit 2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rejection {
    pub reason: String,
    /// The engines that run it (a failure where any does).
    pub run_by: Vec<&'static str>,
}

/// One soundness case: the outcome, the tightness of the default mode, what each semantics
/// saw (empty where no explanation was compared), and explain-core's rejection, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct SoundnessCase {
    pub outcome: Outcome,
    pub tightness: Tightness,
    pub verdicts: Vec<SemanticsVerdict>,
    pub rejection: Option<Rejection>,
}

impl SoundnessCase {
    fn of(outcome: Outcome) -> SoundnessCase {
        SoundnessCase {
            outcome,
            tightness: Tightness::default(),
            verdicts: Vec::new(),
            rejection: None,
        }
    }
}

/// Describes a file for a failure message: its path, partition values and raw statistics.
fn describe(subject: &Subject, i: usize) -> String {
    let mut partition: Vec<String> = subject
        .kernel
        .partition_of(i)
        .iter()
        .map(|(k, v)| format!("{k}={v:?}"))
        .collect();
    partition.sort();
    format!(
        "{} (partition {{{}}}, stats {})",
        subject.kernel.path(i),
        partition.join(", "),
        subject.kernel.stats_json(i).unwrap_or("none")
    )
}

/// Invariant 1, in default and strict mode, against the oracle's model of every engine.
pub fn soundness(subject: &Subject, predicate: &str) -> SoundnessCase {
    soundness_with(subject, predicate, None)
}

/// Invariant 1, in default and strict mode: against the oracle's model of every engine and,
/// where `truth` is given, against the engines themselves running the predicate as written.
/// A file matching under any of them must be kept by `--strict`, and dropped by the default
/// mode only with an announcement. explain-core may reject a predicate (exit 2) only where no
/// engine runs it.
pub fn soundness_with(
    subject: &Subject,
    predicate: &str,
    truth: Option<&EngineTruth>,
) -> SoundnessCase {
    let Answers {
        engines,
        run_by,
        refused,
        asked_engines,
    } = match answers(subject, predicate, truth) {
        Ok(answers) => answers,
        Err(case) => return *case,
    };
    let rows = &engines.union;
    let default = match explained(subject, predicate, false) {
        Ok(e) => e,
        Err(e) => return rejected(&e.to_string(), run_by, asked_engines),
    };
    let tightness = Tightness {
        total: rows.len(),
        kept: default.final_files(),
        matching: rows.iter().filter(|n| **n > 0).count(),
    };
    let dropped_of = |rows: &[u64], ex: &Explanation| -> Vec<usize> {
        (0..rows.len())
            .filter(|&i| rows[i] > 0 && !ex.kept[i])
            .collect()
    };
    let dropped = |ex: &Explanation| dropped_of(rows, ex);
    let strict = match explained(subject, predicate, true) {
        Ok(e) => e,
        Err(e) => {
            return SoundnessCase {
                tightness,
                ..SoundnessCase::of(Outcome::Fail {
                    message: format!("--strict refuses what the default mode explains: {e}"),
                })
            };
        }
    };
    let verdicts: Vec<SemanticsVerdict> = engines
        .per_semantics
        .iter()
        .map(|(semantics, known)| SemanticsVerdict {
            semantics,
            unknown: known.as_ref().err().cloned(),
            refused: refused.contains(semantics),
            default_dropped: known
                .as_deref()
                .is_ok_and(|r| !dropped_of(r, &default).is_empty()),
            strict_dropped: known
                .as_deref()
                .is_ok_and(|r| !dropped_of(r, &strict).is_empty()),
        })
        .collect();
    // Which semantics a dropped file matches under, for the message.
    let under = |i: usize| -> String {
        let names: Vec<&str> = engines
            .per_semantics
            .iter()
            .filter(|(_, known)| known.as_ref().is_ok_and(|r| r[i] > 0))
            .map(|(name, _)| *name)
            .collect();
        names.join(", ")
    };
    let case = |outcome: Outcome| SoundnessCase {
        outcome,
        tightness,
        verdicts: verdicts.clone(),
        rejection: None,
    };
    let lost = dropped(&strict);
    if let Some(&i) = lost.first() {
        return case(Outcome::Fail {
            message: format!(
                "--strict dropped {} file(s) holding matching rows; first: {} with {} matching row(s) under {}, pruned by {:?}",
                lost.len(),
                describe(subject, i),
                rows[i],
                under(i),
                strict.pruned_by(i)
            ),
        });
    }
    let lost = dropped(&default);
    let Some(&i) = lost.first() else {
        return case(Outcome::Pass);
    };
    let message = format!(
        "dropped {} file(s) holding matching rows; first: {} with {} matching row(s) under {}, pruned by {:?}",
        lost.len(),
        describe(subject, i),
        rows[i],
        under(i),
        default.pruned_by(i)
    );
    // Announced: every dropped matching file is explained by a NaN comparison the report
    // names (guards.rs); any other drop is unannounced.
    if default
        .hazards
        .iter()
        .any(|h| h.guard == Guard::NanBounds && h.effect == Effect::Announced)
    {
        case(Outcome::Announced { message })
    } else {
        case(Outcome::Fail {
            message: format!("unannounced: {message}"),
        })
    }
}

/// What the engines answer: the rows each file matches under each engine's semantics (the
/// oracle's model, the interpreter's Spark and DuckDB, and the engines run as written), and
/// which engines run the predicate and which refuse it. A case of its own where the answers
/// already decide it (an engine broke, nothing runs the predicate).
struct Answers {
    engines: EngineRows,
    run_by: Vec<&'static str>,
    refused: Vec<&'static str>,
    asked_engines: bool,
}

fn answers(
    subject: &Subject,
    predicate: &str,
    truth: Option<&EngineTruth>,
) -> Result<Answers, Box<SoundnessCase>> {
    let skipped = |reason: String| SoundnessCase::of(Outcome::Skipped { reason });
    let broken = |message: String| SoundnessCase::of(Outcome::Broken { message });
    let real = match truth.map(|t| t.ask(subject, predicate)).transpose() {
        Ok(r) => r.unwrap_or_default(),
        Err(e) => return Err(Box::new(broken(format!("an engine broke: {e}")))),
    };
    let run_by: Vec<&'static str> = real
        .iter()
        .filter(|(_, a)| matches!(a, EngineAnswer::Rows(_)))
        .map(|(s, _)| s.name())
        .collect();
    let model = match matching(subject, predicate) {
        Ok(r) => Some(r),
        // The engines still decide where the oracle's model cannot plan the predicate.
        Err(MatchError::Refused(_)) if !run_by.is_empty() => None,
        Err(MatchError::Refused(e)) => {
            let every_engine_refuses = !real.is_empty()
                && real
                    .iter()
                    .all(|(_, a)| matches!(a, EngineAnswer::Refused(_)));
            return Err(Box::new(skipped(if every_engine_refuses {
                format!("{NO_ENGINE_RUNS_IT}, and the oracle refuses it: {e}")
            } else {
                format!("the oracle refuses it: {e}")
            })));
        }
        Err(MatchError::Engine(e)) => return Err(Box::new(broken(e))),
    };
    // Matching under any engine: the model's DataFusion answer, Spark's and DuckDB's (every
    // NaN above all numbers) decided by the interpreter, then the engines' own answers.
    let mut engines = match &model {
        Some(datafusion) => match matching_every_engine(subject, predicate, datafusion) {
            Ok(r) => r,
            Err(e) => return Err(Box::new(SoundnessCase::of(Outcome::Fail { message: e }))),
        },
        None => EngineRows {
            union: vec![0; subject.oracle_index.len()],
            per_semantics: oracle::interpret::Semantics::ALL
                .iter()
                .map(|s| (s.name(), Err("the oracle refuses it".to_string())))
                .collect(),
        },
    };
    let asked_engines = !real.is_empty();
    let mut refused: Vec<&'static str> = Vec::new();
    for (semantics, answer) in real {
        let name = engine_verdict_name(semantics);
        match answer {
            EngineAnswer::Rows(rows) => {
                for (u, r) in engines.union.iter_mut().zip(&rows) {
                    *u = (*u).max(*r);
                }
                engines.per_semantics.push((name, Ok(rows)));
            }
            EngineAnswer::Refused(_) => {
                refused.push(name);
                engines
                    .per_semantics
                    .push((name, Ok(vec![0; subject.oracle_index.len()])));
            }
            EngineAnswer::Unavailable(why) => engines
                .per_semantics
                .push((name, Err(format!("unavailable: {why}")))),
        }
    }
    Ok(Answers {
        engines,
        run_by,
        refused,
        asked_engines,
    })
}

/// explain-core rejected the predicate (exit 2): a failure where an engine runs it, skipped
/// where none does.
fn rejected(e: &str, run_by: Vec<&'static str>, asked_engines: bool) -> SoundnessCase {
    let rejection = Some(Rejection {
        reason: e.to_string(),
        run_by: run_by.clone(),
    });
    let outcome = if run_by.is_empty() {
        Outcome::Skipped {
            reason: if !asked_engines {
                format!("explain-core refuses it: {e}")
            } else {
                format!("{NO_ENGINE_RUNS_IT}, and explain-core refuses it: {e}")
            },
        }
    } else {
        Outcome::Fail {
            message: format!(
                "explain-core rejects it (exit 2) though {} run(s) it: {e}",
                run_by.join(", ")
            ),
        }
    };
    SoundnessCase {
        rejection,
        ..SoundnessCase::of(outcome)
    }
}

/// Both explanations keep the same files after each phase.
fn same_sets(subject: &Subject, a: &Explanation, b: &Explanation) -> Result<(), String> {
    for (phase, x, y) in [
        ("partition pruning", &a.after_partition, &b.after_partition),
        ("the full scan", &a.kept, &b.kept),
    ] {
        if let Some(i) = (0..x.len()).find(|&i| x[i] != y[i]) {
            return Err(format!(
                "after {phase} the forms disagree on {}: kept by the {} form only",
                describe(subject, i),
                if x[i] { "first" } else { "second" }
            ));
        }
    }
    Ok(())
}

/// Invariant 2 for one variant.
pub fn equivalence(
    subject: &Subject,
    predicate: &explain_compiler::ast::Predicate,
    variant: Variant,
) -> Outcome {
    let Some(form) = apply(variant, predicate) else {
        return Outcome::Skipped {
            reason: format!("no {} form", variant.name()),
        };
    };
    let (a, b) = (predicate.to_string(), form.to_string());
    match (explained(subject, &a, false), explained(subject, &b, false)) {
        (Ok(x), Ok(y)) => match same_sets(subject, &x, &y) {
            Ok(()) => Outcome::Pass,
            Err(e) => Outcome::Fail {
                message: format!("{} variant `{b}`: {e}", variant.name()),
            },
        },
        (Err(_), Err(_)) => Outcome::Skipped {
            reason: "both forms refused".into(),
        },
        (Ok(_), Err(e)) => Outcome::Fail {
            message: format!("{} variant `{b}` refused: {e}", variant.name()),
        },
        (Err(e), Ok(_)) => Outcome::Skipped {
            reason: format!("the original is refused: {e}"),
        },
    }
}

/// Invariant 3.
pub fn degradation(subject: &Subject, predicate: &explain_compiler::ast::Predicate) -> Outcome {
    let Some(column) = predicate.columns_and_quoted_names().into_iter().next() else {
        return Outcome::Skipped {
            reason: "no column to degrade on".into(),
        };
    };
    let (degraded_form, remainder) = degraded(predicate, &column);
    let (a, b) = (degraded_form.to_string(), remainder.to_string());
    match (explained(subject, &a, false), explained(subject, &b, false)) {
        (Ok(x), Ok(y)) => match same_sets(subject, &x, &y) {
            Ok(()) => Outcome::Pass,
            Err(e) => Outcome::Fail {
                message: format!("degraded `{a}` vs remainder: {e}"),
            },
        },
        (_, Err(e)) => Outcome::Skipped {
            reason: format!("the remainder is refused: {e}"),
        },
        (Err(e), Ok(_)) => Outcome::Fail {
            message: format!("the degraded form is refused: {e}"),
        },
    }
}

/// Invariant 5.
pub fn accepted(subject: &Subject, predicate: &str) -> Outcome {
    let (ex, rows) = match (
        explained(subject, predicate, false),
        matching(subject, predicate),
    ) {
        (Ok(ex), Ok(rows)) => (ex, rows),
        (_, Err(MatchError::Engine(e))) => return Outcome::Broken { message: e },
        (Err(_), _) | (_, Err(MatchError::Refused(_))) => {
            return Outcome::Skipped {
                reason: "a front end refuses it".into(),
            };
        }
    };
    let columns = subject.kernel.columns();
    for (column, values) in ex.accepted.iter() {
        let Some(values) = values else { continue };
        let Ok(info) = columns.resolve(&explain_compiler::ast::ColumnRef::new([column.as_str()]))
        else {
            continue;
        };
        for (i, file) in subject.kernel.files().iter().enumerate() {
            if rows[i] == 0 {
                continue;
            }
            let value = subject
                .kernel
                .partitions()
                .partition(file.partition)
                .get(&info.partition_key)
                .flatten()
                .map(str::to_string);
            if !values.contains(&value) {
                return Outcome::Fail {
                    message: format!(
                        "{} holds {} matching row(s) with {column}={value:?}, outside the accepted values {values:?}",
                        describe(subject, i),
                        rows[i]
                    ),
                };
            }
        }
    }
    Outcome::Pass
}

/// Invariant 4 for a table: the baseline file sets are equal; and, predicate by predicate,
/// where explain-core and DataFusion's statistics pruning disagree, which one is tighter.
pub fn replay_agreement(subject: &Subject) -> Outcome {
    let kernel: std::collections::BTreeSet<&str> = subject.kernel.paths().collect();
    let oracle: std::collections::BTreeSet<&str> = subject
        .oracle
        .snapshot
        .files
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    if kernel == oracle {
        Outcome::Pass
    } else {
        let only_kernel: Vec<_> = kernel.difference(&oracle).take(3).collect();
        let only_oracle: Vec<_> = oracle.difference(&kernel).take(3).collect();
        Outcome::Fail {
            message: format!(
                "live files differ: only in the kernel {only_kernel:?}, only in the oracle {only_oracle:?}"
            ),
        }
    }
}

/// Kept-set comparison with DataFusion's statistics pruning: (explain-core tighter, oracle
/// tighter) file counts. Explain-core tighter must still be sound (soundness checks that);
/// oracle tighter is a pruning opportunity explain-core misses.
pub fn stats_difference(subject: &Subject, predicate: &str) -> Option<(usize, usize)> {
    let ex = explained(subject, predicate, false).ok()?;
    let kept = oracle::pruning::kept_by_statistics(&subject.oracle.snapshot, predicate).ok()?;
    let mut tighter = (0, 0);
    for (i, index) in subject.oracle_index.iter().enumerate() {
        let Some(j) = index else { continue };
        match (ex.kept[i], kept[*j]) {
            (false, true) => tighter.0 += 1,
            (true, false) => tighter.1 += 1,
            _ => {}
        }
    }
    Some(tighter)
}

/// The checks that read no row (`explain_core::check`): the files kept for the predicate, its
/// negation and its NULL rows hold every file with a row; a narrower predicate keeps no file
/// it prunes, a wider one every file it keeps; for the explainer in both modes, then for
/// delta_kernel alone (the predicate lowered as written, no guard).
pub fn no_row_read(subject: &Subject, predicate: &str) -> Outcome {
    use explain_core::check::{Explainer, Kernel, Verdict, check_with};
    let explainer = Explainer::new(&subject.kernel);
    let kernel = Kernel::new(&subject.kernel);
    let reports = check_with(&subject.kernel, predicate, &explainer).and_then(|explained| {
        check_with(&subject.kernel, predicate, &kernel).map(|alone| (explained, alone))
    });
    let (explained, alone) = match reports {
        Ok(r) => r,
        Err(e) => {
            return Outcome::Skipped {
                reason: format!("explain-core refuses it: {e}"),
            };
        }
    };
    let mut report = explained;
    report.checks.extend(alone.checks.into_iter().map(|mut c| {
        c.mode = "kernel";
        c
    }));
    let first = |verdict: Verdict| report.checks.iter().find(|c| c.verdict == verdict);
    let said = |c: &explain_core::check::CheckResult| {
        format!(
            "{} ({}): {}{}",
            c.check,
            c.mode,
            c.message,
            c.offending
                .first()
                .map(|f| format!("; first: {f}"))
                .unwrap_or_default()
        )
    };
    if let Some(c) = first(Verdict::Fail) {
        Outcome::Fail { message: said(c) }
    } else if let Some(c) = first(Verdict::Announced) {
        Outcome::Announced { message: said(c) }
    } else if first(Verdict::Pass).is_some() {
        Outcome::Pass
    } else {
        Outcome::Skipped {
            reason: format!(
                "no check applies: {}",
                report.checks.first().map_or("", |c| c.message.as_str())
            ),
        }
    }
}
