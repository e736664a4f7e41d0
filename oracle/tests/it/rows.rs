//! Rows: ranged reads equal whole-file reads, deletion vectors drop exactly their rows, and
//! live row counts agree with the log and with an independent DataFusion read.

use std::collections::BTreeSet;

use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::Int64Type;
use oracle::log::Snapshot;
use oracle::matching::{LoadedTable, split_ranges};
use oracle::planning::plan;
use oracle::read::{read_file, row_groups_in_range};
use parquet::file::reader::{FileReader, SerializedFileReader};
use roaring::RoaringTreemap;
use testkit::fixtures;

use crate::support::write_table;

fn ids(batches: &[RecordBatch]) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
        .collect()
}

/// An inline deletion vector descriptor deleting `rows`.
pub fn inline_dv(rows: &[u64]) -> serde_json::Value {
    let bitmap: RoaringTreemap = rows.iter().copied().collect();
    let mut data = 1_681_511_377u32.to_le_bytes().to_vec();
    bitmap.serialize_into(&mut data).unwrap();
    let size = data.len();
    while !data.len().is_multiple_of(4) {
        data.push(0);
    }
    serde_json::json!({"storageType": "i", "pathOrInlineDv": z85::encode(&data), "sizeInBytes": size, "cardinality": rows.len()})
}

#[test]
fn ranged_reads_return_exactly_the_rows_of_a_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    // Deleted rows at the edges of row groups (100 rows each) and inside them.
    let deleted = [0u64, 99, 100, 101, 555, 999];
    let size = write_table(dir.path(), 1000, 100, Some(inline_dv(&deleted)));
    let snapshot = Snapshot::open(&dir.path().to_string_lossy(), None).unwrap();
    let file = &snapshot.files[0];
    let whole = read_file(&snapshot, file, None).unwrap();
    assert_eq!((whole.physical_rows, whole.live_rows), (1000, 994));
    let expected: Vec<i64> = (0..1000)
        .filter(|i| !deleted.contains(&(*i as u64)))
        .collect();
    assert_eq!(
        ids(&whole.batches),
        expected,
        "the whole read drops exactly the deleted rows"
    );

    let metadata =
        SerializedFileReader::new(std::fs::File::open(dir.path().join("part-0.parquet")).unwrap())
            .unwrap()
            .metadata()
            .clone();
    assert_eq!(metadata.num_row_groups(), 10);
    for parts in [1u64, 2, 3, 7, 10, 64] {
        let ranges = split_ranges(size, size.div_ceil(parts));
        let mut owners = Vec::new();
        let mut rows = Vec::new();
        for range in &ranges {
            owners.extend(row_groups_in_range(&metadata, range));
            rows.extend(ids(&read_file(&snapshot, file, Some(range.clone()))
                .unwrap()
                .batches));
        }
        owners.sort_unstable();
        assert_eq!(
            owners,
            (0..10).collect::<Vec<_>>(),
            "{parts} ranges: each row group owned once"
        );
        assert_eq!(
            rows, expected,
            "{parts} ranges: the same rows as the whole read"
        );
    }
}

#[test]
fn split_ranges_cover_the_file() {
    for (size, max) in [(0u64, 10u64), (1, 10), (10, 10), (11, 10), (1000, 7)] {
        let ranges = split_ranges(size, max);
        assert_eq!(ranges[0].start, 0);
        assert_eq!(ranges.last().unwrap().end, size.max(1));
        for pair in ranges.windows(2) {
            assert_eq!(pair[0].end, pair[1].start, "contiguous");
        }
        assert!(ranges.iter().all(|r| r.end - r.start <= max.max(1)));
    }
}

