// Each live file of `table/` read by DataFusion's Parquet scan with pruning and filter
// pushdown on, its partition values added as columns: the rows matching the predicate must
// be the rows the file holds that match.
use datafusion::prelude::*;

/// The predicate, and its equivalent spelling where the two must agree.
const SPELLINGS: &[&str] = &["NOT x IN (983.2480206167447, 0.1, -979.8531749773684) OR x IN (-889.5252653121361, -829.3251030353234, -555.6811329732514, -339.49332860193033, -295.39903517160735, 178.782074551807, 391.7095093672799, 658.9025605514519, -0.0, 835.8484536719368, -979.8531749773686, -979.8531749773684, -979.8531749773683, 983.2480206167446, 983.2480206167447, 983.2480206167448, -8895252653121361e-13, -8293251030353234e-13, 0.0, 0, 0.1, 'NaN')", "NOT (NOT NOT x IN (983.2480206167447, 0.1, -979.8531749773684) AND NOT x IN (-889.5252653121361, -829.3251030353234, -555.6811329732514, -339.49332860193033, -295.39903517160735, 178.782074551807, 391.7095093672799, 658.9025605514519, -0.0, 835.8484536719368, -979.8531749773686, -979.8531749773684, -979.8531749773683, 983.2480206167446, 983.2480206167447, 983.2480206167448, -8895252653121361e-13, -8293251030353234e-13, 0.0, 0, 0.1, 'NaN'))"];

#[tokio::test]
async fn pruned_parquet_scan_matches_every_row() {
    let mut config = SessionConfig::new();
    config.options_mut().execution.parquet.pushdown_filters = true;
    config.options_mut().execution.parquet.enable_page_index = true;
    let ctx = SessionContext::new_with_config(config);
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/table/");
    // (file, [(partition column, value as SQL)], matching rows)
    let files: &[(&str, &[(&str, &str)], usize)] = &[("p=v2/part-00010-2.parquet", &[("p", "CAST('11' AS INT)")], 23)];
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
