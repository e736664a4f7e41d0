// Each live file of `table/` read by DataFusion's Parquet scan with pruning and filter
// pushdown on, its partition values added as columns: the rows matching the predicate must
// be the rows the file holds that match.
use datafusion::prelude::*;

/// The predicate, and its equivalent spelling where the two must agree.
const SPELLINGS: &[&str] = &["NOT (f64 IN (926.3039348078094, 765.5721113159509, 800.3455481048754, 'NaN', -138.19109869234, -756.6775650882596, -854.6244327861889, 621.5033936016532, -102.16903084126864, -988.0178463287416, -988.0178463287414, 994.7813153753383, 994.7813153753384, 994.7813153753385, 9263039348078094e-13, 7655721113159509e-13, -0.0, 0.0, 0, 1e300, -1e-300, 0.1) AND f64 NOT IN (926.3039348078094, 765.5721113159509, 800.3455481048754, 56.194240477226685, 'NaN', -138.19109869234, -756.6775650882596, 240.002250245519, -854.6244327861889, 621.5033936016532, -102.16903084126864, -988.0178463287416, -988.0178463287415, -988.0178463287414, 994.7813153753383, 994.7813153753384, 994.7813153753385, 9263039348078094e-13, 7655721113159509e-13, -0.0, 0.0, 0, 1e300, -1e-300, 0.1))", "NOT NOT (NOT f64 IN (926.3039348078094, 765.5721113159509, 800.3455481048754, 'NaN', -138.19109869234, -756.6775650882596, -854.6244327861889, 621.5033936016532, -102.16903084126864, -988.0178463287416, -988.0178463287414, 994.7813153753383, 994.7813153753384, 994.7813153753385, 9263039348078094e-13, 7655721113159509e-13, -0.0, 0.0, 0, 1e300, -1e-300, 0.1) OR NOT f64 NOT IN (926.3039348078094, 765.5721113159509, 800.3455481048754, 56.194240477226685, 'NaN', -138.19109869234, -756.6775650882596, 240.002250245519, -854.6244327861889, 621.5033936016532, -102.16903084126864, -988.0178463287416, -988.0178463287415, -988.0178463287414, 994.7813153753383, 994.7813153753384, 994.7813153753385, 9263039348078094e-13, 7655721113159509e-13, -0.0, 0.0, 0, 1e300, -1e-300, 0.1))"];

#[tokio::test]
async fn pruned_parquet_scan_matches_every_row() {
    let mut config = SessionConfig::new();
    config.options_mut().execution.parquet.pushdown_filters = true;
    config.options_mut().execution.parquet.enable_page_index = true;
    let ctx = SessionContext::new_with_config(config);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/table/");
    // (file, [(partition column, value as SQL)], matching rows)
    let files: &[(&str, &[(&str, &str)], usize)] = &[("p_int=v2/p_str=v2/part-00008-2.parquet", &[("p_int", "CAST('11' AS INT)"), ("p_str", "CAST('p2' AS VARCHAR)")], 24)];
    // Under column mapping: each data column's (physical name in the files, logical name).
    let renames: &[(&str, &str)] = &[];
    for (file, partitions, expected) in files {
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
        assert_eq!(counts[0], counts[1], "{file}: the predicate and its equivalent spelling");
    }
}