/// Live rows per file = numRecords - the deletion vector's cardinality, and the rows read
/// before deletion = an independent count from the Parquet footers.
#[test]
fn live_rows_agree_with_the_log_on_every_table() {
    for table in testkit::all_tables() {
        let location = table.to_string_lossy().into_owned();
        let snapshot =
            Snapshot::open(&location, None).unwrap_or_else(|e| panic!("{location}: {e}"));
        let loaded = LoadedTable::load(snapshot.clone(), &plan(2))
            .unwrap_or_else(|e| panic!("{location}: {e}"));
        for (file, counts) in snapshot.files.iter().zip(&loaded.counts) {
            let deleted = file
                .deletion_vector
                .as_ref()
                .map_or(0, |d| d.cardinality as u64);
            if let Some(n) = file.num_records() {
                assert_eq!(
                    counts.physical_rows, n,
                    "{location}: {}: rows read = numRecords",
                    file.path
                );
            }
            assert_eq!(
                counts.live_rows,
                counts.physical_rows - deleted,
                "{location}: {}",
                file.path
            );
            let footer = SerializedFileReader::new(
                std::fs::File::open(
                    snapshot
                        .store
                        .shown(&snapshot.file_path(&file.path).unwrap()),
                )
                .unwrap(),
            )
            .unwrap()
            .metadata()
            .file_metadata()
            .num_rows() as u64;
            assert_eq!(
                counts.physical_rows, footer,
                "{location}: {}: rows read = the footer's count",
                file.path
            );
        }
    }
}

/// The deletion-vector table and the column-mapping tables give the row counts of a plain
/// DataFusion read of the same files, minus the deleted rows the log declares.
#[test]
fn row_counts_match_an_independent_datafusion_read() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for name in [
        "real/dv-partitioned-with-checkpoint",
        "real/table-with-columnmapping-mode-name",
        "real/data-reader-partition-values-column-mapping-name",
        "real/data-skipping-basic-stats-all-types-columnmapping-name",
    ] {
        let location = fixtures().join(name).to_string_lossy().into_owned();
        let snapshot = Snapshot::open(&location, None).unwrap();
        let loaded = LoadedTable::load(snapshot.clone(), &plan(2)).unwrap();
        let oracle_live: u64 = loaded.counts.iter().map(|c| c.live_rows).sum();
        let paths: Vec<String> = snapshot
            .files
            .iter()
            .map(|f| {
                // A local table: messages name files by their file-system paths.
                snapshot.store.shown(&snapshot.file_path(&f.path).unwrap())
            })
            .collect();
        let plain_rows: u64 = runtime.block_on(async {
            let ctx = datafusion::prelude::SessionContext::new();
            let mut total = 0u64;
            for path in &paths {
                let df = ctx
                    .read_parquet(path.as_str(), Default::default())
                    .await
                    .unwrap();
                total += df.count().await.unwrap() as u64;
            }
            total
        });
        let declared_deleted: u64 = snapshot
            .files
            .iter()
            .filter_map(|f| f.deletion_vector.as_ref())
            .map(|d| d.cardinality as u64)
            .sum();
        assert_eq!(oracle_live, plain_rows - declared_deleted, "{name}");
        if name.contains("dv-") {
            assert!(declared_deleted > 0, "{name} has deleted rows");
        }
        // Every row is live or deleted: the predicate TRUE matches every live row.
        let all: u64 = loaded.matching_rows("TRUE").unwrap().iter().sum();
        assert_eq!(all, oracle_live, "{name}");
    }
}

#[test]
fn the_taxi_reference_predicates_match_inside_explain_cores_kept_files() {
    let snapshot = Snapshot::open(&testkit::taxi(), None).unwrap();
    let loaded = LoadedTable::load(snapshot, &plan(2)).unwrap();
    let cases: &[(&str, usize)] = &[
        ("pickup_date = '2024-01-03' AND trip_distance > 5", 2),
        ("trip_distance > 8", 7),
    ];
    for (predicate, kept_by_explain) in cases {
        let matching = loaded.matching_rows(predicate).unwrap();
        let files: BTreeSet<usize> = (0..matching.len()).filter(|&i| matching[i] > 0).collect();
        assert!(!files.is_empty(), "{predicate}: some rows match");
        assert!(
            files.len() <= *kept_by_explain,
            "{predicate}: {} files match",
            files.len()
        );
    }
}
