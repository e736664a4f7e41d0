//! A set of live files, one bit a file: the survivor sets of an explanation.
//!
//! A file is named by its position in the replay's order (`ReplayedTable::files`, and in a
//! streamed run the order the windows come in). An explanation holds two sets per predicate
//! (`after_partition`, `kept`), so at ten million files a set is 1.2 MB, not the 10 MB a byte
//! per file would take; a run of many predicates holds two per predicate.

use fixedbitset::FixedBitSet;

/// Files by position, each in the set or not.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct FileSet {
    bits: FixedBitSet,
}

impl FileSet {
    /// Every one of `len` files.
    pub fn all(len: usize) -> Self {
        let mut bits = FixedBitSet::with_capacity(len);
        bits.insert_range(..);
        Self { bits }
    }

    /// None of `len` files.
    pub fn none(len: usize) -> Self {
        Self {
            bits: FixedBitSet::with_capacity(len),
        }
    }

    /// How many files the set is over (in it or not).
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Whether file `i` is in the set.
    ///
    /// # Panics
    /// When `i` is not below [`len`](Self::len), as a slice index would.
    pub fn contains(&self, i: usize) -> bool {
        assert!(i < self.len(), "file {i} of a set of {}", self.len());
        self.bits.contains(i)
    }

    /// Puts file `i` in the set or takes it out.
    pub fn set(&mut self, i: usize, member: bool) {
        assert!(i < self.len(), "file {i} of a set of {}", self.len());
        self.bits.set(i, member);
    }

    /// How many files are in the set.
    pub fn count(&self) -> usize {
        self.bits.count_ones(..)
    }

    /// Per file in order, whether it is in the set.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = bool> + '_ {
        (0..self.len()).map(|i| self.bits.contains(i))
    }

    /// The positions of the files in the set, in order.
    pub fn members(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.ones()
    }

    /// The files in both sets, which are over the same files.
    pub fn and(&self, other: &FileSet) -> FileSet {
        assert_eq!(self.len(), other.len(), "sets over different files");
        let mut bits = self.bits.clone();
        bits.intersect_with(&other.bits);
        FileSet { bits }
    }

    /// This set followed by `next`, the set of the files after these (a streamed window).
    pub fn append(&mut self, next: &FileSet) {
        let at = self.len();
        self.bits.grow(at + next.len());
        for i in next.members() {
            self.bits.insert(at + i);
        }
    }

    /// One byte per file, as the phase scans answer.
    pub fn to_bools(&self) -> Vec<bool> {
        self.iter().collect()
    }
}

impl FromIterator<bool> for FileSet {
    fn from_iter<I: IntoIterator<Item = bool>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut bits = FixedBitSet::with_capacity(iter.size_hint().0);
        let mut len = 0;
        for member in iter {
            if len == bits.len() {
                bits.grow((len * 2).max(64));
            }
            bits.set(len, member);
            len += 1;
        }
        if len == bits.len() {
            return FileSet { bits };
        }
        // The capacity grown ahead is given back: the set is over exactly the files seen.
        let mut exact = FixedBitSet::with_capacity(len);
        exact.extend(bits.ones());
        FileSet { bits: exact }
    }
}

impl From<&[bool]> for FileSet {
    fn from(members: &[bool]) -> Self {
        members.iter().copied().collect()
    }
}

impl From<Vec<bool>> for FileSet {
    fn from(members: Vec<bool>) -> Self {
        members.into_iter().collect()
    }
}

impl std::ops::Index<usize> for FileSet {
    type Output = bool;

    fn index(&self, i: usize) -> &bool {
        if self.contains(i) { &true } else { &false }
    }
}

impl PartialEq<Vec<bool>> for FileSet {
    fn eq(&self, other: &Vec<bool>) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl std::fmt::Debug for FileSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // A file per character, as the tests' messages compare them: `#` in the set, `.` not.
        let marks: String = self.iter().map(|m| if m { '#' } else { '.' }).collect();
        write!(f, "FileSet({} of {}: {marks})", self.count(), self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_bools_of_every_length() {
        for len in [0usize, 1, 2, 63, 64, 65, 127, 128, 129, 1000] {
            let bools: Vec<bool> = (0..len).map(|i| i % 3 == 0 || i % 7 == 1).collect();
            let set = FileSet::from(bools.clone());
            assert_eq!(set.len(), len);
            assert_eq!(set.to_bools(), bools);
            assert_eq!(set.count(), bools.iter().filter(|b| **b).count());
            assert_eq!(
                set.members().collect::<Vec<_>>(),
                (0..len).filter(|i| bools[*i]).collect::<Vec<_>>()
            );
            assert_eq!(FileSet::all(len).count(), len);
            assert_eq!(FileSet::none(len).count(), 0);
            assert_eq!(FileSet::none(len).len(), len);
        }
    }

    #[test]
    fn appends_windows_of_every_length() {
        let whole: Vec<bool> = (0..300).map(|i| (i * 7919) % 5 < 2).collect();
        for cut in [1usize, 5, 63, 64, 65, 128, 299] {
            let mut set = FileSet::default();
            for window in whole.chunks(cut) {
                set.append(&FileSet::from(window));
            }
            assert_eq!(set, whole, "windows of {cut}");
        }
    }

    #[test]
    fn intersects_and_indexes() {
        let a = FileSet::from(vec![true, true, false, false, true]);
        let b = FileSet::from(vec![true, false, true, false, true]);
        assert_eq!(a.and(&b), vec![true, false, false, false, true]);
        assert!(a[0] && !a[2]);
        let mut c = a.clone();
        c.set(0, false);
        c.set(2, true);
        assert_eq!(c, vec![false, true, true, false, true]);
        assert_eq!(format!("{a:?}"), "FileSet(3 of 5: ##..#)");
    }

    #[test]
    #[should_panic(expected = "file 5 of a set of 5")]
    fn an_index_past_the_end_panics_as_a_slice_would() {
        let _ = FileSet::all(5)[5];
    }
}
