//! A reader's failure on a table whatever the predicate: one cause, the table's.
//!
//! Some failures belong to the table, not to any predicate: a reader that errors on every read
//! of a table whose `_last_checkpoint` names a checkpoint past the last commit, one that
//! resolves columns by name under column mapping by id and reads NULLs. Keyed per predicate,
//! each such failure becomes a cause per shape the generator draws (thousands in a 30-minute
//! run). So the first time a reader fails on a table, the campaign probes the table with
//! predicates that select by no value ([`probe`]): `TRUE` (every row read), then every
//! primitive top-level column `IS NOT NULL` together (every value read as present), each
//! column alone where no row has them all ([`present`]). A probe
//! the reader fails is the table's cause (`(the table)` in its key, minimized to the probe);
//! the table's later failing cases that the probe's failure covers ([`Probe::covers`]) are
//! counted under it, not minimized one by one.

use explain_compiler::ast::{ColumnRef, Predicate};

use super::cause::message_pattern;
use oracle::engines::Answer;

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

/// Every top-level column of a primitive type `IS NOT NULL`, one predicate per column (a reader
/// that reads a column as NULL loses the rows where it is not).
pub fn present(table: &TableUnderTest) -> Vec<Predicate> {
    table
        .loaded
        .snapshot
        .fields
        .iter()
        .filter(|f| f.data_type.is_primitive())
        .map(|f| Predicate::IsNull {
            column: ColumnRef::new([f.name.clone()]),
            negated: true,
        })
        .collect()
}

/// The first probe `adapter` fails on `table` with an error, a refusal, or missing or extra
/// rows; `None` where it reads every probe as its engine does over plain rows. The probes:
/// `TRUE`; every column of [`present`] together; and, where no row has every column (the AND
/// matches nothing in the truth, so it cannot show a column read as NULL), each column alone.
pub fn probe(adapter: &mut dyn Adapter, table: &TableUnderTest) -> Option<Probe> {
    if let Some(p) = failed(adapter, table, "TRUE".into()) {
        return Some(p);
    }
    let present = present(table);
    let all = match present.as_slice() {
        [] => return None,
        [one] => return failed(adapter, table, one.to_string()),
        _ => Predicate::And(present.clone()).to_string(),
    };
    if let Some(p) = failed(adapter, table, all.clone()) {
        return Some(p);
    }
    let says_nothing = matches!(
        adapter.truth(table, &all),
        Ok(Answer::Rows(rows)) if rows.iter().sum::<u64>() == 0
    );
    if !says_nothing {
        return None;
    }
    present
        .iter()
        .find_map(|p| failed(adapter, table, p.to_string()))
}

/// `sql` as a probe the reader failed, if it did: an error, a refusal, missing or extra rows
/// (a probe has no equivalent spelling to differ from; the other verdicts are no failure).
fn failed(adapter: &mut dyn Adapter, table: &TableUnderTest, sql: String) -> Option<Probe> {
    let (verdict, detail) = check(adapter, table, &sql);
    (verdict.has_words() || verdict.wrong_rows()).then_some(Probe {
        sql,
        verdict,
        detail,
    })
}
