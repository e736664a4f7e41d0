//! Checks of the explainer that read no row: what it keeps for a predicate held against what
//! it keeps for predicates whose answers are tied to it by logic alone, so a table too large
//! to read (or one a user cannot read in full) can still be checked.
//!
//! - **Ternary partition.** Every row makes `P` TRUE, FALSE or NULL: the files kept for `P`,
//!   for `NOT (P)` and for a predicate TRUE wherever `P` is NULL together hold every file with
//!   a row. `P` is NULL only where one of its columns is NULL when every leaf of `P` compares a
//!   column with non-NULL literals (comparisons, BETWEEN, IN, LIKE; IS NULL and a boolean
//!   column alike), so that predicate is `c1 IS NULL OR c2 IS NULL ...`; where `P` holds a
//!   function, a NULL literal or a double-quoted name, its NULL rows are not known from its
//!   columns and the check does not apply (said so, never counted as a pass).
//! - **Monotonicity.** A predicate that implies `P` keeps no file `P` does not, one that `P`
//!   implies keeps every file `P` does: `(P) AND c IS NOT NULL` and `(P) OR c IS NULL`
//!   against `P`, for the first column of `P`.
//!
//! Both run in the default mode and under `--strict`. A default-mode miss where an
//! explanation announces a NaN hazard is `announced` (the default mode may drop such a file,
//! and says so); under `--strict` every miss is a failure.
//!
//! The same checks hold any reader that exposes its kept files ([`KeptFiles`]): the explainer
//! ([`Explainer`]), delta_kernel alone ([`Kernel`]: the predicate lowered as written, no guard
//! of ours, one kernel scan; one mode, and it announces nothing), a reader of the conformance
//! campaign.

use serde::Serialize;

use crate::explain::{CompiledPredicate, ExplainOptions};
use crate::explain_request::ExplainRequest;
use crate::replay::ReplayedTable;
use crate::session::Session;
use explain_compiler::ast::{ColumnRef, Literal, Operand, Predicate};
use explain_compiler::error::ExplainError;
use explain_compiler::guards::Effect;

/// The version of the check report's JSON.
pub const CHECK_SCHEMA_VERSION: u32 = 1;

/// What the explainer keeps for a predicate, as the checks ask it: per file in order, kept or
/// not, and whether the explanation announces a hazard that lets the default mode drop a file
/// holding a matching row.
#[derive(Clone)]
pub struct Kept {
    pub files: Vec<bool>,
    pub announced: bool,
}

/// Where the checks get their kept sets: the explainer ([`Explainer`]), or in tests one that
/// breaks them on purpose, which the checks must catch.
pub trait KeptFiles {
    fn kept(&self, predicate: &str, strict: bool) -> Result<Kept, ExplainError>;

    /// The modes it has (`false`: default, `true`: `--strict`).
    fn modes(&self) -> &'static [bool] {
        &[false, true]
    }
}

/// Which reader's kept sets the checks hold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Subject {
    /// The explanation's final kept set, default mode and `--strict`.
    #[default]
    Explainer,
    /// delta_kernel alone: the predicate lowered as written, no guard, one scan.
    Kernel,
}

/// delta_kernel alone over one replayed table: the predicate lowered as written, without the
/// explainer's guards (what a reader handing the predicate to the kernel gets), one scan of
/// the replayed rows. A fragment the compiler cannot lower gives the kernel nothing to skip
/// with, as a reader would scan every file then.
pub struct Kernel<'t> {
    table: &'t ReplayedTable,
}

impl<'t> Kernel<'t> {
    pub fn new(table: &'t ReplayedTable) -> Self {
        Self { table }
    }
}

impl KeptFiles for Kernel<'_> {
    fn kept(&self, predicate: &str, _strict: bool) -> Result<Kept, ExplainError> {
        let compiled = CompiledPredicate::compile(predicate, self.table)?;
        let lowered = crate::explain::unguarded_kernel_predicate(&compiled, self.table.columns())?;
        Ok(Kept {
            files: self.table.survivors(lowered)?,
            announced: false,
        })
    }

    fn modes(&self) -> &'static [bool] {
        &[false]
    }
}

/// The explainer over one replayed table.
pub struct Explainer<'t> {
    session: Session<'t>,
}

impl<'t> Explainer<'t> {
    pub fn new(table: &'t ReplayedTable) -> Self {
        Self {
            session: Session::new(table),
        }
    }
}

