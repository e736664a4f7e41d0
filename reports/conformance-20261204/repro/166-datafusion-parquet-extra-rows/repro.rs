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
    let files: &[(&str, &[(&str, &str)], usize)] = &[("p_int=v0/p_str=v0/part-00000-0.parquet", &[("p_int", "CAST(NULL AS INT)"), ("p_str", "CAST(NULL AS Utf8)")], 0), ("p_int=v0/p_str=v0/part-00001-1.parquet", &[("p_int", "CAST(NULL AS INT)"), ("p_str", "CAST(NULL AS Utf8)")], 0), ("p_int=v0/p_str=v0/part-00002-2.parquet", &[("p_int", "CAST(NULL AS INT)"), ("p_str", "CAST(NULL AS Utf8)")], 0), ("p_int=v1/p_str=v1/part-00003-0.parquet", &[("p_int", "CAST('4' AS INT)"), ("p_str", "CAST('p1' AS Utf8)")], 0), ("p_int=v1/p_str=v1/part-00004-1.parquet", &[("p_int", "CAST('4' AS INT)"), ("p_str", "CAST('p1' AS Utf8)")], 0), ("p_int=v1/p_str=v1/part-00005-2.parquet", &[("p_int", "CAST('4' AS INT)"), ("p_str", "CAST('p1' AS Utf8)")], 0), ("p_int=v2/p_str=v2/part-00006-0.parquet", &[("p_int", "CAST('11' AS INT)"), ("p_str", "CAST('p2' AS Utf8)")], 0), ("p_int=v2/p_str=v2/part-00007-1.parquet", &[("p_int", "CAST('11' AS INT)"), ("p_str", "CAST('p2' AS Utf8)")], 0), ("p_int=v2/p_str=v2/part-00008-2.parquet", &[("p_int", "CAST('11' AS INT)"), ("p_str", "CAST('p2' AS Utf8)")], 0)];
    for (file, partitions, expected) in files {
        let mut df = ctx.read_parquet(format!("{root}{file}"), ParquetReadOptions::default()).await.unwrap();
        for (column, value) in *partitions {
            let value = df.parse_sql_expr(value).unwrap();
            df = df.with_column(column, value).unwrap();
        }
        let filter = df.parse_sql_expr("s > p_str AND s BETWEEN 'hpxs' AND 'longzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz'").unwrap();
        let n = df.filter(filter).unwrap().count().await.unwrap();
        assert_eq!(n, *expected, "{file}");
    }
}
