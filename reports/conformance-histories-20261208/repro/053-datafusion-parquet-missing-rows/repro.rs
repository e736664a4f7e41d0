// Each live file of `table/` read by DataFusion's Parquet scan with pruning and filter
// pushdown on, its partition values added as columns: the rows matching the predicate must
// be the rows the file holds that match.
use datafusion::prelude::*;

/// The predicate, and its equivalent spelling where the two must agree.
const SPELLINGS: &[&str] = &["0.0 < x"];

#[tokio::test]
async fn pruned_parquet_scan_matches_every_row() {
    let mut config = SessionConfig::new();
    config.options_mut().execution.parquet.pushdown_filters = true;
    config.options_mut().execution.parquet.enable_page_index = true;
    let ctx = SessionContext::new_with_config(config);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/table/");
    // (file, [(partition column, value as SQL)], under column mapping [(data column's name in
    // the file, logical name)], matching rows)
    let files: &[(&str, &[(&str, &str)], &[(&str, &str)], usize)] = &[("p=__HIVE_DEFAULT_PARTITION__/part-00003-3.parquet", &[("p", "CAST(NULL AS INT)")], &[], 2)];
    for (file, partitions, renames, expected) in files {
        let mut df = ctx.read_parquet(format!("{root}{file}"), ParquetReadOptions::default()).await.unwrap();
        if !renames.is_empty() {
            df = df.select(renames.iter().map(|(physical, logical)| ident(*physical).alias(*logical)).collect::<Vec<_>>()).unwrap();
        }
        for (column, value) in *partitions {
            let value = df.parse_sql_expr(value).unwrap();
            df = df.with_column(column, value).unwrap();
        }
        let mut counts = Vec::new();
        for spelling in SPELLINGS {
            let filter = df.parse_sql_expr(spelling).unwrap();
            counts.push(df.clone().filter(filter).unwrap().count().await.unwrap());
        }
        assert_eq!(counts[0], *expected, "{file}");
    }
}