impl KeptFiles for Explainer<'_> {
    fn kept(&self, predicate: &str, strict: bool) -> Result<Kept, ExplainError> {
        let compiled = CompiledPredicate::compile(predicate, self.session.table())?;
        let explanation = self
            .session
            .explain(Some(&compiled), ExplainOptions { strict })?;
        Ok(Kept {
            files: explanation.kept.to_bools(),
            announced: explanation
                .hazards
                .iter()
                .any(|h| h.effect == Effect::Announced),
        })
    }
}

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Pass,
    /// A default-mode miss the explanations announce (a NaN hazard).
    Announced,
    Fail,
    /// The check cannot be stated for this predicate (`reason` says why).
    NotApplicable,
}

/// One check in one mode.
#[derive(Clone, Debug, Serialize)]
pub struct CheckResult {
    pub check: &'static str,
    /// `default` or `strict`.
    pub mode: &'static str,
    pub verdict: Verdict,
    /// The predicates whose kept sets the check compares.
    pub predicates: Vec<String>,
    /// The files the check is about (for the partition: the files with a row).
    pub files: usize,
    /// The files that break it (paths, at most [`SHOWN_FILES`]).
    pub offending: Vec<String>,
    /// How many files break it.
    pub offending_count: usize,
    pub message: String,
}

/// The files named per failed check.
pub const SHOWN_FILES: usize = 10;

/// Every check of one predicate.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    pub schema_version: u32,
    pub tool_version: &'static str,
    pub table: String,
    pub version: u64,
    pub predicate: String,
    /// Whose kept sets were checked.
    pub subject: Subject,
    pub files: usize,
    pub checks: Vec<CheckResult>,
    /// No check failed (an announced or inapplicable one is not a failure).
    pub passed: bool,
}

pub const TERNARY_PARTITION: &str = "ternary-partition";
pub const MONOTONE_NARROWER: &str = "monotone-narrower";
pub const MONOTONE_WIDER: &str = "monotone-wider";

/// Checks `subject`'s kept sets on `request`'s table and predicate (its time functions bound
/// as an explanation binds them).
pub fn check(request: &ExplainRequest, subject: Subject) -> Result<CheckReport, ExplainError> {
    let predicate = request
        .predicate
        .clone()
        .ok_or_else(|| ExplainError::Usage("check needs a predicate (-w/--where)".into()))?;
    let (location, storage) = request.located()?;
    let (bound, _, _) = request.bound_in_time(crate::request::run_instant())?;
    let predicate_bound = bound.predicate.unwrap_or(predicate);
    let table = ReplayedTable::open_with(&location, &storage, request.version)?;
    let mut report = match subject {
        Subject::Explainer => check_with(&table, &predicate_bound, &Explainer::new(&table))?,
        Subject::Kernel => check_with(&table, &predicate_bound, &Kernel::new(&table))?,
    };
    report.subject = subject;
    Ok(report)
}

/// [`check`] with the kept sets from `kept`.
pub fn check_with(
    table: &ReplayedTable,
    predicate: &str,
    kept: &dyn KeptFiles,
) -> Result<CheckReport, ExplainError> {
    let parsed = explain_compiler::sql::parse_predicate(predicate)?;
    let modes = kept.modes();
    let kept = &Asked {
        source: kept,
        answers: std::cell::RefCell::default(),
    };
    // The predicate itself is explained first: bad input is refused as an explanation
    // refuses it, before any derived predicate is built from it.
    kept.kept(predicate, false)?;
    // Its columns, and the double-quoted names that name one of the table's (a column in
    // DuckDB and DataFusion).
    let columns: Vec<ColumnRef> = parsed
        .columns_and_quoted_names()
        .into_iter()
        .filter(|c| table.columns().resolve(c).is_ok())
        .collect();
    let mut checks = Vec::new();
    for &strict in modes {
        checks.push(ternary_partition(
            table, predicate, &parsed, &columns, kept, strict,
        )?);
        checks.extend(monotonicity(table, predicate, &columns, kept, strict)?);
    }
    Ok(CheckReport {
        schema_version: CHECK_SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        table: table.location().to_string(),
        version: table.version(),
        predicate: predicate.to_string(),
        subject: Subject::default(),
        files: table.files().len(),
        passed: checks.iter().all(|c| c.verdict != Verdict::Fail),
        checks,
    })
}

/// Each predicate asked once per mode: the checks share the predicate's own kept set.
struct Asked<'a> {
    source: &'a dyn KeptFiles,
    answers: std::cell::RefCell<std::collections::HashMap<(String, bool), Kept>>,
}

impl KeptFiles for Asked<'_> {
    fn kept(&self, predicate: &str, strict: bool) -> Result<Kept, ExplainError> {
        let key = (predicate.to_string(), strict);
        if let Some(kept) = self.answers.borrow().get(&key) {
            return Ok(kept.clone());
        }
        let kept = self.source.kept(predicate, strict)?;
        self.answers.borrow_mut().insert(key, kept.clone());
        Ok(kept)
    }
}

