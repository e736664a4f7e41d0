//! A reader's failure on a table whatever the predicate: one cause, the table's.
//!
//! Some failures belong to the table, not to any predicate: a reader that errors on every read
//! of a table whose `_last_checkpoint` names a checkpoint past the last commit, one that
//! resolves columns by name under column mapping by id and reads NULLs. Keyed per predicate,
//! each such failure becomes a cause per shape the generator draws (thousands in a 30-minute
//! run). So the first time a reader fails on a table, the campaign probes the table with
//! predicates that select by no value ([`probes`]): `TRUE` (every row read), then every
//! primitive top-level column `IS NOT NULL` together (every value read as present). A probe
//! the reader fails is the table's cause (`(the table)` in its key, minimized to the probe);
//! the table's later failing cases that the probe's failure covers ([`Probe::covers`]) are
//! counted under it, not minimized one by one.

use explain_compiler::ast::{ColumnRef, Predicate};
use oracle::delta_schema::DeltaType;

use super::cause::message_pattern;
use super::{Adapter, TableUnderTest, Verdict, check};

/// A probe the reader failed: the predicate, the verdict, what differed.
#[derive(Clone, Debug)]
pub struct Probe {
    pub sql: String,
    pub verdict: Verdict,
    pub detail: String,
}

impl Probe {
    /// Whether a failing case (`verdict`, `detail`) is this probe's failure met again: an
    /// error or a refusal in the same words; missing or extra rows where the probe read the
    /// table's rows or values wrong (a predicate over wrong values can lose rows or gain them).
    pub fn covers(&self, verdict: Verdict, detail: &str) -> bool {
        if self.verdict.has_words() {
            verdict == self.verdict && message_pattern(detail) == message_pattern(&self.detail)
        } else {
            self.verdict.wrong_rows() && verdict.wrong_rows()
        }
    }
}

/// The predicates that select by no value: `TRUE`, then every top-level column of a primitive
/// type `IS NOT NULL` (a reader that reads a column as NULL loses the rows where it is not).
pub fn probes(table: &TableUnderTest) -> Vec<String> {
    let mut out = vec!["TRUE".to_string()];
    let present: Vec<Predicate> = table
        .loaded
        .snapshot
        .fields
        .iter()
        .filter(|f| match f.data_type {
            DeltaType::Primitive(_) | DeltaType::Decimal { .. } => true,
            DeltaType::Struct(_) | DeltaType::Array { .. } | DeltaType::Map { .. } => false,
        })
        .map(|f| Predicate::IsNull {
            column: ColumnRef::new([f.name.clone()]),
            negated: true,
        })
        .collect();
    match present.len() {
        0 => {}
        1 => out.push(present[0].to_string()),
        _ => out.push(Predicate::And(present).to_string()),
    }
    out
}

/// The first probe `adapter` fails on `table` with an error, a refusal, or missing or extra
/// rows; `None` where it reads every probe as its engine does over plain rows.
pub fn probe(adapter: &mut dyn Adapter, table: &TableUnderTest) -> Option<Probe> {
    probes(table).into_iter().find_map(|sql| {
        let (verdict, detail) = check(adapter, table, &sql);
        // A probe has no equivalent spelling to differ from; the rest are no failure.
        let table_wide = verdict.has_words() || verdict.wrong_rows();
        table_wide.then_some(Probe {
            sql,
            verdict,
            detail,
        })
    })
}
