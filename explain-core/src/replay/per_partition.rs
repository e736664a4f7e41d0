//! A value per partition, for the partitions a list of files uses.
//!
//! Partition ids are the table's (numbered in order of first appearance across the whole
//! replay), and a window of a streamed replay holds a few of them: mostly a run near the
//! greatest id seen so far. A table over every id would cost each window the whole table's
//! partition count, which on a table partitioned by a column of high cardinality (a file or
//! two per partition) makes a streamed explanation quadratic in the table's size. This table
//! spans only the ids from the least to the greatest the files use.

use super::LiveFile;

/// A value per partition id from the least to the greatest a list of files uses, each filled
/// on first use.
pub struct PerPartition<T> {
    first: usize,
    values: Vec<Option<T>>,
}

impl<T: Copy> PerPartition<T> {
    /// An empty table over the partition ids `files` use.
    pub fn over(files: &[LiveFile]) -> Self {
        let span = files
            .iter()
            .map(|f| f.partition)
            .fold(None, |span, id| match span {
                None => Some((id, id)),
                Some((least, greatest)) => Some((id.min(least), id.max(greatest))),
            });
        match span {
            Some((least, greatest)) => Self {
                first: least,
                values: vec![None; greatest - least + 1],
            },
            None => Self {
                first: 0,
                values: Vec::new(),
            },
        }
    }

    /// The value of `partition`, if filled.
    ///
    /// # Panics
    /// If `partition` is not an id of the files the table was made over.
    pub fn get(&self, partition: usize) -> Option<T> {
        self.values[partition - self.first]
    }

    /// The value of `partition`, computed by `value` on first use.
    ///
    /// # Panics
    /// If `partition` is not an id of the files the table was made over.
    pub fn get_or_insert_with(&mut self, partition: usize, value: impl FnOnce() -> T) -> T {
        *self.values[partition - self.first].get_or_insert_with(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(partition: usize) -> LiveFile {
        LiveFile {
            size_bytes: 1,
            num_records: None,
            has_stats: false,
            partition,
            has_deletion_vector: false,
            deleted_records: 0,
        }
    }

    #[test]
    fn spans_only_the_ids_the_files_use() {
        let files = [file(1_000_007), file(1_000_003), file(1_000_005)];
        let mut table = PerPartition::over(&files);
        assert_eq!(table.values.len(), 5, "from 1,000,003 to 1,000,007");
        assert_eq!(table.get(1_000_005), None);
        assert_eq!(table.get_or_insert_with(1_000_005, || 'a'), 'a');
        assert_eq!(
            table.get_or_insert_with(1_000_005, || 'b'),
            'a',
            "filled once"
        );
        assert_eq!(table.get(1_000_005), Some('a'));
        assert_eq!(table.get(1_000_003), None);
    }

    #[test]
    fn no_files_no_ids() {
        let table = PerPartition::<bool>::over(&[]);
        assert!(table.values.is_empty());
    }
}
