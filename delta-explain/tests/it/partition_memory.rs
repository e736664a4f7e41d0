//! What a partition costs in memory, counted by the allocator (see `main.rs`): a table
//! partitioned by a column of high cardinality holds as many partitions as files, so this is
//! the explanation's cost per file on such a table.

use explain_core::partition_table::PartitionTable;

use crate::allocations::net_bytes_allocated_by;

/// A million partitions of one short value each cost at most 40 bytes beyond their text, the
/// table's buffers grown as they grow. (Held as a map each, they cost about 160.)
#[test]
fn a_partition_of_one_value_costs_its_text_and_a_few_words() {
    const PARTITIONS: usize = 1_000_000;
    let values: Vec<String> = (0..PARTITIONS).map(|i| format!("p{i}")).collect();
    let text: usize = values.iter().map(String::len).sum();
    let (table, bytes) = net_bytes_allocated_by(|| {
        values
            .iter()
            .map(|value| [("p", Some(value.as_str()))])
            .collect::<PartitionTable>()
    });
    assert_eq!(table.len(), PARTITIONS);
    assert_eq!(
        table.partition(PARTITIONS - 1).get("p"),
        Some(Some(format!("p{}", PARTITIONS - 1).as_str()))
    );
    let per_partition = (bytes - text as isize) as f64 / PARTITIONS as f64;
    assert!(
        per_partition <= 40.0,
        "{per_partition:.1} bytes a partition beyond its text"
    );
}
