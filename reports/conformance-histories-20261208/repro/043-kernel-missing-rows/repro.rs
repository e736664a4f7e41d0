// A plain delta_kernel scan of `table/` with the predicate below (the kernel's own JSON
// of it): every file holding a row that matches must survive the scan's pruning.
use std::sync::Arc;

use delta_kernel::Snapshot;
use delta_kernel::arrow::array::{Array, AsArray};
use delta_kernel::engine::arrow_data::ArrowEngineData;
use delta_kernel::expressions::Predicate;
use delta_kernel_default_engine::DefaultEngineBuilder;

const PREDICATE: &str = r#"{
  "Not": {
    "Binary": {
      "op": "LessThan",
      "left": {
        "Column": {
          "path": [
            "x"
          ]
        }
      },
      "right": {
        "Literal": {
          "Double": 995.5790953969971
        }
      }
    }
  }
}"#;

/// The files that hold a matching row.
const MUST_KEEP: &[&str] = &["p=__HIVE_DEFAULT_PARTITION__/part-00003-3.parquet"];

#[test]
fn the_scan_keeps_every_file_holding_a_matching_row() {
    let dir = std::fs::canonicalize(concat!(env!("CARGO_MANIFEST_DIR"), "/table")).unwrap();
    let url = url::Url::from_directory_path(&dir).unwrap();
    let store = Arc::new(object_store::local::LocalFileSystem::new());
    let engine = DefaultEngineBuilder::new(store).build();
    let snapshot = Snapshot::builder_for(url.as_str()).build(&engine).unwrap();
    let predicate: Predicate = serde_json::from_str(PREDICATE).unwrap();
    let scan = snapshot.scan_builder().with_predicate(Arc::new(predicate)).build().unwrap();
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
