//! A float hazard as a cause: rows a reader gets wrong only where a float column holds NaN or a
//! signed zero.
//!
//! NaN and the two zeros break the order statistics and partition values are compared in:
//! Parquet statistics leave NaN out, engines order NaN above (or, negative, below) every number,
//! SQL reads `-0.0 = 0` where a total order does not. A reader that prunes by such an order
//! fails on every comparison operator and every literal class of that column, so keyed by the
//! predicate's shape ([`super::cause`]) one fault is a cause per operator, per column kind, per
//! literal class (183 causes in a 30-minute run). Its identity is the hazard instead: the
//! reader, the verdict, the hazard and the kinds of the columns holding it, the table's
//! features (`kernel missing-rows | NaN in float | partitioned`).
//!
//! A case is counted under a hazard only where the hazard can account for every row the reader
//! got wrong ([`hazard`]): in every file, the rows the reader lost or gained are at most the
//! file's rows whose value in a column the predicate reads is NaN (or a zero). The harness
//! reads the table's rows itself (the oracle's replay), so the bound is exact; a difference
//! the hazard rows cannot cover keeps its shape's cause. The bound is necessary, not
//! sufficient: a predicate that also reads other columns (`id + 1 > 258 AND x > 0`) can lose a
//! few rows for another reason that happen to be no more than the NaN rows. So where the
//! predicate reads a column that is not a float, the campaign asks for a part of it that reads
//! floats only and fails alone, covered by the hazard too (`confirmed_hazard` in `mod.rs`);
//! without one the case keeps its shape's cause.

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type, UInt32Type};
use explain_compiler::ast::{ColumnRef, Literal, Operand, Predicate};
use oracle::engines::Answer;
use oracle::matching::FILE_COLUMN;

use super::{Reading, TableUnderTest, cause};

/// What a reader got wrong, by file where it says which.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wrong {
    /// Per live file (the oracle's order), the rows lost or gained.
    PerFile(Vec<u64>),
    /// The table's rows lost or gained, where the reader does not say which file a row is in.
    Total(u64),
}

/// What `reading` got wrong against `truth`, or `None` where neither gives rows.
pub fn wrong(reading: &Reading, truth: &Answer) -> Option<Wrong> {
    let Answer::Rows(rows) = truth else {
        return None;
    };
    match reading {
        Reading::Rows {
            per_file: Some(per_file),
            ..
        } => Some(Wrong::PerFile(
            rows.iter()
                .zip(per_file)
                .map(|(t, r)| t.abs_diff(*r))
                .collect(),
        )),
        Reading::Rows {
            total,
            per_file: None,
        } => Some(Wrong::Total(rows.iter().sum::<u64>().abs_diff(*total))),
        // A file not kept loses its matching rows.
        Reading::Survivors(kept) => Some(Wrong::PerFile(
            rows.iter()
                .enumerate()
                .map(|(i, n)| {
                    if kept.get(i).copied().unwrap_or(false) {
                        0
                    } else {
                        *n
                    }
                })
                .collect(),
        )),
        Reading::Refused(_) | Reading::PlanDependent(_) => None,
    }
}

/// Where two readings of equivalent spellings differ (a difference of variants).
pub fn between(a: &Reading, b: &Reading) -> Option<Wrong> {
    match (a, b) {
        (
            Reading::Rows {
                per_file: Some(x), ..
            },
            Reading::Rows {
                per_file: Some(y), ..
            },
        ) => Some(Wrong::PerFile(
            x.iter().zip(y).map(|(p, q)| p.abs_diff(*q)).collect(),
        )),
        (Reading::Rows { total: x, .. }, Reading::Rows { total: y, .. }) => {
            Some(Wrong::Total(x.abs_diff(*y)))
        }
        (Reading::Rows { .. } | Reading::Survivors(_) | Reading::Refused(_), _)
        | (Reading::PlanDependent(_), _) => None,
    }
}

/// The hazards, the narrowest first: a case is counted under the first that covers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hazard {
    NaN,
    SignedZero,
    Either,
}

impl Hazard {
    fn name(self) -> &'static str {
        match self {
            Hazard::NaN => "NaN",
            Hazard::SignedZero => "signed zero",
            Hazard::Either => "NaN or signed zero",
        }
    }

    /// Whether a row's value is this hazard (`zero`: whether a zero is one in its column).
    fn holds(self, v: f64, zero: bool) -> bool {
        match self {
            Hazard::NaN => v.is_nan(),
            Hazard::SignedZero => zero && v == 0.0,
            Hazard::Either => v.is_nan() || (zero && v == 0.0),
        }
    }
}

