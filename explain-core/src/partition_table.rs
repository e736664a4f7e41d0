//! The distinct partitions of a table, held column-wise.
//!
//! A table partitioned by a column of high cardinality has about as many partitions as files,
//! so what a partition costs is what the explanation costs per file on such a table. Held as
//! one map per partition, a partition of one short value took about 160 bytes (the map's
//! allocation, the value's, the pointers between them). Here every partition's entries are
//! rows of a few flat columns: where its entries start, each entry's key (an index into the
//! table's few keys) and where its value ends in one text buffer that holds every value back
//! to back. A partition of one short value costs its text and about 23 bytes.
//!
//! A [`Partition`] is a view of one partition: what the evaluators read
//! ([`PartitionValues`]) and what the reports list.
//!
//! Invariants: `starts` has one more element than there are partitions, starts at 0 and never
//! decreases; `entry_keys` and `value_ends` have one element per entry; `value_ends` never
//! decreases and its last element is `text.len()`; `null_maps` has a bit per partition and
//! `null_values` a bit per entry. A null map (no `partitionValues` at all) has no entries, and
//! is told apart from an empty map by its bit.

use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::sync::Arc;

use fixedbitset::FixedBitSet;

use explain_compiler::partition_eval::PartitionValues;

/// The distinct partitions of a table, in the order they were pushed; a partition is named by
/// its index. No two partitions hold the same entries in the same order (nor are both null
/// maps): the listing looks each up before it pushes it, and [`FromIterator`] does too.
#[derive(Clone)]
pub struct PartitionTable {
    /// The keys met (physical names), each once: a table has a handful.
    keys: Vec<Box<str>>,
    /// The most entries any partition holds.
    most_entries: usize,
    /// Per partition, the index of its first entry; one more than partitions.
    starts: Vec<usize>,
    /// The partitions whose log entry has no partition map.
    null_maps: FixedBitSet,
    /// Per entry, its key: an index into `keys`.
    entry_keys: Vec<u32>,
    /// Per entry, where its value ends in `text` (it starts where the entry before ends).
    value_ends: Vec<usize>,
    /// The entries whose value is null (their text is empty).
    null_values: FixedBitSet,
    /// Every value, back to back.
    text: String,
}

impl Default for PartitionTable {
    fn default() -> Self {
        PartitionTable {
            keys: Vec::new(),
            most_entries: 0,
            starts: vec![0],
            null_maps: FixedBitSet::new(),
            entry_keys: Vec::new(),
            value_ends: Vec::new(),
            null_values: FixedBitSet::new(),
            text: String::new(),
        }
    }
}

impl PartitionTable {
    /// How many partitions the table holds.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Partition `id`. Panics when `id` is not below [`len`](Self::len), as indexing does.
    pub fn partition(&self, id: usize) -> Partition<'_> {
        assert!(id < self.len(), "partition {id} of {}", self.len());
        Partition { table: self, id }
    }

    /// Every partition, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Partition<'_>> {
        (0..self.len()).map(|id| Partition { table: self, id })
    }

    /// The table's one key, when it has one and no partition holds it twice. Its values are
    /// then distinct from partition to partition (the partitions are), but for a null value, a
    /// null map and an empty map, which all read as null.
    pub fn sole_key(&self) -> Option<&str> {
        match &self.keys[..] {
            [key] if self.most_entries <= 1 => Some(key),
            _ => None,
        }
    }

    /// Appends a partition, `None` for a null map, and returns its id; `None` (nothing
    /// appended) once the table holds `u32::MAX` partitions, so every id fits 32 bits. Nothing
    /// is looked up: the caller pushes only partitions the table does not hold yet.
    pub(crate) fn push<'e>(
        &mut self,
        entries: Option<impl IntoIterator<Item = (&'e str, Option<&'e str>)>>,
    ) -> Option<u32> {
        let id = u32::try_from(self.len()).ok().filter(|&id| id < u32::MAX)?;
        self.null_maps.grow(self.len() + 1);
        match entries {
            None => self.null_maps.insert(self.len()),
            Some(entries) => {
                for (key, value) in entries {
                    let key = self.key_index(key);
                    self.entry_keys.push(key);
                    let entry = self.value_ends.len();
                    self.null_values.grow(entry + 1);
                    match value {
                        Some(value) => self.text.push_str(value),
                        None => self.null_values.insert(entry),
                    }
                    self.value_ends.push(self.text.len());
                }
            }
        }
        let start = self.starts[self.len()];
        self.most_entries = self.most_entries.max(self.entry_keys.len() - start);
        self.starts.push(self.entry_keys.len());
        Some(id)
    }

    /// The index of `key` in `keys`, added if new.
    fn key_index(&mut self, key: &str) -> u32 {
        let index = match self.keys.iter().position(|k| **k == *key) {
            Some(index) => index,
            None => {
                self.keys.push(key.into());
                self.keys.len() - 1
            }
        };
        // Each key holds at least a byte of memory in the log's own rows as well as here:
        // 2^32 distinct keys would need more memory than any process reaching this has.
        u32::try_from(index).expect("fewer than 2^32 distinct partition keys")
    }

    fn entry(&self, entry: usize) -> (&str, Option<&str>) {
        let key = &*self.keys[self.entry_keys[entry] as usize];
        if self.null_values.contains(entry) {
            return (key, None);
        }
        let start = entry
            .checked_sub(1)
            .map_or(0, |before| self.value_ends[before]);
        (key, Some(&self.text[start..self.value_ends[entry]]))
    }
}