fn mode(strict: bool) -> &'static str {
    if strict { "strict" } else { "default" }
}

/// The ternary partition: kept(P) + kept(NOT P) + kept(P is NULL) hold every file with a row.
fn ternary_partition(
    table: &ReplayedTable,
    predicate: &str,
    parsed: &Predicate,
    columns: &[ColumnRef],
    kept: &dyn KeptFiles,
    strict: bool,
) -> Result<CheckResult, ExplainError> {
    let negated = format!("NOT ({predicate})");
    let mut result = CheckResult {
        check: TERNARY_PARTITION,
        mode: mode(strict),
        verdict: Verdict::NotApplicable,
        predicates: vec![predicate.to_string(), negated.clone()],
        files: 0,
        offending: Vec::new(),
        offending_count: 0,
        message: String::new(),
    };
    let null_rows = match null_rows(parsed, columns) {
        Ok(p) => p,
        Err(reason) => {
            result.message = reason;
            return Ok(result);
        }
    };
    let answers = [
        kept.kept(predicate, strict)?,
        kept.kept(&negated, strict)?,
        match &null_rows {
            Some(p) => kept.kept(&p.to_string(), strict)?,
            // A predicate of no column is never NULL.
            None => Kept {
                files: vec![false; table.files().len()],
                announced: false,
            },
        },
    ];
    if let Some(p) = &null_rows {
        result.predicates.push(p.to_string());
    }
    // A file with a row: its statistics count one, or give no count.
    let with_rows: Vec<usize> = table
        .files()
        .iter()
        .enumerate()
        .filter(|(_, f)| f.num_records != Some(0))
        .map(|(i, _)| i)
        .collect();
    result.files = with_rows.len();
    let missed: Vec<usize> = with_rows
        .into_iter()
        .filter(|&i| {
            answers
                .iter()
                .all(|a| !a.files.get(i).copied().unwrap_or(false))
        })
        .collect();
    let announced = answers.iter().any(|a| a.announced);
    settle(
        &mut result,
        table,
        &missed,
        strict,
        announced,
        "file(s) with a row kept for none of the predicate, its negation and its NULL rows",
    );
    Ok(result)
}

/// Monotonicity: `(P) AND c IS NOT NULL` keeps a subset of P's files, `(P) OR c IS NULL` a
/// superset.
fn monotonicity(
    table: &ReplayedTable,
    predicate: &str,
    columns: &[ColumnRef],
    kept: &dyn KeptFiles,
    strict: bool,
) -> Result<Vec<CheckResult>, ExplainError> {
    let Some(column) = columns.first() else {
        return Ok([MONOTONE_NARROWER, MONOTONE_WIDER]
            .into_iter()
            .map(|check| CheckResult {
                check,
                mode: mode(strict),
                verdict: Verdict::NotApplicable,
                predicates: vec![predicate.to_string()],
                files: 0,
                offending: Vec::new(),
                offending_count: 0,
                message: "the predicate names no column".into(),
            })
            .collect());
    };
    let is_null = |negated| Predicate::IsNull {
        column: column.clone(),
        negated,
    };
    let narrower = format!("({predicate}) AND {}", is_null(true));
    let wider = format!("({predicate}) OR {}", is_null(false));
    let base = kept.kept(predicate, strict)?;
    let mut out = Vec::new();
    for (check, other, narrows) in [
        (MONOTONE_NARROWER, narrower, true),
        (MONOTONE_WIDER, wider, false),
    ] {
        let derived = kept.kept(&other, strict)?;
        let kept_of = |a: &Kept, i: usize| a.files.get(i).copied().unwrap_or(false);
        // Narrower: a file the derived predicate keeps and P does not; wider: the reverse.
        let offending: Vec<usize> = (0..table.files().len())
            .filter(|&i| {
                if narrows {
                    kept_of(&derived, i) && !kept_of(&base, i)
                } else {
                    kept_of(&base, i) && !kept_of(&derived, i)
                }
            })
            .collect();
        let mut result = CheckResult {
            check,
            mode: mode(strict),
            verdict: Verdict::NotApplicable,
            predicates: vec![predicate.to_string(), other],
            files: table.files().len(),
            offending: Vec::new(),
            offending_count: 0,
            message: String::new(),
        };
        settle(
            &mut result,
            table,
            &offending,
            strict,
            false,
            if narrows {
                "file(s) kept for the narrower predicate and pruned for the predicate"
            } else {
                "file(s) kept for the predicate and pruned for the wider one"
            },
        );
        out.push(result);
    }
    Ok(out)
}

