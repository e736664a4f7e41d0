// Each live file of `table/` read by DataFusion's Parquet scan with pruning and filter
// pushdown on, its partition values added as columns: the rows matching the predicate must
// be the rows the file holds that match.
use datafusion::prelude::*;

#[tokio::test]
async fn pruned_parquet_scan_matches_every_row() {
    let mut config = SessionConfig::new();
    config.options_mut().execution.parquet.pushdown_filters = true;
    config.options_mut().execution.parquet.enable_page_index = true;
    let ctx = SessionContext::new_with_config(config);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/table/");
    // (file, [(partition column, value as SQL)], matching rows)
    let files: &[(&str, &[(&str, &str)], usize)] = &[("pf=v0/part-00000-0.parquet", &[("pf", "CAST('-0' AS DOUBLE)")], 0), ("pf=v0/part-00001-1.parquet", &[("pf", "CAST('-0' AS DOUBLE)")], 1), ("pf=v1/part-00002-0.parquet", &[("pf", "CAST('0' AS DOUBLE)")], 0), ("pf=v1/part-00003-1.parquet", &[("pf", "CAST('0' AS DOUBLE)")], 0), ("pf=v2/part-00004-0.parquet", &[("pf", "CAST('-0' AS DOUBLE)")], 1), ("pf=v2/part-00005-1.parquet", &[("pf", "CAST('-0' AS DOUBLE)")], 21), ("pf=v3/part-00006-0.parquet", &[("pf", "CAST('3.5' AS DOUBLE)")], 23), ("pf=v3/part-00007-1.parquet", &[("pf", "CAST('3.5' AS DOUBLE)")], 23), ("pf=v4/part-00008-0.parquet", &[("pf", "CAST('5' AS DOUBLE)")], 22), ("pf=v4/part-00009-1.parquet", &[("pf", "CAST('5' AS DOUBLE)")], 24)];
    for (file, partitions, expected) in files {
        let mut df = ctx.read_parquet(format!("{root}{file}"), ParquetReadOptions::default()).await.unwrap();
        for (column, value) in *partitions {
            let value = df.parse_sql_expr(value).unwrap();
            df = df.with_column(column, value).unwrap();
        }
        let filter = df.parse_sql_expr("NOT pf >= x").unwrap();
        let n = df.filter(filter).unwrap().count().await.unwrap();
        assert_eq!(n, *expected, "{file}");
    }
}
