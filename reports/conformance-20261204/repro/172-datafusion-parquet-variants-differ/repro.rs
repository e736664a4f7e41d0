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
    let files: &[(&str, &[(&str, &str)], usize)] = &[("pdec=v0/pl=v0/part-00000-0.parquet", &[("pdec", "CAST(NULL AS DECIMAL(10,2))"), ("pl", "CAST(NULL AS BIGINT)")], 19), ("pdec=v0/pl=v0/part-00001-1.parquet", &[("pdec", "CAST(NULL AS DECIMAL(10,2))"), ("pl", "CAST(NULL AS BIGINT)")], 18), ("pdec=v1/pl=v1/part-00002-0.parquet", &[("pdec", "CAST('2.50' AS DECIMAL(10,2))"), ("pl", "CAST('4' AS BIGINT)")], 18), ("pdec=v1/pl=v1/part-00003-1.parquet", &[("pdec", "CAST('2.50' AS DECIMAL(10,2))"), ("pl", "CAST('4' AS BIGINT)")], 19), ("pdec=v2/pl=v2/part-00004-0.parquet", &[("pdec", "CAST(NULL AS DECIMAL(10,2))"), ("pl", "CAST('11' AS BIGINT)")], 19), ("pdec=v2/pl=v2/part-00005-1.parquet", &[("pdec", "CAST(NULL AS DECIMAL(10,2))"), ("pl", "CAST('11' AS BIGINT)")], 20), ("pdec=v3/pl=v3/part-00006-0.parquet", &[("pdec", "CAST('3.39' AS DECIMAL(10,2))"), ("pl", "CAST('18' AS BIGINT)")], 19), ("pdec=v3/pl=v3/part-00007-1.parquet", &[("pdec", "CAST('3.39' AS DECIMAL(10,2))"), ("pl", "CAST('18' AS BIGINT)")], 22)];
    for (file, partitions, expected) in files {
        let mut df = ctx.read_parquet(format!("{root}{file}"), ParquetReadOptions::default()).await.unwrap();
        for (column, value) in *partitions {
            let value = df.parse_sql_expr(value).unwrap();
            df = df.with_column(column, value).unwrap();
        }
        let filter = df.parse_sql_expr("v NOT IN (-778, -317, 72, 312, 506, 814, -979, -978, -977, 997, 998, 999, -778e-0, -317e-0, -1e30, 2.5, -0.5, -778.0000000000000001e0, -777e0, -317.0000000000000001e0, -316e0) OR v IN (-778, -317, 72, 312, 506, 814, -979, -978, -977, 997, 998, 999, -778e-0, -317e-0, 1e30, -1e30, 2.5, -0.5, -778.0000000000000001e0, -777e0, -317.0000000000000001e0, -316e0)").unwrap();
        let n = df.filter(filter).unwrap().count().await.unwrap();
        assert_eq!(n, *expected, "{file}");
    }
}
