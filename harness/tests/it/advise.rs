//! The layout advisor on tables where the best layout is known by construction: the rows are
//! spread over the files at random (the current layout prunes nearly nothing), and the
//! workload filters on one column, on two correlated columns, on a time range, or on boxes of
//! two independent columns. The advisor must rank the known best layout first.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray, TimestampMicrosecondArray};
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use datafusion::parquet::arrow::ArrowWriter;
use explain_advise::layout::Layout;
use explain_advise::{AdviseRequest, advise};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

const ROWS: usize = 20_000;
const FILES: usize = 20;

/// Writes `batch` as a Delta table at `root`: its rows shuffled into `FILES` Parquet files, one
/// commit with a statistics-carrying add per file (every column indexed); with `clustering`, the
/// table declared clustered on those columns (liquid clustering: the `clustering` and
/// `domainMetadata` writer features, the `delta.clustering` domain); with `stats_columns`, the
/// table collects statistics for those columns alone (`delta.dataSkippingStatsColumns`, the
/// adds' statistics written to match).
fn write_clustered_table(
    root: &Path,
    batch: &RecordBatch,
    seed: u64,
    clustering: Option<&[&str]>,
    stats_columns: Option<&[&str]>,
) {
    let mut order: Vec<u32> = (0..batch.num_rows() as u32).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let names: Vec<String> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .filter(|name| stats_columns.is_none_or(|s| s.contains(&name.as_str())))
        .collect();
    let configuration = match stats_columns {
        Some(columns) => json!({"delta.dataSkippingStatsColumns": columns.join(",")}),
        None => json!({}),
    };
    let delta_type = |t: &DataType| match t {
        DataType::Int64 => "long",
        DataType::Utf8 => "string",
        DataType::Timestamp(_, _) => "timestamp",
        other => panic!("no Delta type for {other}"),
    };
    let fields: Vec<serde_json::Value> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| json!({"name": f.name(), "type": delta_type(f.data_type()), "nullable": true, "metadata": {}}))
        .collect();
    let schema = json!({"type": "struct", "fields": fields}).to_string();
    let mut lines = vec![
        match clustering {
            None => json!({"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}),
            Some(_) => json!({"protocol": {"minReaderVersion": 1, "minWriterVersion": 7,
                "writerFeatures": ["domainMetadata", "clustering"]}}),
        },
        json!({"metaData": {"id": "advise-test", "format": {"provider": "parquet", "options": {}},
            "schemaString": schema, "partitionColumns": [], "configuration": configuration,
            "createdTime": 0}}),
    ];
    if let Some(columns) = clustering {
        let columns: Vec<Vec<&str>> = columns.iter().map(|c| vec![*c]).collect();
        let configuration = json!({"clusteringColumns": columns}).to_string();
        lines.push(json!({"domainMetadata": {"domain": "delta.clustering",
            "configuration": configuration, "removed": false}}));
    }
    for (i, chunk) in order.chunks(batch.num_rows().div_ceil(FILES)).enumerate() {
        let indices = arrow::array::UInt32Array::from(chunk.to_vec());
        let rows = arrow::compute::take_record_batch(batch, &indices).unwrap();
        let name = format!("part-{i:05}.parquet");
        let file = std::fs::File::create(root.join(&name)).unwrap();
        let mut writer = ArrowWriter::try_new(file, rows.schema(), None).unwrap();
        writer.write(&rows).unwrap();
        writer.close().unwrap();
        let size = std::fs::metadata(root.join(&name)).unwrap().len();
        let stats = explain_advise::stats::file_stats(&rows, 1.0, &names);
        lines.push(
            json!({"add": {"path": name, "partitionValues": {}, "size": size,
            "modificationTime": 0, "dataChange": true, "stats": stats}}),
        );
    }
    std::fs::create_dir_all(root.join("_delta_log")).unwrap();
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(root.join("_delta_log/00000000000000000000.json"), text).unwrap();
}

/// A table of `ROWS` rows: `a` and `b` uniform and independent in [0, 1,000,000), `near_a`
/// within 1,000 of `a`, `t` spread over 2024, `region` one of 8 names.
fn table(seed: u64) -> (tempfile::TempDir, String) {
    table_with(seed, None, None)
}

fn table_with(
    seed: u64,
    clustering: Option<&[&str]>,
    stats_columns: Option<&[&str]>,
) -> (tempfile::TempDir, String) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let a: Vec<i64> = (0..ROWS).map(|_| rng.random_range(0..1_000_000)).collect();
    let near_a: Vec<i64> = a.iter().map(|v| v + rng.random_range(0..1_000)).collect();
    let b: Vec<i64> = (0..ROWS).map(|_| rng.random_range(0..1_000_000)).collect();
    let year_start = 1_704_067_200_000_000i64; // 2024-01-01T00:00:00Z in microseconds
    let year = 366 * 86_400_000_000i64;
    let t: Vec<i64> = (0..ROWS)
        .map(|_| year_start + rng.random_range(0..year))
        .collect();
    let region: Vec<String> = (0..ROWS)
        .map(|_| format!("region-{}", rng.random_range(0..8)))
        .collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("near_a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
        Field::new(
            "t",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new("region", DataType::Utf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(a)),
        Arc::new(Int64Array::from(near_a)),
        Arc::new(Int64Array::from(b)),
        Arc::new(TimestampMicrosecondArray::from(t).with_timezone("UTC")),
        Arc::new(StringArray::from(region)),
    ];
    let batch = RecordBatch::try_new(schema, columns).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_clustered_table(dir.path(), &batch, seed, clustering, stats_columns);
    let location = dir.path().to_string_lossy().into_owned();
    (dir, location)
}

fn advised(location: &str, predicates: Vec<String>) -> explain_advise::Advice {
    let request = AdviseRequest {
        location: location.to_string(),
        storage: storage::StorageOptions::default(),
        catalog: None,
        version: None,
        predicates,
        sample: None,
        target_file_size: None,
        seed: 1,
        workers: 2,
        min_saving_pct: explain_advise::MIN_SAVING_PCT,
    };
    advise(&request, &|_| {}).expect("the advisor runs")
}

/// Asserts that `layout` is ranked first, the ranking in the failure message.
fn assert_ranked_first(advice: &explain_advise::Advice, layout: Layout) {
    assert_eq!(advice.layouts[0].layout, layout, "{}", ranking(advice));
}

/// The ranking, for failure messages.
fn ranking(advice: &explain_advise::Advice) -> String {
    advice
        .layouts
        .iter()
        .map(|l| {
            format!(
                "{} ({} files, {} bytes)",
                l.name, l.files_read, l.bytes_read
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn a_workload_on_one_column_is_best_sorted_by_it() {
    let (_dir, table) = table(1);
    let predicates: Vec<String> = (0..10)
        .map(|i| format!("a >= {} AND a < {}", i * 97_000, i * 97_000 + 20_000))
        .collect();
    let advice = advised(&table, predicates);
    let best = &advice.layouts[0];
    assert_eq!(
        best.layout,
        Layout::Sort("a".into()),
        "{}",
        ranking(&advice)
    );
    assert_eq!(advice.recommended_columns, vec!["a".to_string()]);
    // The random current layout reads nearly every file; sorted, a range of 2% reads one or two.
    let current = advice
        .layouts
        .iter()
        .find(|l| l.layout == Layout::Current)
        .unwrap();
    assert!(
        best.files_read * 5 < current.files_read,
        "{}",
        ranking(&advice)
    );
    assert!(
        best.bytes_read_vs_current_pct < -50.0,
        "{}",
        ranking(&advice)
    );
}

#[test]
fn a_workload_on_two_correlated_columns_is_best_sorted_by_one_of_them() {
    let (_dir, table) = table(2);
    let predicates: Vec<String> = (0..10)
        .map(|i| {
            let lo = i * 97_000;
            if i % 2 == 0 {
                format!("a BETWEEN {lo} AND {}", lo + 20_000)
            } else {
                format!("near_a BETWEEN {lo} AND {}", lo + 20_000)
            }
        })
        .collect();
    let advice = advised(&table, predicates);
    let best = &advice.layouts[0].layout;
    assert!(
        matches!(best, Layout::Sort(c) if c == "a" || c == "near_a"),
        "{}",
        ranking(&advice)
    );
}

#[test]
fn a_workload_on_a_time_range_is_best_sorted_by_time() {
    let (_dir, table) = table(3);
    let predicates: Vec<String> = (1..=9)
        .map(|m| format!("t >= '2024-0{m}-01' AND t < '2024-0{m}-08'"))
        .collect();
    let advice = advised(&table, predicates);
    assert_ranked_first(&advice, Layout::Sort("t".into()));
}

#[test]
fn boxes_on_two_independent_columns_are_best_on_a_curve_over_both() {
    let (_dir, table) = table(4);
    let predicates: Vec<String> = (0..12)
        .map(|i| {
            let (x, y) = ((i * 83_000) % 800_000, (i * 271_000) % 800_000);
            format!(
                "a BETWEEN {x} AND {} AND b BETWEEN {y} AND {}",
                x + 150_000,
                y + 150_000
            )
        })
        .collect();
    let advice = advised(&table, predicates);
    let best = &advice.layouts[0].layout;
    assert!(
        matches!(best, Layout::ZOrder(cs) | Layout::Hilbert(cs) if cs == &["a".to_string(), "b".to_string()]),
        "{}",
        ranking(&advice)
    );
    // Either sort alone reads more.
    let sorted_a = advice
        .layouts
        .iter()
        .find(|l| l.layout == Layout::Sort("a".into()))
        .unwrap();
    assert!(
        advice.layouts[0].bytes_read < sorted_a.bytes_read,
        "{}",
        ranking(&advice)
    );
}

/// A table clustered on (b, region) with a workload on `a` alone: the clustering's own layout
/// (Hilbert over its columns) is ranked beside the workload's, and sorting by `a` still wins.
#[test]
fn the_tables_liquid_clustering_is_a_candidate() {
    let (_dir, clustered) = table_with(5, Some(&["b", "region"]), None);
    let predicates: Vec<String> = (0..6)
        .map(|i| format!("a >= {} AND a < {}", i * 150_000, i * 150_000 + 30_000))
        .collect();
    let advice = advised(&clustered, predicates);
    assert_eq!(
        advice.clustering_columns,
        Some(vec!["b".to_string(), "region".to_string()])
    );
    let liquid = Layout::Hilbert(vec!["b".into(), "region".into()]);
    assert!(
        advice.layouts.iter().any(|l| l.layout == liquid),
        "{}",
        ranking(&advice)
    );
    assert_ranked_first(&advice, Layout::Sort("a".into()));
    // Without clustering, no such candidate: the workload never names b or region.
    let (_plain, plain) = table(5);
    let advice = advised(
        &plain,
        (0..3)
            .map(|i| format!("a < {}", (i + 1) * 100_000))
            .collect(),
    );
    assert_eq!(advice.clustering_columns, None);
    assert!(!advice.layouts.iter().any(|l| l.layout == liquid));
}

/// A table that collects statistics for `a` alone (`delta.dataSkippingStatsColumns`), with a
/// workload on `b`: a rewrite would still write no bounds for `b`, so no sort, curve or
/// partition-free layout prunes a file, and the simulation of the table as it is keeps every
/// file, as the table does. A simulation that gave `b` bounds the table never records would
/// rank sorting by `b` far ahead.
#[test]
fn a_column_the_table_does_not_index_gains_nothing_from_its_order() {
    let (_dir, table) = table_with(6, None, Some(&["a"]));
    let predicates: Vec<String> = (0..6)
        .map(|i| format!("b >= {} AND b < {}", i * 150_000, i * 150_000 + 30_000))
        .collect();
    let advice = advised(&table, predicates.clone());
    assert_eq!(
        advice.calibration.identical, advice.calibration.predicates,
        "{:?}",
        advice.calibration
    );
    for layout in &advice.layouts {
        let partitioned = matches!(layout.layout, Layout::Partition(_));
        for cost in layout.per_predicate.iter().flatten() {
            assert!(
                partitioned || cost.files_read == cost.total_files,
                "{}: {} of {} files read; {}",
                layout.name,
                cost.files_read,
                cost.total_files,
                ranking(&advice)
            );
        }
    }
    // The same workload where the table indexes every column: sorting by `b` prunes.
    let (_all, indexed) = table_with(6, None, None);
    let advice = advised(&indexed, predicates);
    assert_ranked_first(&advice, Layout::Sort("b".into()));
}
