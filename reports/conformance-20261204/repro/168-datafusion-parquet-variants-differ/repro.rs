// Each live file of `table/` read by DataFusion's Parquet scan with pruning and filter
// pushdown on, its partition values added as columns: the rows matching the predicate must
// be the rows the file holds that match.
use datafusion::prelude::*;

/// The predicate, and its equivalent spelling where the two must agree.
const SPELLINGS: &[&str] = &["NOT (f32 IN (-910.56732177734375, -596.25677490234375, -493.917877197265625, -317.00677490234375, -77.822418212890625, 301.00445556640625, 537.97027587890625, 522.1439208984375, 579.90374755859375, -993.9464111328125, -993.94635009765625, -993.9462890625, 986.07861328125, 986.07867431640625, 986.0787353515625, -91056732177734375e-14, -59625677490234375e-14, -0.0, 0.0, 0, 1e300, -1e-300, 0.1, 'NaN') AND f32 NOT IN (-910.56732177734375, -596.25677490234375, -493.917877197265625, -317.00677490234375, -77.822418212890625, 301.00445556640625, 537.97027587890625, 522.1439208984375, 579.90374755859375, -993.9464111328125, -993.94635009765625, -993.9462890625, 986.07861328125, 986.07867431640625, 986.0787353515625, -91056732177734375e-14, -59625677490234375e-14, -0.0, 0.0, 0, 1e300, -1e-300, 0.1, 'NaN'))", "NOT NOT (NOT f32 IN (-910.56732177734375, -596.25677490234375, -493.917877197265625, -317.00677490234375, -77.822418212890625, 301.00445556640625, 537.97027587890625, 522.1439208984375, 579.90374755859375, -993.9464111328125, -993.94635009765625, -993.9462890625, 986.07861328125, 986.07867431640625, 986.0787353515625, -91056732177734375e-14, -59625677490234375e-14, -0.0, 0.0, 0, 1e300, -1e-300, 0.1, 'NaN') OR NOT f32 NOT IN (-910.56732177734375, -596.25677490234375, -493.917877197265625, -317.00677490234375, -77.822418212890625, 301.00445556640625, 537.97027587890625, 522.1439208984375, 579.90374755859375, -993.9464111328125, -993.94635009765625, -993.9462890625, 986.07861328125, 986.07867431640625, 986.0787353515625, -91056732177734375e-14, -59625677490234375e-14, -0.0, 0.0, 0, 1e300, -1e-300, 0.1, 'NaN'))"];

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