/// Builds a table of the given partitions, in order of first appearance: each item is one
/// partition's entries, and a partition given again is held once. Panics past `u32::MAX - 1`
/// distinct partitions.
impl<M, K, V> FromIterator<M> for PartitionTable
where
    M: IntoIterator<Item = (K, Option<V>)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    fn from_iter<I: IntoIterator<Item = M>>(iter: I) -> Self {
        let mut distinct = DistinctPartitions::default();
        for partition in iter {
            let owned: Vec<(K, Option<V>)> = partition.into_iter().collect();
            let entries: Vec<(&str, Option<&str>)> = owned
                .iter()
                .map(|(k, v)| (k.as_ref(), v.as_ref().map(AsRef::as_ref)))
                .collect();
            distinct
                .id_of(Some(&entries))
                .expect("fewer than u32::MAX partitions");
        }
        Arc::unwrap_or_clone(distinct.table)
    }
}

impl fmt::Debug for PartitionTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One partition of a [`PartitionTable`]: its raw values, key (physical name) and value,
/// `None` for a JSON null, in the log's order.
///
/// A null map and an empty one both answer every key as absent.
#[derive(Clone, Copy)]
pub struct Partition<'a> {
    table: &'a PartitionTable,
    id: usize,
}

impl<'a> Partition<'a> {
    /// The value of `key`: `Some(None)` for a null value, `None` when the key is absent. A key
    /// the log repeats takes its last value, as a JSON object read into a map does.
    pub fn get(&self, key: &str) -> Option<Option<&'a str>> {
        self.iter()
            .filter(|(k, _)| *k == key)
            .last()
            .map(|(_, v)| v)
    }

    /// The entries in the log's order (none for a null map).
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, Option<&'a str>)> + use<'a> {
        let table = self.table;
        (table.starts[self.id]..table.starts[self.id + 1]).map(move |entry| table.entry(entry))
    }

    /// Whether the file's log entry has no partition map at all.
    pub fn is_null_map(&self) -> bool {
        self.table.null_maps.contains(self.id)
    }

    /// The partition's index in its table (ids fit 32 bits: see [`PartitionTable::push`]).
    pub fn id(&self) -> u32 {
        self.id as u32
    }

    /// Whether this partition holds exactly `entries` (`None`: a null map), in order.
    pub fn holds(&self, entries: Option<&[(&str, Option<&str>)]>) -> bool {
        match entries {
            None => self.is_null_map(),
            Some(entries) => !self.is_null_map() && self.iter().eq(entries.iter().copied()),
        }
    }
}

impl PartitionValues for Partition<'_> {
    fn raw(&self, key: &str) -> Option<Option<&str>> {
        self.get(key)
    }
}

impl fmt::Debug for Partition<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null_map() {
            return f.write_str("null");
        }
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A [`PartitionTable`] being built, each partition looked up before it is pushed: what
/// keeps the table's partitions distinct. The table may be shared meanwhile (a window of a
/// streamed replay holds it); it is appended to once it is not (a copy only if it still were).
#[derive(Default)]
pub(crate) struct DistinctPartitions {
    /// Ids into `table`, by the hash of a partition's entries (whether the map is present,
    /// then each key and value in order).
    ids: FragmentIndex,
    pub(crate) table: Arc<PartitionTable>,
}

