// A plain delta_kernel scan of `table/` with no predicate (nothing of the query's predicate
// lowers to the kernel): every file holding a row that matches must be listed.
use std::sync::Arc;

use delta_kernel::Snapshot;
use delta_kernel::arrow::array::{Array, AsArray};
use delta_kernel::engine::arrow_data::ArrowEngineData;
use delta_kernel_default_engine::DefaultEngineBuilder;

/// The files that hold a matching row.
const MUST_KEEP: &[&str] = &["pdec=2.5/pl=4/part-00003-1.parquet"];

#[test]
fn the_scan_keeps_every_file_holding_a_matching_row() {
    let dir = std::fs::canonicalize(concat!(env!("CARGO_MANIFEST_DIR"), "/table")).unwrap();
    let url = url::Url::from_directory_path(&dir).unwrap();
    let store = Arc::new(object_store::local::LocalFileSystem::new());
    let engine = DefaultEngineBuilder::new(store).build();
    let snapshot = Snapshot::builder_for(url.as_str()).build(&engine).unwrap();
    let scan = snapshot.scan_builder().build().unwrap();
    let mut kept = Vec::new();
    for meta in scan.scan_metadata(&engine).unwrap() {
        let (data, selection) = meta.unwrap().scan_files.into_parts();
        let data = ArrowEngineData::try_from_engine_data(data).unwrap();
        let paths = data.record_batch().column_by_name("path").unwrap().as_string::<i32>().clone();
        for row in 0..paths.len() {
            if selection.get(row).copied().unwrap_or(true) {
                kept.push(paths.value(row).to_string());
            }
        }
    }
    for file in MUST_KEEP {
        assert!(kept.iter().any(|k| k == file), "{file} holds a matching row and was pruned; kept: {kept:?}");
    }
}