/// A float column the predicate reads: its kind, its values per loaded batch, whether a zero
/// is a hazard in it (the column holds a negative zero, or the predicate spells one).
struct FloatColumn {
    name: String,
    kind: String,
    values: Vec<Vec<Option<f64>>>,
    zero: bool,
}

/// A hazard that can account for a case's wrong rows: its label (the cause's middle part,
/// `NaN in double`), the hazard and the columns holding it in the files the reader got wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub label: String,
    hazard: Hazard,
    /// The columns (as the predicate names them) holding the hazard where rows went wrong.
    pub columns: Vec<String>,
}

impl Found {
    /// Whether `p` still reads one of the hazard's columns.
    pub fn read_by(&self, p: &Predicate) -> bool {
        p.columns().iter().any(|c| {
            c.path.len() == 1
                && self
                    .columns
                    .iter()
                    .any(|h| h.eq_ignore_ascii_case(&c.path[0]))
        })
    }

    /// The rows that hold the hazard in its columns, to remove from a copy of the table
    /// ([`super::surgery`]): removing them must remove the failure.
    pub fn rows(&self) -> super::surgery::DropRows {
        super::surgery::DropRows {
            columns: self.columns.clone(),
            holds: match self.hazard {
                Hazard::NaN => f64::is_nan,
                Hazard::SignedZero => |v| v == 0.0,
                Hazard::Either => |v| v.is_nan() || v == 0.0,
            },
        }
    }
}

/// The hazard of the columns `tree` reads that can account for a case's wrong rows (`wrong`),
/// or `None` where no hazard can. A candidate only: [`Found::rows`] removed from the table must
/// remove the failure too (`confirm` in `mod.rs`).
pub fn hazard(table: &TableUnderTest, tree: &Predicate, wrong: &Wrong) -> Option<Found> {
    let total = match wrong {
        Wrong::PerFile(per_file) => per_file.iter().sum(),
        Wrong::Total(n) => *n,
    };
    if total == 0 {
        return None;
    }
    let batches = table.loaded.rows();
    let literal_zero = negative_zero_literal(tree);
    let columns: Vec<FloatColumn> = tree
        .columns()
        .iter()
        .filter_map(|c| float_column(table, batches, c, literal_zero))
        .collect();
    if columns.is_empty() {
        return None;
    }
    let files = table.files();
    [Hazard::NaN, Hazard::SignedZero, Hazard::Either]
        .into_iter()
        .find_map(|h| covered(h, &columns, batches, files, wrong))
}

/// `h` with the kinds and names of its columns where `h`'s rows cover every wrong row.
fn covered(
    h: Hazard,
    columns: &[FloatColumn],
    batches: &[RecordBatch],
    files: usize,
    wrong: &Wrong,
) -> Option<Found> {
    // Per file, the rows holding `h` in some column; per column, whether it holds `h` in a
    // file the reader got wrong.
    let mut rows = vec![0u64; files];
    let mut named = vec![false; columns.len()];
    let is_wrong = |f: usize| match wrong {
        Wrong::PerFile(per_file) => per_file.get(f).is_some_and(|n| *n > 0),
        Wrong::Total(_) => true,
    };
    for (b, batch) in batches.iter().enumerate() {
        let file = batch
            .column_by_name(FILE_COLUMN)?
            .as_primitive::<UInt32Type>();
        for row in 0..batch.num_rows() {
            let f = file.value(row) as usize;
            let mut any = false;
            for (c, column) in columns.iter().enumerate() {
                if column.values[b][row].is_some_and(|v| h.holds(v, column.zero)) {
                    any = true;
                    named[c] |= is_wrong(f);
                }
            }
            if any && let Some(n) = rows.get_mut(f) {
                *n += 1;
            }
        }
    }
    let fits = match wrong {
        Wrong::PerFile(per_file) => per_file.iter().zip(&rows).all(|(w, h)| w <= h),
        Wrong::Total(n) => *n <= rows.iter().sum(),
    };
    if !fits {
        return None;
    }
    let mut kinds: Vec<&str> = columns
        .iter()
        .zip(&named)
        .filter(|(_, n)| **n)
        .map(|(c, _)| c.kind.as_str())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    if kinds.is_empty() {
        return None;
    }
    let names = columns
        .iter()
        .zip(&named)
        .filter(|(_, n)| **n)
        .map(|(c, _)| c.name.clone())
        .collect();
    Some(Found {
        label: format!("{} in {}", h.name(), kinds.join(", ")),
        hazard: h,
        columns: names,
    })
}