impl DistinctPartitions {
    /// The id of the partition holding `entries` (`None`: a null map), pushed if new; `None`
    /// once the table holds `u32::MAX` partitions and this one is new.
    pub(crate) fn id_of(&mut self, entries: Option<&[(&str, Option<&str>)]>) -> Option<usize> {
        let fragment = self.ids.fragment(&entries);
        let table = &self.table;
        match self
            .ids
            .entry(fragment, |id| table.partition(id as usize).holds(entries))
        {
            Slot::Found(id) => Some(id as usize),
            Slot::Vacant(slot) => {
                let id = Arc::make_mut(&mut self.table).push(entries.map(|e| e.iter().copied()))?;
                slot.insert(id);
                Some(id as usize)
            }
        }
    }

    /// The partitions named so far, leaving none: the next partition named is id 0 of a new
    /// table. The index keeps its room, so naming as many partitions again (the next window
    /// of a streamed replay) grows nothing.
    pub(crate) fn take_table(&mut self) -> Arc<PartitionTable> {
        self.ids.clear();
        std::mem::take(&mut self.table)
    }
}

/// Ids of things held elsewhere (partitions in a [`PartitionTable`], a key's distinct
/// values), found by hash: 8 bytes a slot, a 32-bit fragment of the thing's hash beside its
/// id. The fragment places a slot again when the index grows, so nothing is hashed twice; the
/// caller compares the candidates a fragment names with what it looks for.
#[derive(Default)]
pub(crate) struct FragmentIndex {
    ids: hashbrown::HashTable<(u32, u32)>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl FragmentIndex {
    /// The fragment of `value`'s hash the index keeps.
    pub(crate) fn fragment(&self, value: &impl Hash) -> u32 {
        self.hasher.hash_one(value) as u32
    }

    /// The id stored under `fragment` for which `is` holds, or the slot where a new one goes:
    /// one probe for a thing met for the first time (looked up, then stored), not two.
    pub(crate) fn entry(&mut self, fragment: u32, mut is: impl FnMut(u32) -> bool) -> Slot<'_> {
        match self.ids.entry(
            spread(fragment),
            |&(f, id)| f == fragment && is(id),
            |&(f, _)| spread(f),
        ) {
            hashbrown::hash_table::Entry::Occupied(found) => Slot::Found(found.get().1),
            hashbrown::hash_table::Entry::Vacant(vacant) => {
                Slot::Vacant(VacantSlot { fragment, vacant })
            }
        }
    }

    /// Forgets every id, keeping the room they took.
    pub(crate) fn clear(&mut self) {
        self.ids.clear();
    }
}

/// What [`FragmentIndex::entry`] finds: the id stored, or where to store one.
pub(crate) enum Slot<'a> {
    Found(u32),
    Vacant(VacantSlot<'a>),
}

/// Where [`FragmentIndex::entry`] would store an id under its fragment.
pub(crate) struct VacantSlot<'a> {
    fragment: u32,
    vacant: hashbrown::hash_table::VacantEntry<'a, (u32, u32)>,
}

impl VacantSlot<'_> {
    /// Stores `id` here.
    pub(crate) fn insert(self, id: u32) {
        self.vacant.insert((self.fragment, id));
    }
}

