//! Accepted partition values: for each partition column, the values present in the snapshot
//! for which the predicate can still be TRUE.
//!
//! An extractor that only reads equality, IN and IS NULL off the tree (AND intersects, OR
//! unions only the columns every branch constrains, `{}` is unsatisfiable) misses ranges,
//! `!=`, negations and LIKE. This one asks the partition-literal evaluator instead: bind the
//! column to one present value, leave every other column unknown, and keep the value unless the
//! predicate is then never TRUE. The evaluator compares typed values (never their text) and
//! treats anything it cannot decide as "may be TRUE", so:
//!
//! **Soundness.** If some row of a file satisfies the predicate, binding the file's value of
//! `c` alone cannot make the predicate never TRUE: the evaluator's result is a superset of the
//! truth values over all rows and all values of the other columns (Kleene logic is monotone in
//! the set of possible inputs). So the accepted set of `c` holds the value of every matching
//! file; harness invariant 5 checks it against the data.
//!
//! A column the predicate does not reference accepts any value and is reported as `None`.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use crate::nnf::Nnf;
use crate::partition_eval::{
    OneValue, PreparedPartitionPredicate, RawPartitionValues, compare, typed_partition_value,
};
use crate::schema::TableColumns;

/// Per partition column (logical name): the accepted raw values (`None` in the list for a null
/// partition value), in typed order; `None` when the predicate does not constrain the column.
pub type AcceptedValues = BTreeMap<String, Option<Vec<Option<String>>>>;

/// Per partition key (physical), the distinct raw values present in the snapshot: what
/// [`accepted_partition_values`] decides. A key's values are collected on first use and kept,
/// so a predicate that constrains no partition column never pays for a table's partitions (a
/// table partitioned by a column of high cardinality has as many as files), and many
/// predicates pay once.
pub struct PresentValues {
    /// Each distinct set of values once, as the replay lists them (shared with it).
    partitions: Arc<Vec<RawPartitionValues>>,
    by_key: BTreeMap<String, OnceLock<BTreeSet<Option<String>>>>,
}

impl PresentValues {
    /// The distinct values of partition key `key` (`None` for a null value or a file that
    /// lacks the key); `None` when `key` is no partition column's.
    pub fn get(&self, key: &str) -> Option<&BTreeSet<Option<String>>> {
        let cell = self.by_key.get(key)?;
        Some(cell.get_or_init(|| {
            self.partitions
                .iter()
                .map(|p| p.get(key).flatten().map(str::to_string))
                .collect()
        }))
    }

    /// Whether `key`'s values have been collected.
    #[cfg(test)]
    pub(crate) fn is_collected(&self, key: &str) -> bool {
        self.by_key
            .get(key)
            .is_some_and(|cell| cell.get().is_some())
    }
}

/// The present values of a snapshot's partitions (`partitions`: each distinct set of values
/// once, as the replay lists them), for every partition column the schema resolves.
pub fn present_values(
    partitions: Arc<Vec<RawPartitionValues>>,
    columns: &TableColumns,
) -> PresentValues {
    let by_key = columns
        .partition_columns()
        .iter()
        .filter_map(|name| {
            columns
                .resolve(&crate::ast::ColumnRef::new([name.as_str()]))
                .ok()
        })
        .map(|info| (info.partition_key, OnceLock::new()))
        .collect();
    PresentValues { partitions, by_key }
}

pub fn accepted_partition_values(
    predicate: &Nnf,
    present: &PresentValues,
    columns: &TableColumns,
) -> AcceptedValues {
    let referenced: Vec<String> = columns
        .split_columns(predicate)
        .0
        .iter()
        .map(|i| i.column.dotted())
        .collect();
    // Prepared once: every present value of every column is decided against it.
    let prepared = PreparedPartitionPredicate::new(predicate, columns);
    let mut out = AcceptedValues::new();
    for name in columns.partition_columns() {
        if !referenced.contains(name) {
            out.insert(name.clone(), None);
            continue;
        }
        let Ok(info) = columns.resolve(&crate::ast::ColumnRef::new([name.as_str()])) else {
            out.insert(name.clone(), None);
            continue;
        };
        let Some(present) = present.get(&info.partition_key) else {
            out.insert(name.clone(), None);
            continue;
        };
        // Typed order: NULL first, then by value; values that do not parse last, by text.
        // Each accepted value is typed once, not once per comparison.
        let mut keyed: Vec<_> = present
            .iter()
            .map(|v| v.as_deref())
            .filter(|value| {
                let bound = OneValue {
                    key: &info.partition_key,
                    value: *value,
                };
                prepared.evaluate(&bound).may_be_true()
            })
            .map(|v| (typed_partition_value(v, &info), v.map(str::to_string)))
            .collect();
        keyed.sort_by(|(x, a), (y, b)| match (x, y) {
            (Some(x), Some(y)) if x.is_null() || y.is_null() => y.is_null().cmp(&x.is_null()),
            (Some(x), Some(y)) => compare(x, y)
                .unwrap_or(Ordering::Equal)
                .then_with(|| a.cmp(b)),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => a.cmp(b),
        });
        let accepted: Vec<Option<String>> = keyed.into_iter().map(|(_, v)| v).collect();
        out.insert(name.clone(), Some(accepted));
    }
    out
}