/// Whether `column` is a top-level float or double column of the table (a hazard's column).
pub fn is_float(table: &TableUnderTest, column: &ColumnRef) -> bool {
    let [name] = column.path.as_slice() else {
        return false;
    };
    table.loaded.rows().first().is_some_and(|batch| {
        batch
            .schema()
            .fields()
            .iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
            .is_some_and(|f| matches!(f.data_type(), DataType::Float32 | DataType::Float64))
    })
}

/// Whether every column `p` reads (one at least) is a float or double column.
pub fn reads_only_floats(table: &TableUnderTest, p: &Predicate) -> bool {
    let columns = p.columns();
    !columns.is_empty() && columns.iter().all(|c| is_float(table, c))
}

/// A top-level float or double column's values per batch, or `None` for any other column.
fn float_column(
    table: &TableUnderTest,
    batches: &[RecordBatch],
    column: &ColumnRef,
    literal_zero: bool,
) -> Option<FloatColumn> {
    let [name] = column.path.as_slice() else {
        return None;
    };
    let mut values = Vec::with_capacity(batches.len());
    for batch in batches {
        let schema = batch.schema();
        let i = schema
            .fields()
            .iter()
            .position(|f| f.name().eq_ignore_ascii_case(name))?;
        values.push(floats(batch.column(i).as_ref())?);
    }
    let zero = literal_zero
        || values
            .iter()
            .flatten()
            .any(|v| v.is_some_and(|v| v == 0.0 && v.is_sign_negative()));
    Some(FloatColumn {
        name: name.clone(),
        kind: cause::kind_of(&table.loaded.snapshot, column),
        values,
        zero,
    })
}

/// A float or double array's values as doubles; `None` for another type.
fn floats(array: &dyn Array) -> Option<Vec<Option<f64>>> {
    Some(match array.data_type() {
        DataType::Float64 => array.as_primitive::<Float64Type>().iter().collect(),
        DataType::Float32 => array
            .as_primitive::<Float32Type>()
            .iter()
            .map(|v| v.map(f64::from))
            .collect(),
        _ => return None,
    })
}

/// Whether the predicate spells a negative zero (`-0`, `-0.0`, `-0e-1`, `'-0'`): then a zero
/// is a hazard in every float column it reads, whatever the column holds.
fn negative_zero_literal(p: &Predicate) -> bool {
    let zero = |l: &Literal| match l {
        Literal::Number(n) | Literal::String(n) => {
            let n = n.trim();
            n.starts_with('-') && n.parse::<f64>().is_ok_and(|v| v == 0.0)
        }
        Literal::Boolean(_) | Literal::Null | Literal::Typed { .. } | Literal::Binary(_) => false,
    };
    let operand = |o: &Operand| matches!(o, Operand::Literal(l) if zero(l));
    match p {
        Predicate::Compare { left, right, .. } => operand(left) || operand(right),
        Predicate::And(items) | Predicate::Or(items) => items.iter().any(negative_zero_literal),
        Predicate::Not(inner) => negative_zero_literal(inner),
        Predicate::InList { list, .. } => list.iter().any(zero),
        Predicate::QuotedInList { list, .. } => list.iter().any(operand),
        Predicate::Between { low, high, .. } => zero(low) || zero(high),
        Predicate::IsNull { .. }
        | Predicate::Like { .. }
        | Predicate::BoolColumn(_)
        | Predicate::Constant(_) => false,
        // An expression's text: its literals are not parsed, so read its words.
        Predicate::Unsupported { sql, .. } => sql
            .split(|c: char| c.is_whitespace() || "(),".contains(c))
            .any(|w| w.starts_with('-') && w.parse::<f64>().is_ok_and(|v| v == 0.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::negative_zero_literal;

    fn spells(sql: &str) -> bool {
        negative_zero_literal(&explain_compiler::sql::parse_predicate(sql).unwrap())
    }

    #[test]
    fn a_negative_zero_is_read_in_every_spelling() {
        for sql in [
            "x = -0",
            "x > -0.0",
            "x IN (1, -0e-1)",
            "x BETWEEN -0.0 AND 1",
            "x NOT IN ('-0')",
            "x + 1 > -0",
        ] {
            assert!(spells(sql), "{sql}");
        }
        for sql in ["x = 0", "x > -0.5", "x IN (0.0, '0')", "x BETWEEN -1 AND 0"] {
            assert!(!spells(sql), "{sql}");
        }
    }
}
