//! A finding's reproduction, in the reader's own terms, so that its maintainers need none of
//! this project's tools: `DIR/repro/NN-ENGINE-VERDICT/` holds the table (copied), a
//! `README.md` saying what was expected and what the reader returned, and a script that shows
//! it: `repro.py` for the Python readers (exit 1 while the reader is wrong), `repro.rs` for
//! DataFusion (a test to paste into a crate depending on `datafusion` and `tokio`). The kernel's
//! finding names the files it dropped and the predicate it was given.

use std::path::Path;

use super::{Adapter, Finding, Reading, TableUnderTest};
use oracle::engines::Answer;

/// Writes the reproduction of `finding` (the `n`-th) under `out/repro/`; returns its folder,
/// relative to `out`.
pub fn write(
    out: &Path,
    n: usize,
    finding: &Finding,
    table: &TableUnderTest,
    adapter: &mut dyn Adapter,
) -> Result<String, String> {
    let name = format!("{n:02}-{}-{}", finding.engine, finding.verdict.name());
    let dir = out.join("repro").join(&name);
    let copy = dir.join("table");
    copy_dir(Path::new(&table.location), &copy)?;
    let predicate = &finding.minimized;
    let expected = match adapter.truth(table, predicate)? {
        Answer::Rows(rows) => rows,
        Answer::Refused(why) => return Err(format!("the truth refuses `{predicate}`: {why}")),
    };
    let reading = adapter.read(table, predicate)?;
    let expected_total: u64 = expected.iter().sum();
    let got = match &reading {
        Reading::Rows { total, .. } => format!("{total} row(s)"),
        Reading::Survivors(kept) => format!(
            "kept {} of {} files; dropped files holding a matching row: {}",
            kept.iter().filter(|k| **k).count(),
            kept.len(),
            expected
                .iter()
                .enumerate()
                .filter(|(i, r)| **r > 0 && !kept.get(*i).copied().unwrap_or(false))
                .map(|(i, _)| table.loaded.snapshot.files[i].path.clone())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Reading::Refused(why) => format!("refused: {why}"),
    };
    let mut readme = format!(
        "# {} {}: {}\n\nTable: `table/` (`{}`, seed {}: a table of the generators' catalog, or a shared fixture where the seed is 0; {} live files).\n\nPredicate (minimized from `{}`):\n\n```sql\n{predicate}\n```\n\nExpected: {expected_total} matching row(s) (the same engine's reading of the predicate over the table's live rows, read without Delta). The reader: {got}.\n\n",
        finding.engine,
        finding.version,
        finding.verdict.name(),
        finding.table,
        finding.seed,
        table.files(),
        finding.predicate,
    );
    let script = match finding.engine.as_str() {
        "duckdb-delta" => Some((
            "repro.py",
            python_script(
                predicate,
                finding.variant.as_deref(),
                expected_total,
                "import duckdb, duckdb_extension_delta, glob, os\next = glob.glob(os.path.join(os.path.dirname(duckdb_extension_delta.__file__), 'extensions', '*', '*.duckdb_extension'))[0]\ncon = duckdb.connect(config={'allow_unsigned_extensions': 'true'})\ncon.execute(f\"LOAD '{ext}'\")\n\ndef count(predicate):\n    return con.execute(f\"SELECT count(*) FROM delta_scan('{TABLE}') WHERE {predicate}\").fetchone()[0]",
            ),
        )),
        "polars" => Some((
            "repro.py",
            python_script(
                predicate,
                finding.variant.as_deref(),
                expected_total,
                "import polars as pl\n\ndef count(predicate):\n    return pl.scan_delta(TABLE).filter(pl.sql_expr(predicate)).select(pl.len()).collect().item()",
            ),
        )),
        "delta-rs" => Some((
            "repro.py",
            python_script(
                predicate,
                finding.variant.as_deref(),
                expected_total,
                "from deltalake import DeltaTable, QueryBuilder\n\ndef count(predicate):\n    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()\n    return result.column('n')[0].as_py()",
            ),
        )),
        "datafusion-parquet" => Some((
            "repro.rs",
            datafusion_test(
                &super::datafusion_parquet::partition_sql(table)?,
                predicate,
                &expected,
            ),
        )),
        _ => None,
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if let Some((file, text)) = script {
        readme.push_str(&format!(
            "Run: `{}` (exits 1 while the reader returns other rows).\n",
            if file.ends_with(".py") {
                "python repro.py"
            } else {
                "cargo test (repro.rs in a crate depending on datafusion and tokio)"
            }
        ));
        std::fs::write(dir.join(file), text).map_err(|e| e.to_string())?;
    } else {
        readme.push_str(&format!(
            "The kernel was given the predicate as written (no guard): a `delta_kernel` scan of `table/` with it keeps the files above; every file holding a matching row must be kept. Matching rows per live file: {}.\n",
            expected
                .iter()
                .enumerate()
                .filter(|(_, r)| **r > 0)
                .map(|(i, r)| format!("`{}`: {r}", table.loaded.snapshot.files[i].path))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    std::fs::write(dir.join("README.md"), readme).map_err(|e| e.to_string())?;
    Ok(format!("repro/{name}"))
}

/// A script that counts with the reader (`body` defines `count(predicate)`): the predicate's
/// rows against the expected count, or, for variants that differ, the rows of both spellings
/// against each other (they must be equal whatever the data).
fn python_script(predicate: &str, variant: Option<&str>, expected: u64, body: &str) -> String {
    let check = match variant {
        Some(variant) => format!(
            "# Two spellings of one predicate, equal in SQL's three-valued logic: the reader must\n# read the same rows for both.\nVARIANT = {variant:?}\na, b = count(PREDICATE), count(VARIANT)\nprint(f'{{a}} row(s) for the predicate, {{b}} for its equivalent spelling')\nsys.exit(0 if a == b else 1)\n"
        ),
        None => "got = count(PREDICATE)\nprint(f'{got} row(s), expected {EXPECTED}')\nsys.exit(0 if got == EXPECTED else 1)\n".to_string(),
    };
    format!(
        "# A reproduction: the reader returns other rows than the table holds for this predicate.\nimport os, sys\n\nTABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')\nPREDICATE = {predicate:?}\nEXPECTED = {expected}\n\n{body}\n\n{check}"
    )
}

/// A test reading each live file with DataFusion's pruned Parquet scan, its partition values
/// added as columns, as the adapter does.
fn datafusion_test(
    files: &[super::datafusion_parquet::FilePartitionSql],
    predicate: &str,
    expected: &[u64],
) -> String {
    let cases = format!(
        "[{}]",
        files
            .iter()
            .zip(expected)
            .map(|((f, values), n)| {
                let values: Vec<String> = values
                    .iter()
                    .map(|(c, e)| format!("({c:?}, {e:?})"))
                    .collect();
                format!("({f:?}, &[{}], {n})", values.join(", "))
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    format!(
        "// Each live file of `table/` read by DataFusion's Parquet scan with pruning and filter\n// pushdown on, its partition values added as columns: the rows matching the predicate must\n// be the rows the file holds that match.\nuse datafusion::prelude::*;\n\n#[tokio::test]\nasync fn pruned_parquet_scan_matches_every_row() {{\n    let mut config = SessionConfig::new();\n    config.options_mut().execution.parquet.pushdown_filters = true;\n    config.options_mut().execution.parquet.enable_page_index = true;\n    let ctx = SessionContext::new_with_config(config);\n    let root = concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/table/\");\n    // (file, [(partition column, value as SQL)], matching rows)\n    let files: &[(&str, &[(&str, &str)], usize)] = &{cases};\n    for (file, partitions, expected) in files {{\n        let mut df = ctx.read_parquet(format!(\"{{root}}{{file}}\"), ParquetReadOptions::default()).await.unwrap();\n        for (column, value) in *partitions {{\n            let value = df.parse_sql_expr(value).unwrap();\n            df = df.with_column(column, value).unwrap();\n        }}\n        let filter = df.parse_sql_expr({predicate:?}).unwrap();\n        let n = df.filter(filter).unwrap().count().await.unwrap();\n        assert_eq!(n, *expected, \"{{file}}\");\n    }}\n}}\n"
    )
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(|e| e.to_string())?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .map_err(|e| format!("{}: {e}", target.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::python_script;

    /// Runs a generated script whose reader counts a predicate by its length.
    fn exit_code(variant: Option<&str>, expected: u64) -> Option<i32> {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("repro.py");
        let body = "def count(predicate):\n    return len(predicate)";
        std::fs::write(&script, python_script("a = 1", variant, expected, body)).unwrap();
        std::process::Command::new("python3")
            .arg(&script)
            .output()
            .unwrap()
            .status
            .code()
    }

    #[test]
    fn a_variants_script_compares_both_spellings() {
        // `NOT (a != 1)` reads 12 "rows", `a = 1` 5: the reader differs, the script says so.
        assert_eq!(exit_code(Some("NOT (a != 1)"), 0), Some(1));
        assert_eq!(exit_code(Some("1 = a"), 0), Some(0));
        // Without a variant, the rows against the expected count.
        assert_eq!(exit_code(None, 5), Some(0));
        assert_eq!(exit_code(None, 4), Some(1));
    }
}
