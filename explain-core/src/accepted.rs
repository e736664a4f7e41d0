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
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use crate::partition_table::{FragmentIndex, PartitionTable, Slot};
use explain_compiler::nnf::Nnf;
use explain_compiler::partition_eval::{
    OneValue, PreparedPartitionPredicate, compare, typed_partition_value,
};
use explain_compiler::schema::TableColumns;

/// Per partition column (logical name): the accepted raw values (`None` in the list for a null
/// partition value), in typed order; `None` when the predicate does not constrain the column.
pub type AcceptedValues = BTreeMap<String, Option<Vec<Option<String>>>>;

/// Per partition key (physical), the distinct raw values present in the snapshot: what
/// [`accepted_partition_values`] decides. A key's values are collected on first use and kept,
/// so a predicate that constrains no partition column never pays for a table's partitions (a
/// table partitioned by a column of high cardinality has as many as files), and many
/// predicates pay once. A value is kept as the partition that first holds it (4 bytes), not
/// as a copy of its text.
pub struct PresentValues {
    /// Each distinct set of values once, as the replay lists them (shared with it).
    partitions: Arc<PartitionTable>,
    by_key: BTreeMap<String, OnceLock<KeyValues>>,
}

/// One key's distinct values, each named by the first partition that holds it.
struct KeyValues {
    /// Whether some partition holds the key null, or lacks it.
    null: bool,
    /// Per distinct non-null value, in order of first appearance, the partition it was met in.
    holders: Vec<u32>,
}

/// The distinct values of one partition key (see [`PresentValues::get`]).
#[derive(Clone, Copy)]
pub struct Present<'a> {
    partitions: &'a PartitionTable,
    key: &'a str,
    values: &'a KeyValues,
}

impl<'a> Present<'a> {
    /// Each distinct value once: `None` (a null value, or a file that lacks the key) first if
    /// present, then the others in order of first appearance.
    pub fn iter(&self) -> impl Iterator<Item = Option<&'a str>> + use<'a> {
        let Present {
            partitions,
            key,
            values,
        } = *self;
        values.null.then_some(None).into_iter().chain(
            values
                .holders
                .iter()
                .map(move |&id| partitions.partition(id as usize).get(key).flatten()),
        )
    }

    /// The value at `position` in [`iter`](Self::iter)'s order.
    ///
    /// # Panics
    /// If `position` is not below [`len`](Self::len).
    fn value(&self, position: usize) -> Option<&'a str> {
        let position = match (self.values.null, position) {
            (true, 0) => return None,
            (true, p) => p - 1,
            (false, p) => p,
        };
        let id = self.values.holders[position] as usize;
        self.partitions.partition(id).get(self.key).flatten()
    }

    /// How many distinct values (a null one counted once).
    pub fn len(&self) -> usize {
        usize::from(self.values.null) + self.values.holders.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether this is the very set another lookup returned: collected once, not again.
    #[cfg(test)]
    pub(crate) fn is_same_set(&self, other: &Present<'_>) -> bool {
        std::ptr::eq(self.values, other.values)
    }
}

impl PresentValues {
    /// The distinct values of partition key `key`; `None` when `key` is no partition
    /// column's.
    pub fn get(&self, key: &str) -> Option<Present<'_>> {
        let (key, cell) = self.by_key.get_key_value(key)?;
        let values = cell.get_or_init(|| collect(&self.partitions, key));
        Some(Present {
            partitions: &self.partitions,
            key,
            values,
        })
    }

    /// Whether `key`'s values have been collected.
    #[cfg(test)]
    pub(crate) fn is_collected(&self, key: &str) -> bool {
        self.by_key
            .get(key)
            .is_some_and(|cell| cell.get().is_some())
    }
}

/// The distinct values of `key` over `partitions`. Where `key` is the table's sole key, held
/// once by each partition, its values are distinct because the partitions are: every
/// partition with a value is one (the table partitioned by a column of high cardinality).
/// Otherwise they are found by a hash index (of partition ids) of 8 bytes a distinct value,
/// dropped once they are known.
fn collect(partitions: &PartitionTable, key: &str) -> KeyValues {
    let mut out = KeyValues {
        null: false,
        holders: Vec::new(),
    };
    if partitions.sole_key() == Some(key) {
        for partition in partitions.iter() {
            match partition.get(key).flatten() {
                Some(_) => out.holders.push(partition.id()),
                None => out.null = true,
            }
        }
        out.holders.shrink_to_fit();
        return out;
    }
    let mut index = FragmentIndex::default();
    for partition in partitions.iter() {
        let Some(value) = partition.get(key).flatten() else {
            out.null = true;
            continue;
        };
        let fragment = index.fragment(&value);
        let found = index.entry(fragment, |id| {
            partitions.partition(id as usize).get(key).flatten() == Some(value)
        });
        if let Slot::Vacant(slot) = found {
            slot.insert(partition.id());
            out.holders.push(partition.id());
        }
    }
    out.holders.shrink_to_fit();
    out
}