/// The verdict of a check from the files that break it.
fn settle(
    result: &mut CheckResult,
    table: &ReplayedTable,
    offending: &[usize],
    strict: bool,
    announced: bool,
    what: &str,
) {
    result.offending_count = offending.len();
    result.offending = offending
        .iter()
        .take(SHOWN_FILES)
        .map(|&i| table.path(i).to_string())
        .collect();
    result.verdict = match (offending.is_empty(), strict, announced) {
        (true, _, _) => Verdict::Pass,
        (false, false, true) => Verdict::Announced,
        (false, true, _) | (false, false, false) => Verdict::Fail,
    };
    result.message = match result.verdict {
        Verdict::Pass => "holds".into(),
        Verdict::Announced => format!(
            "{} {what}; the default mode announces a NaN hazard that allows it",
            offending.len()
        ),
        Verdict::Fail => format!("{} {what}", offending.len()),
        Verdict::NotApplicable => String::new(),
    };
}

/// A predicate TRUE wherever `p` is NULL: `Ok(None)` where `p` is never NULL (it names no
/// column), an error saying why where its NULL rows are not known from its columns.
fn null_rows(p: &Predicate, columns: &[ColumnRef]) -> Result<Option<Predicate>, String> {
    null_strict(p)?;
    let mut leaves: Vec<Predicate> = columns
        .iter()
        .map(|column| Predicate::IsNull {
            column: column.clone(),
            negated: false,
        })
        .collect();
    Ok(match leaves.len() {
        0 => None,
        1 => leaves.pop(),
        _ => Some(Predicate::Or(leaves)),
    })
}

/// `Ok` where `p` is NULL only on rows where one of its columns is NULL.
fn null_strict(p: &Predicate) -> Result<(), String> {
    let literal = |l: &Literal| match l {
        Literal::Null => Err("it holds a NULL literal".to_string()),
        Literal::Number(_)
        | Literal::String(_)
        | Literal::Boolean(_)
        | Literal::Typed { .. }
        | Literal::Binary(_) => Ok(()),
    };
    let operand = |o: &Operand| match o {
        Operand::Column(_) => Ok(()),
        Operand::Literal(l) => literal(l),
        // A column in DuckDB and DataFusion (NULL where it is), a string in Spark (never
        // NULL): the name's column, where the table has one, is among the columns.
        Operand::QuotedName(_) => Ok(()),
    };
    match p {
        Predicate::And(items) | Predicate::Or(items) => items.iter().try_for_each(null_strict),
        Predicate::Not(inner) => null_strict(inner),
        Predicate::Compare { left, right, .. } => {
            operand(left)?;
            operand(right)
        }
        Predicate::InList { list, .. } => list.iter().try_for_each(literal),
        Predicate::Between { low, high, .. } => {
            literal(low)?;
            literal(high)
        }
        Predicate::Like { .. } | Predicate::IsNull { .. } | Predicate::BoolColumn(_) => Ok(()),
        Predicate::Constant(l) => literal(l),
        Predicate::QuotedInList { list, .. } => list.iter().try_for_each(operand),
        Predicate::Unsupported { sql, .. } => Err(format!(
            "`{sql}` may be NULL where none of its columns is (a function or an expression)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(p: &str) -> Predicate {
        explain_compiler::sql::parse_predicate(p).unwrap()
    }

    fn null_rows(p: &Predicate) -> Result<Option<Predicate>, String> {
        super::null_rows(p, &p.columns_and_quoted_names())
    }

    #[test]
    fn null_rows_are_the_columns_null_rows_where_every_leaf_is_null_strict() {
        assert_eq!(
            null_rows(&parsed("a > 1 AND (b = 'x' OR NOT c IN (1, 2))"))
                .unwrap()
                .unwrap()
                .to_string(),
            "a IS NULL OR b IS NULL OR c IS NULL"
        );
        assert_eq!(
            null_rows(&parsed("a BETWEEN 1 AND 2"))
                .unwrap()
                .unwrap()
                .to_string(),
            "a IS NULL"
        );
        assert!(null_rows(&parsed("TRUE")).unwrap().is_none());
        assert_eq!(
            null_rows(&parsed("\"a\" = 'x'"))
                .unwrap()
                .unwrap()
                .to_string(),
            "a IS NULL"
        );
        for not_strict in ["a IN (1, NULL)", "a = NULL", "abs(a) > 1", "a + 1 > 2"] {
            assert!(null_rows(&parsed(not_strict)).is_err(), "{not_strict}");
        }
    }
}