/// The hash the index places a kept fragment by: multiplied by an odd constant (Fibonacci
/// hashing), so its high bits, which the table's control bytes read, depend on every bit of
/// the fragment.
fn spread(fragment: u32) -> u64 {
    u64::from(fragment).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases a column-wise layout can get wrong: a null map beside an empty one, a null
    /// value beside an empty string, a key repeated, keys in a different order, values that
    /// run together in the text.
    fn push(table: &mut PartitionTable, entries: Option<&[(&str, Option<&str>)]>) -> usize {
        table.push(entries.map(|e| e.iter().copied())).unwrap() as usize
    }

    #[test]
    fn a_partition_reads_back_as_pushed() {
        let mut table = PartitionTable::default();
        let ab = push(&mut table, Some(&[("p", Some("a")), ("q", Some("b"))]));
        let null_map = push(&mut table, None);
        let empty_map = push(&mut table, Some(&[]));
        let null_value = push(&mut table, Some(&[("p", None)]));
        let empty_value = push(&mut table, Some(&[("p", Some(""))]));
        let repeated = push(&mut table, Some(&[("p", Some("1")), ("p", Some("2"))]));
        let ba = push(&mut table, Some(&[("q", Some("b")), ("p", Some("a"))]));
        let run_together = push(&mut table, Some(&[("p", Some("ab")), ("q", Some(""))]));
        assert_eq!(table.len(), 8);

        let entries = |id| table.partition(id).iter().collect::<Vec<_>>();
        assert_eq!(entries(ab), [("p", Some("a")), ("q", Some("b"))]);
        assert_eq!(entries(null_map), []);
        assert!(table.partition(null_map).is_null_map());
        assert_eq!(entries(empty_map), []);
        assert!(!table.partition(empty_map).is_null_map());
        assert_eq!(table.partition(null_value).get("p"), Some(None));
        assert_eq!(table.partition(empty_value).get("p"), Some(Some("")));
        assert_eq!(table.partition(null_value).get("q"), None);
        assert_eq!(table.partition(repeated).get("p"), Some(Some("2")));
        assert_eq!(entries(ba), [("q", Some("b")), ("p", Some("a"))]);
        assert_eq!(entries(run_together), [("p", Some("ab")), ("q", Some(""))]);

        assert!(
            table
                .partition(ab)
                .holds(Some(&[("p", Some("a")), ("q", Some("b"))]))
        );
        assert!(
            !table
                .partition(ab)
                .holds(Some(&[("q", Some("b")), ("p", Some("a"))]))
        );
        assert!(table.partition(null_map).holds(None));
        assert!(!table.partition(null_map).holds(Some(&[])));
        assert!(table.partition(empty_map).holds(Some(&[])));
        assert!(!table.partition(empty_map).holds(None));
        assert!(!table.partition(null_value).holds(Some(&[("p", Some(""))])));
        assert!(!table.partition(empty_value).holds(Some(&[("p", None)])));
        assert_eq!(table.keys.len(), 2, "each key is held once");
        assert_eq!(table.sole_key(), None, "two keys");
    }

    /// A table built from a list holds each partition once, in order of first appearance;
    /// its sole key is named only while no partition holds a second entry or another key.
    #[test]
    fn a_listed_partition_is_held_once_and_a_sole_key_named() {
        let table: PartitionTable = [
            vec![("p", Some("a"))],
            vec![("p", None)],
            vec![("p", Some("a"))],
            vec![],
            vec![("p", None)],
            vec![("p", Some("b"))],
        ]
        .into_iter()
        .collect();
        let listed: Vec<Vec<_>> = table.iter().map(|p| p.iter().collect()).collect();
        assert_eq!(
            listed,
            [
                vec![("p", Some("a"))],
                vec![("p", None)],
                vec![],
                vec![("p", Some("b"))]
            ]
        );
        assert_eq!(table.sole_key(), Some("p"));

        let mut twice = table.clone();
        push(&mut twice, Some(&[("p", Some("c")), ("p", Some("d"))]));
        assert_eq!(twice.sole_key(), None, "a partition holds the key twice");
        let mut other = table.clone();
        push(&mut other, Some(&[("q", Some("c"))]));
        assert_eq!(other.sole_key(), None, "a second key");
        assert_eq!(PartitionTable::default().sole_key(), None, "no key");
    }

    /// A taken table leaves none behind: the next partitions are named from 0 in a new
    /// table, a partition of the taken one among them, and the taken table is unchanged.
    #[test]
    fn a_taken_table_leaves_naming_to_start_over() {
        let mut named = DistinctPartitions::default();
        let values: Vec<String> = (0..1_000).map(|i| format!("v{i}")).collect();
        for (i, value) in values.iter().enumerate() {
            assert_eq!(named.id_of(Some(&[("p", Some(value))])), Some(i));
        }
        let taken = named.take_table();
        assert_eq!(taken.len(), 1_000);
        assert_eq!(named.table.len(), 0);
        assert_eq!(named.id_of(Some(&[("p", Some("v999"))])), Some(0));
        assert_eq!(named.id_of(None), Some(1));
        assert_eq!(named.id_of(Some(&[("p", Some("v999"))])), Some(0));
        assert_eq!(named.id_of(Some(&[("p", Some("v3"))])), Some(2));
        assert_eq!(taken.partition(999).get("p"), Some(Some("v999")));
        assert_eq!(named.table.partition(2).get("p"), Some(Some("v3")));
    }
}