/// The present values of a snapshot's partitions (`partitions`: each distinct set of values
/// once, as the replay lists them), for every partition column the schema resolves.
pub fn present_values(partitions: Arc<PartitionTable>, columns: &TableColumns) -> PresentValues {
    let by_key = columns
        .partition_columns()
        .iter()
        .filter_map(|name| {
            columns
                .resolve(&explain_compiler::ast::ColumnRef::new([name.as_str()]))
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
        let Ok(info) = columns.resolve(&explain_compiler::ast::ColumnRef::new([name.as_str()]))
        else {
            out.insert(name.clone(), None);
            continue;
        };
        let Some(present) = present.get(&info.partition_key) else {
            out.insert(name.clone(), None);
            continue;
        };
        let accepts = |value: Option<&str>| {
            let bound = OneValue {
                key: &info.partition_key,
                value,
            };
            prepared.evaluate(&bound).may_be_true()
        };
        // Typed order: NULL first, then by value; values that do not parse last, by text.
        // The values are distinct, so an unstable sort orders them as a stable one would.
        let accepted: Vec<Option<String>> = if info.is_string() {
            // A string's typed order is its text's (bytewise, as the kernel compares two
            // string scalars), and `None` sorts first: no value needs typing. Each value's
            // first eight bytes, read as a number, decide most comparisons without reading
            // the text again (a table partitioned by an id has a million values).
            let mut values: Vec<(u64, Option<&str>)> = decided_on_cores(present, |v| {
                accepts(v).then(|| (v.map_or(0, text_prefix), v))
            });
            values.sort_unstable();
            values
                .into_iter()
                .map(|(_, v)| v.map(str::to_string))
                .collect()
        } else {
            // Each accepted value is typed once, not once per comparison.
            let mut keyed: Vec<_> = decided_on_cores(present, |v| {
                accepts(v).then(|| (typed_partition_value(v, &info), v))
            });
            keyed.sort_unstable_by(|(x, a), (y, b)| match (x, y) {
                (Some(x), Some(y)) if x.is_null() || y.is_null() => y.is_null().cmp(&x.is_null()),
                (Some(x), Some(y)) => compare(x, y)
                    .unwrap_or(Ordering::Equal)
                    .then_with(|| a.cmp(b)),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => a.cmp(b),
            });
            keyed
                .into_iter()
                .map(|(_, v)| v.map(str::to_string))
                .collect()
        };
        out.insert(name.clone(), Some(accepted));
    }
    out
}

/// The fewest present values a worker of [`decided_on_cores`] takes at a time: below that a
/// thread costs more than the values it decides.
const VALUES_PER_WORKER: usize = 16_384;

/// What `decide` makes of each of `present`'s values it keeps (`Some`), in `present`'s order.
///
/// A column of a table partitioned by an id has about as many values as the table has files,
/// each decided alone (bound to the evaluator, typed), so a long list is shared out in runs of
/// [`VALUES_PER_WORKER`] among workers on every core; a short one is decided on this thread.
/// The runs are put back in order, so the result is the one a single thread gives.
fn decided_on_cores<'a, T: Send>(
    present: Present<'a>,
    decide: impl Fn(Option<&'a str>) -> Option<T> + Sync,
) -> Vec<T> {
    let len = present.len();
    let runs = len.div_ceil(VALUES_PER_WORKER);
    let run_of = |run: usize| {
        let start = run * VALUES_PER_WORKER;
        (start..len.min(start + VALUES_PER_WORKER))
            .filter_map(|position| decide(present.value(position)))
            .collect::<Vec<T>>()
    };
    if runs <= 1 || crate::cores() <= 1 {
        return (0..runs).flat_map(run_of).collect();
    }
    workers::map(
        (0..runs).collect(),
        crate::cores().min(runs),
        crate::DEEP_STACK,
        run_of,
    )
    .into_iter()
    .flatten()
    .collect()
}

/// The first eight bytes of `text` as a big-endian number, zero-padded: where two texts'
/// prefixes differ, they order the texts as a bytewise comparison does (a shorter text's
/// padding is below any byte that differs from it); where they are equal, the texts decide.
fn text_prefix(text: &str) -> u64 {
    let mut bytes = [0u8; 8];
    let n = text.len().min(8);
    bytes[..n].copy_from_slice(&text.as_bytes()[..n]);
    u64::from_be_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sorting by the prefix, then the text, is sorting by the text, bytewise.
    #[test]
    fn a_texts_prefix_orders_it_as_its_bytes_do() {
        let texts = [
            "",
            "\0",
            "\0\0",
            "a",
            "a\0",
            "a\0b",
            "ab",
            "abcdefgh",
            "abcdefgh\0",
            "abcdefghi",
            "abcdefgg",
            "abcdefgz0",
            "b",
            "é",
            "\u{10FFFF}",
            "p10",
            "p2",
            "p100000",
        ];
        let mut by_prefix: Vec<(u64, &str)> = texts.iter().map(|t| (text_prefix(t), *t)).collect();
        by_prefix.sort_unstable();
        let mut by_bytes = texts.to_vec();
        by_bytes.sort_unstable();
        assert_eq!(
            by_prefix.into_iter().map(|(_, t)| t).collect::<Vec<_>>(),
            by_bytes
        );
        for a in texts {
            for b in texts {
                if text_prefix(a) != text_prefix(b) {
                    assert_eq!(text_prefix(a).cmp(&text_prefix(b)), a.cmp(b), "{a:?} {b:?}");
                }
            }
        }
    }

    fn present<'a>(partitions: &'a PartitionTable, key: &str) -> (bool, Vec<&'a str>) {
        let values = collect(partitions, key);
        let mut listed: Vec<&str> = values
            .holders
            .iter()
            .map(|&id| {
                let value = partitions.partition(id as usize).get(key).flatten();
                value.expect("a holder holds a value")
            })
            .collect();
        listed.sort();
        (values.null, listed)
    }

    /// Both ways of collecting a key's values: read off every partition where the key is the
    /// table's sole one, looked up where partitions share values. A null value, an empty map
    /// and a null map all read as null, once.
    #[test]
    fn a_keys_values_are_each_listed_once() {
        let mut sole: PartitionTable = [
            vec![("p", Some("a"))],
            vec![("p", None)],
            vec![],
            vec![("p", Some("b"))],
            vec![("p", Some(""))],
        ]
        .into_iter()
        .collect();
        sole.push(None::<[(&str, Option<&str>); 0]>).unwrap();
        assert_eq!(sole.sole_key(), Some("p"));
        assert_eq!(present(&sole, "p"), (true, vec!["", "a", "b"]));
        assert_eq!(
            present(&sole, "q"),
            (true, vec![]),
            "a key no partition holds"
        );

        let shared: PartitionTable = [
            vec![("p", Some("a")), ("q", Some("1"))],
            vec![("p", Some("a")), ("q", Some("2"))],
            vec![("p", Some("b")), ("q", Some("2"))],
            vec![("q", Some("3"))],
        ]
        .into_iter()
        .collect();
        assert_eq!(shared.sole_key(), None);
        assert_eq!(present(&shared, "p"), (true, vec!["a", "b"]));
        assert_eq!(present(&shared, "q"), (false, vec!["1", "2", "3"]));

        let no_nulls: PartitionTable = [[("p", Some("a"))], [("p", Some("b"))]]
            .into_iter()
            .collect();
        assert_eq!(present(&no_nulls, "p"), (false, vec!["a", "b"]));
    }

    /// A long list of values, shared out among workers in runs, is decided and put back in
    /// the order one thread gives: every run's values, the null one first, none twice.
    #[test]
    fn many_values_are_decided_on_cores_as_on_one_thread() {
        let count = 3 * VALUES_PER_WORKER + 5;
        let texts: Vec<String> = (0..count).map(|i| format!("v{i}")).collect();
        let mut table: PartitionTable = texts
            .iter()
            .map(|text| vec![("p", Some(text.as_str()))])
            .collect();
        table.push(Some([("p", None)].into_iter())).unwrap();
        let present = PresentValues {
            partitions: Arc::new(table),
            by_key: [("p".to_string(), OnceLock::new())].into_iter().collect(),
        };
        let values = present.get("p").unwrap();
        assert_eq!(values.len(), count + 1);
        // Keeps the null value and every value ending in 7.
        let decide = |v: Option<&str>| match v {
            None => Some("null".to_string()),
            Some(text) if text.ends_with('7') => Some(text.to_string()),
            Some(_) => None,
        };
        let one_thread: Vec<String> = values.iter().filter_map(decide).collect();
        assert_eq!(
            one_thread.len(),
            1 + (0..count).filter(|i| i % 10 == 7).count()
        );
        assert_eq!(one_thread[0], "null");
        assert_eq!(decided_on_cores(values, decide), one_thread);
        assert_eq!(
            (0..values.len())
                .map(|i| values.value(i))
                .collect::<Vec<_>>(),
            values.iter().collect::<Vec<_>>()
        );
    }
}
