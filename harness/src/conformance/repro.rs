//! A finding's reproduction, in the reader's own terms, so that its maintainers need none of
//! this project's tools: `DIR/repro/NNN-ENGINE-VERDICT/` holds the table (copied), a
//! `README.md` saying what was expected and what the reader returned, and a script that shows
//! it: `repro.py` for the Python readers (exit 1 while the reader is wrong); for the kernel and
//! DataFusion a crate of one test (`Cargo.toml`, `repro.rs`: `cargo test` fails while the
//! reader is wrong), the kernel's given the predicate exactly as the adapter gave it (the
//! kernel's own serde form of it: JSON, or RON where a literal is NaN or infinite; none where
//! nothing of it lowers) and the files that must survive. A reader without a reproduction is
//! an error, which the report keeps as the finding's `unreproduced`.

use std::path::Path;

use super::{Adapter, Finding, Reading, TableUnderTest};
use oracle::engines::Answer;

/// What the reader gives for `predicate`, in a line of the README: its rows, its kept files
/// and the matching ones it dropped, its refusal or its failure.
fn what_the_reader_gives(
    adapter: &mut dyn Adapter,
    table: &TableUnderTest,
    predicate: &str,
    expected: &[u64],
) -> String {
    match adapter.read(table, predicate) {
        // An `error` finding: the reader fails on the table, and its reproduction shows that.
        Err(e) => format!("fails: {e}"),
        Ok(Reading::Rows { total, .. }) => format!("{total} row(s)"),
        Ok(Reading::Survivors(kept)) => format!(
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
        Ok(Reading::Refused(why)) => format!("refused: {why}"),
        Ok(Reading::PlanDependent(why)) => format!("raises: {why}"),
    }
}

/// Writes the reproduction of `finding` (the `n`-th) under `out/repro/`; returns its folder,
/// relative to `out`.
pub fn write(
    out: &Path,
    n: usize,
    finding: &Finding,
    table: &TableUnderTest,
    original_files: usize,
    adapter: &mut dyn Adapter,
) -> Result<String, String> {
    let name = format!("{n:03}-{}-{}", finding.engine, finding.verdict.name());
    let dir = out.join("repro").join(&name);
    let copy = dir.join("table");
    generators::history::copy(Path::new(&table.location), &copy)?;
    let predicate = &finding.minimized;
    let expected = match adapter.truth(table, predicate)? {
        Answer::Rows(rows) => rows,
        Answer::Refused(why) => return Err(format!("the truth refuses `{predicate}`: {why}")),
    };
    let expected_total: u64 = expected.iter().sum();
    // The live files holding a matching row, with their matching rows.
    let matching: Vec<(&str, u64)> = expected
        .iter()
        .enumerate()
        .filter(|(_, r)| **r > 0)
        .map(|(i, r)| (table.loaded.snapshot.files[i].path.as_str(), *r))
        .collect();
    let got = what_the_reader_gives(adapter, table, predicate, &expected);
    let mut readme = format!(
        "# {} {}: {}\n\nTable: `table/` (`{}`, seed {}: a table of the generators' catalog, or a shared fixture where the seed is 0; {} live file(s){}; packed in the report's `repro-tables.tar.gz`: run `tar -xzf repro-tables.tar.gz` in the report's folder first).\n\nPredicate (minimized from `{}`):\n\n```sql\n{predicate}\n```\n\nExpected: {expected_total} matching row(s) (the same engine's reading of the predicate over the table's live rows, read without Delta). The reader: {got}.\n\n",
        finding.engine,
        finding.version,
        finding.verdict.name(),
        finding.table,
        finding.seed,
        table.files(),
        if table.files() < original_files {
            format!(
                " of its {original_files}: a last commit removes the files the finding does not need"
            )
        } else {
            String::new()
        },
        finding.predicate,
    );
    let script = match python_reader(&finding.engine) {
        Some(reader) => {
            // The table's live rows, read without Delta: the script's truth is the reader's
            // engine over them.
            oracle::engines::write_rows(&table.loaded, &dir.join(super::pack::ROWS))
                .map_err(|e| e.to_string())?;
            Reproduction::Python(python_script(
                &reader,
                &finding.version,
                predicate,
                finding.variant.as_deref(),
                finding.localization.as_ref(),
            ))
        }
        None => match finding.engine.as_str() {
            "datafusion-parquet" => {
                // The live rows the test's truth reads, beside the table.
                oracle::engines::write_rows(&table.loaded, &dir.join(super::pack::ROWS))
                    .map_err(|e| e.to_string())?;
                Reproduction::Crate {
                    manifest: cargo_toml(&finding.engine, ""),
                    test: datafusion_test(
                        &super::datafusion_parquet::partition_sql(table)?,
                        predicate,
                        finding.variant.as_deref(),
                    ),
                }
            }
            "kernel" => {
                // `None`: nothing of the predicate lowers to the kernel, and the adapter's scan had
                // no predicate (a finding there is the scan failing on the table).
                let text = super::kernel::predicate_text(&table.location, predicate)?;
                let must_keep: Vec<&str> = matching.iter().map(|(path, _)| *path).collect();
                Reproduction::Crate {
                    manifest: cargo_toml(&finding.engine, &kernel_predicate_reader(text.as_ref())),
                    test: kernel_test(text.as_ref(), &must_keep),
                }
            }
            other => {
                return Err(format!(
                    "no reproduction is written for the reader `{other}`"
                ));
            }
        },
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let write = |file: &str, text: &str| {
        std::fs::write(dir.join(file), text)
            .map_err(|e| format!("{}: {e}", dir.join(file).display()))
    };
    match &script {
        Reproduction::Python(script) => {
            readme.push_str(&format!(
                "Run: `pip install -r requirements.txt` (the versions the campaign ran), then `python repro.py`: it counts the rows with the reader and with the same engine over the table's live rows read without Delta (`rows.parquet`), and exits 1 while they differ (0 on a reader without the bug).{}\n",
                if finding.localization.as_ref().is_some_and(|l| l.layer == super::localize::Layer::Expressions.name()) {
                    " The engine alone disagrees with itself on the predicate's equivalent spellings over the plain rows: the script shows that first, with no Delta table involved."
                } else {
                    ""
                }
            ));
            write("repro.py", script)?;
            if let Some(reader) = python_reader(&finding.engine) {
                write("requirements.txt", &reader.requirements(&finding.version))?;
            }
        }
        Reproduction::Crate { manifest, test } => {
            readme.push_str("Run: `cargo test` here (`Cargo.toml` and `repro.rs`: the test fails while the reader is wrong).\n");
            write("Cargo.toml", manifest)?;
            write("repro.rs", test)?;
        }
    }
    if finding.engine == "kernel" {
        readme.push_str(&format!(
            "The kernel was given the predicate as written (no guard): a `delta_kernel` scan of `table/` with it keeps the files above; every file holding a matching row must be kept. Matching rows per live file: {}.\n",
            matching
                .iter()
                .map(|(path, r)| format!("`{path}`: {r}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    std::fs::write(dir.join("README.md"), readme).map_err(|e| e.to_string())?;
    Ok(format!("repro/{name}"))
}

/// Each reproduction's README says where its fault stands upstream: the issue a known cause
/// names (`campaign --known`), or that none was found among them. Run once the report knows
/// its upstream issues (`annotate_known`).
pub fn note_upstream(out: &Path, findings: &[Finding]) -> Result<(), String> {
    for f in findings {
        let Some(dir) = &f.reproduction else {
            continue;
        };
        let readme = out.join(dir).join("README.md");
        let mut text =
            std::fs::read_to_string(&readme).map_err(|e| format!("{}: {e}", readme.display()))?;
        text.push_str(&match &f.upstream {
            Some(u) => format!("\nUpstream: {u}\n"),
            None => "\nUpstream: no upstream issue found among the campaign's known causes (reports/conformance-known-causes.json); search the reader's tracker (delta-kernel-rs, DataFusion, DuckDB, duckdb-delta, delta-rs, Polars) before filing one.\n".to_string(),
        });
        if let Some(l) = &f.localization {
            text.push_str(&format!(
                "\nAt fault: {}, {} (the campaign's experiments: {}).\n",
                l.component,
                l.layer,
                l.experiments
                    .iter()
                    .map(|e| format!("{}: {}", e.name, e.outcome))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
        std::fs::write(&readme, text).map_err(|e| format!("{}: {e}", readme.display()))?;
    }
    Ok(())
}

/// A reproduction in the reader's own terms.
enum Reproduction {
    /// `repro.py`, for a reader users run from Python.
    Python(String),
    /// A crate of one test (`Cargo.toml`, `repro.rs`), for a reader users run from Rust.
    Crate { manifest: String, test: String },
}

/// A reader users run from Python: how the script counts with it, how it counts with the
/// same engine over the plain rows, the packages it pins.
struct PythonReader {
    /// Defines `count(predicate)` (through the reader) and `truth(predicate)` (the engine
    /// over `ROWS`, the table's live rows as a Parquet file).
    body: &'static str,
    /// The packages and how their versions are read back from the campaign's version string.
    packages: fn(&str) -> Vec<String>,
}

impl PythonReader {
    fn requirements(&self, version: &str) -> String {
        let mut out: Vec<String> = (self.packages)(version);
        out.push("pyarrow".into());
        out.join("\n") + "\n"
    }
}

/// The Python reader named `engine`.
fn python_reader(engine: &str) -> Option<PythonReader> {
    Some(match engine {
        "duckdb-delta" => PythonReader {
            body: "import duckdb, duckdb_extension_delta, glob\next = glob.glob(os.path.join(os.path.dirname(duckdb_extension_delta.__file__), 'extensions', '*', '*.duckdb_extension'))[0]\ncon = duckdb.connect(config={'allow_unsigned_extensions': 'true'})\ncon.execute(f\"LOAD '{ext}'\")\nVERSIONS = f'duckdb {duckdb.__version__}'\n\ndef count(predicate):\n    return con.execute(f\"SELECT count(*) FROM delta_scan('{TABLE}') WHERE {predicate}\").fetchone()[0]\n\ndef truth(predicate):\n    return con.execute(f\"SELECT count(*) FROM read_parquet('{ROWS}') WHERE {predicate}\").fetchone()[0]",
            // `1.5.5 (delta extension 1.5.5)`: the extension pins its DuckDB.
            packages: |v| match v.split("delta extension ").nth(1) {
                Some(ext) => vec![format!(
                    "duckdb-extension-delta=={}",
                    ext.trim_end_matches(')')
                )],
                None => vec!["duckdb-extension-delta".into()],
            },
        },
        "polars" => PythonReader {
            body: "import polars as pl\nVERSIONS = f'polars {pl.__version__}'\n\ndef count(predicate):\n    return pl.scan_delta(TABLE).filter(pl.sql_expr(predicate)).select(pl.len()).collect().item()\n\ndef truth(predicate):\n    return pl.read_parquet(ROWS).lazy().filter(pl.sql_expr(predicate)).select(pl.len()).collect().item()",
            packages: |v| vec![format!("polars=={v}"), "deltalake".into()],
        },
        "delta-rs" => PythonReader {
            body: "import tempfile\nimport deltalake, pyarrow.parquet as pq\nfrom deltalake import DeltaTable, QueryBuilder, write_deltalake\nVERSIONS = f'deltalake {deltalake.__version__}'\n\ndef count(predicate):\n    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()\n    return result.column('n')[0].as_py()\n\n# The same query builder over the live rows, as a Delta table of one file without\n# statistics: nothing to prune, delta-rs' reading of the SQL alone.\nPLAIN = tempfile.mkdtemp()\nwrite_deltalake(PLAIN, pq.read_table(ROWS), configuration={'delta.dataSkippingNumIndexedCols': '0'})\n\ndef truth(predicate):\n    result = QueryBuilder().register('t', DeltaTable(PLAIN)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()\n    return result.column('n')[0].as_py()",
            packages: |v| vec![format!("deltalake=={v}")],
        },
        _ => return None,
    })
}

/// A script that counts with the reader and with its engine over the plain rows, computed in
/// the script (no number fixed by the campaign): the two must agree; for variants that differ,
/// the reader's rows of both spellings must agree too. Where the fault is the engine's
/// expressions, the engine alone on both spellings comes first.
fn python_script(
    reader: &PythonReader,
    version: &str,
    predicate: &str,
    variant: Option<&str>,
    localization: Option<&super::localize::Localization>,
) -> String {
    let engine_alone = localization
        .filter(|l| l.layer == super::localize::Layer::Expressions.name())
        .map(|l| {
            format!(
                "# The engine alone ({}), over the plain rows: no Delta table involved.\nfor spelling in SPELLINGS[1:]:\n    if truth(spelling) != truth(PREDICATE):\n        print(f'the engine alone: {{truth(PREDICATE)}} row(s) for the predicate, {{truth(spelling)}} for `{{spelling}}`')\n        failed = True\n",
                l.component
            )
        })
        .unwrap_or_default();
    let spellings = match variant {
        Some(v) => format!("[PREDICATE, {v:?}]"),
        None => "[PREDICATE]".to_string(),
    };
    format!(
        "# A reproduction: the reader returns other rows than its own engine finds in the table's\n# live rows for this predicate. Ran by the campaign with {version}.\nimport os, sys\n\nHERE = os.path.dirname(os.path.abspath(__file__))\nTABLE = os.path.join(HERE, 'table')\nROWS = os.path.join(HERE, 'rows.parquet')\nPREDICATE = {predicate:?}\n# The predicate and its equivalent spellings (equal in SQL's three-valued logic).\nSPELLINGS = {spellings}\n\n{body}\n\nprint(VERSIONS)\nfailed = False\n{engine_alone}for spelling in SPELLINGS:\n    got, expected = count(spelling), truth(spelling)\n    print(f'`{{spelling}}`: the reader {{got}} row(s), the engine over the plain rows {{expected}}')\n    failed |= got != expected\nif len(SPELLINGS) > 1 and count(SPELLINGS[0]) != count(SPELLINGS[1]):\n    print('the reader reads the equivalent spellings differently')\n    failed = True\nsys.exit(1 if failed else 0)\n",
        body = reader.body
    )
}

/// The dependency a kernel reproduction reads its predicate with: RON or JSON as it is
/// written, none where the scan has no predicate.
fn kernel_predicate_reader(text: Option<&super::kernel::KernelPredicateText>) -> String {
    use super::kernel::KernelPredicateText;
    match text {
        Some(KernelPredicateText::Ron(_)) => format!(
            "ron = {{ version = {}, features = [\"integer128\"] }}\n",
            pinned("ron")
        ),
        // Every double read back as the nearest one to its digits, as written.
        Some(KernelPredicateText::Json(_)) => {
            "serde_json = { version = \"1\", features = [\"float_roundtrip\"] }\n".to_string()
        }
        None => String::new(),
    }
}

/// `name` pinned at the version this build links (any version where it is not locked).
fn pinned(name: &str) -> String {
    super::locked::locked_version(name).map_or_else(|| "\"*\"".to_string(), |v| format!("\"={v}\""))
}

/// The manifest of a reproduction crate: the reader at the version the campaign ran, and
/// `extra` dependencies (how a kernel crate reads its predicate).
fn cargo_toml(engine: &str, extra: &str) -> String {
    let deps = match engine {
        "kernel" => format!(
            "delta_kernel = {{ version = {}, features = [\"arrow-59\"] }}\ndelta_kernel_default_engine = {{ version = {}, default-features = false, features = [\"arrow-59\"] }}\nobject_store = {{ version = {}, default-features = false, features = [\"fs\"] }}\n{extra}url = \"2\"\n",
            pinned("delta_kernel"),
            pinned("delta_kernel_default_engine"),
            pinned("object_store"),
        ),
        _ => format!(
            "datafusion = {{ version = {}, default-features = false, features = [\"parquet\", \"sql\"] }}\ntokio = {{ version = \"1\", features = [\"macros\", \"rt-multi-thread\"] }}\n{extra}",
            pinned("datafusion"),
        ),
    };
    format!(
        "[package]\nname = \"{engine}-repro\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n\n[dev-dependencies]\n{deps}\n[[test]]\nname = \"repro\"\npath = \"repro.rs\"\n"
    )
}

/// A test giving a plain kernel scan of `table/` the predicate (the kernel's serde form, as
/// the adapter built it; no predicate where nothing of it lowers, as the adapter's scan had
/// none): every file holding a matching row must survive, and the scan must not fail.
fn kernel_test(text: Option<&super::kernel::KernelPredicateText>, must_keep: &[&str]) -> String {
    use super::kernel::KernelPredicateText;
    let read_back = |form: &str, text: &str, read: &str| {
        (
            format!(
                "// A plain delta_kernel scan of `table/` with the predicate below (the kernel's own {form}\n// of it): every file holding a row that matches must survive the scan's pruning.\n"
            ),
            "use delta_kernel::expressions::Predicate;\n".to_string(),
            format!("const PREDICATE: &str = {};\n\n", raw_string(text)),
            format!(
                "    let predicate: Predicate = {read}.unwrap();\n    let scan = snapshot.scan_builder().with_predicate(Arc::new(predicate)).build().unwrap();\n"
            ),
        )
    };
    let (header, import, constant, scan) = match text {
        Some(KernelPredicateText::Json(json)) => {
            read_back("JSON", json, "serde_json::from_str(PREDICATE)")
        }
        Some(KernelPredicateText::Ron(ron)) => read_back(
            "serde form, in RON: JSON has no NaN or infinity",
            ron,
            "ron::from_str(PREDICATE)",
        ),
        None => (
            "// A plain delta_kernel scan of `table/` with no predicate (nothing of the query's predicate\n// lowers to the kernel): every file holding a row that matches must be listed.\n".to_string(),
            String::new(),
            String::new(),
            "    let scan = snapshot.scan_builder().build().unwrap();\n".to_string(),
        ),
    };
    format!(
        "{header}use std::sync::Arc;\n\nuse delta_kernel::Snapshot;\nuse delta_kernel::arrow::array::{{Array, AsArray}};\nuse delta_kernel::engine::arrow_data::ArrowEngineData;\n{import}use delta_kernel_default_engine::DefaultEngineBuilder;\n\n{constant}/// The files that hold a matching row.\nconst MUST_KEEP: &[&str] = &{must_keep:?};\n\n#[test]\nfn the_scan_keeps_every_file_holding_a_matching_row() {{\n    let dir = std::fs::canonicalize(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/table\")).unwrap();\n    let url = url::Url::from_directory_path(&dir).unwrap();\n    let store = Arc::new(object_store::local::LocalFileSystem::new());\n    let engine = DefaultEngineBuilder::new(store).build();\n    let snapshot = Snapshot::builder_for(url.as_str()).build(&engine).unwrap();\n{scan}    let mut kept = Vec::new();\n    for meta in scan.scan_metadata(&engine).unwrap() {{\n        let (data, selection) = meta.unwrap().scan_files.into_parts();\n        let data = ArrowEngineData::try_from_engine_data(data).unwrap();\n        let paths = data.record_batch().column_by_name(\"path\").unwrap().as_string::<i32>().clone();\n        for row in 0..paths.len() {{\n            if selection.get(row).copied().unwrap_or(true) {{\n                kept.push(paths.value(row).to_string());\n            }}\n        }}\n    }}\n    for file in MUST_KEEP {{\n        assert!(kept.iter().any(|k| k == file), \"{{file}} holds a matching row and was pruned; kept: {{kept:?}}\");\n    }}\n}}\n"
    )
}

/// `text` as a Rust raw string literal, with as many `#` as it needs (a literal of the
/// predicate may hold `"#`).
fn raw_string(text: &str) -> String {
    let hashes = (0..)
        .map(|n| "#".repeat(n))
        .find(|h| !text.contains(&format!("\"{h}")))
        .unwrap_or_default();
    format!("r{hashes}\"{text}\"{hashes}")
}

/// A test reading each live file with DataFusion's pruned Parquet scan, its partition values
/// added as columns, as the adapter does, against the same file's live rows (`rows.parquet`,
/// read into memory: nothing to prune) with the partition values supplied the same way: the
/// counts must agree for the predicate (and, for a `variants-differ` finding, its equivalent
/// spelling `variant`, and the two spellings must agree with each other). No count is fixed
/// by the campaign: the test passes on a DataFusion without the bug.
fn datafusion_test(
    files: &[super::datafusion_parquet::FilePartitionSql],
    predicate: &str,
    variant: Option<&str>,
) -> String {
    let spellings = match variant {
        Some(variant) => format!("[{predicate:?}, {variant:?}]"),
        None => format!("[{predicate:?}]"),
    };
    let pairs = |pairs: &[(String, String)]| {
        pairs
            .iter()
            .map(|(a, b)| format!("({a:?}, {b:?})"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let cases = format!(
        "[{}]",
        files
            .iter()
            .map(|(f, values, renames)| format!(
                "({f:?}, &[{}], &[{}])",
                pairs(values),
                pairs(renames)
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    format!(
        "// Each live file of `table/` read by DataFusion's Parquet scan with pruning and filter\n// pushdown on, its partition values added as columns, against the same file's live rows\n// (`rows.parquet`, read into memory: nothing to prune) with its partition values supplied\n// the same way: the rows matching each spelling must be the same.\nuse datafusion::prelude::*;\n\n/// The predicate, and its equivalent spelling where the two must agree.\nconst SPELLINGS: &[&str] = &{spellings};\n\n/// The column of `rows.parquet` naming each row's live file (its index in the list below).\nconst FILE_COLUMN: &str = \"{file_column}\";\n\n#[tokio::test]\nasync fn pruned_parquet_scan_matches_every_row() {{\n    let mut config = SessionConfig::new();\n    config.options_mut().execution.parquet.pushdown_filters = true;\n    config.options_mut().execution.parquet.enable_page_index = true;\n    let ctx = SessionContext::new_with_config(config);\n    let plain = SessionContext::new();\n    let root = concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/table/\");\n    let rows = plain.read_parquet(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/rows.parquet\"), ParquetReadOptions::default()).await.unwrap().collect().await.unwrap();\n    let rows = plain.read_batches(rows).unwrap();\n    // (file, [(partition column, value as SQL)], under column mapping [(data column's name in\n    // the file, logical name)])\n    let files: &[(&str, &[(&str, &str)], &[(&str, &str)])] = &{cases};\n    for (i, (file, partitions, renames)) in files.iter().enumerate() {{\n        let mut df = ctx.read_parquet(format!(\"{{root}}{{file}}\"), ParquetReadOptions::default()).await.unwrap();\n        if !renames.is_empty() {{\n            df = df.select(renames.iter().map(|(physical, logical)| ident(*physical).alias(*logical)).collect::<Vec<_>>()).unwrap();\n        }}\n        let mut truth = rows.clone().filter(col(FILE_COLUMN).eq(lit(i as i64))).unwrap();\n        let dropped: Vec<&str> = partitions.iter().map(|(c, _)| *c).chain([FILE_COLUMN]).collect();\n        truth = truth.drop_columns(&dropped).unwrap();\n        for (column, value) in *partitions {{\n            let value_expr = df.parse_sql_expr(value).unwrap();\n            df = df.with_column(column, value_expr).unwrap();\n            let value_expr = truth.parse_sql_expr(value).unwrap();\n            truth = truth.with_column(column, value_expr).unwrap();\n        }}\n        let mut counts = Vec::new();\n        for spelling in SPELLINGS {{\n            let got = df.clone().filter(df.parse_sql_expr(spelling).unwrap()).unwrap().count().await.unwrap();\n            let expected = truth.clone().filter(truth.parse_sql_expr(spelling).unwrap()).unwrap().count().await.unwrap();\n            assert_eq!(got, expected, \"{{file}}: `{{spelling}}`: the pruned scan against the file's rows\");\n            counts.push(got);\n        }}\n        assert!(counts.windows(2).all(|w| w[0] == w[1]), \"{{file}}: the equivalent spellings read {{counts:?}}\");\n    }}\n}}\n",
        file_column = oracle::matching::FILE_COLUMN,
    )
}

#[cfg(test)]
mod tests {
    use super::{PythonReader, datafusion_test, python_reader, python_script, raw_string};

    #[test]
    fn a_raw_string_holds_any_text() {
        assert_eq!(raw_string("a"), "r\"a\"");
        assert_eq!(raw_string("{\"a\": 1}"), "r#\"{\"a\": 1}\"#");
        // A string literal of the predicate holding `"#`: one more `#`.
        assert_eq!(raw_string("\"x\"#\""), "r##\"\"x\"#\"\"##");
    }

    /// Runs a generated script whose reader counts a predicate by its length and whose engine
    /// over the plain rows counts it as `truth` says.
    fn exit_code(variant: Option<&str>, truth: &'static str) -> Option<i32> {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("repro.py");
        let reader = PythonReader {
            body: truth,
            packages: |_| Vec::new(),
        };
        std::fs::write(
            &script,
            python_script(&reader, "test", "a = 1", variant, None),
        )
        .unwrap();
        std::process::Command::new("python3")
            .arg(&script)
            .output()
            .unwrap_or_else(|e| panic!("python3 runs the generated script (install Python 3): {e}"))
            .status
            .code()
    }

    const AGREES: &str =
        "VERSIONS = 'test'\ndef count(p):\n    return len(p)\n\ndef truth(p):\n    return len(p)";
    const ONE_MORE: &str = "VERSIONS = 'test'\ndef count(p):\n    return len(p)\n\ndef truth(p):\n    return len(p) + 1";

    #[test]
    #[ignore = "external tier: Python 3 runs the generated script"]
    fn a_script_computes_its_truth_and_compares_both_spellings() {
        // The reader against the engine's count, computed in the script.
        assert_eq!(exit_code(None, AGREES), Some(0));
        assert_eq!(exit_code(None, ONE_MORE), Some(1));
        // `NOT (a != 1)` reads 12 "rows", `a = 1` 5: the reader differs, the script says so.
        assert_eq!(exit_code(Some("NOT (a != 1)"), AGREES), Some(1));
        assert_eq!(exit_code(Some("1 = a"), AGREES), Some(0));
    }

    #[test]
    fn a_reproduction_pins_the_versions_the_campaign_ran() {
        let duckdb = python_reader("duckdb-delta").unwrap();
        assert_eq!(
            duckdb.requirements("1.5.5 (delta extension 1.5.5)"),
            "duckdb-extension-delta==1.5.5\npyarrow\n"
        );
        let polars = python_reader("polars").unwrap();
        assert_eq!(
            polars.requirements("2.2.0"),
            "polars==2.2.0\ndeltalake\npyarrow\n"
        );
        assert!(python_reader("kernel").is_none());
    }

    /// DataFusion's test counts each spelling with the pruned scan and with the file's rows
    /// from `rows.parquet` (no count fixed by the campaign), and compares the spellings.
    #[test]
    fn a_datafusion_test_computes_its_truth_and_compares_both_spellings() {
        let files = vec![(
            "p=a/part-0.parquet".to_string(),
            vec![("p".to_string(), "CAST('a' AS VARCHAR)".to_string())],
            vec![("col-7".to_string(), "x".to_string())],
        )];
        let test = datafusion_test(&files, "NOT (x IN (1))", Some("x NOT IN (1)"));
        assert!(
            test.contains(r#"const SPELLINGS: &[&str] = &["NOT (x IN (1))", "x NOT IN (1)"];"#),
            "{test}"
        );
        assert!(test.contains("rows.parquet"), "{test}");
        assert!(test.contains("assert_eq!(got, expected"), "{test}");
        assert!(test.contains("counts.windows(2)"), "{test}");
        let test = datafusion_test(&files, "x = 1", None);
        assert!(test.contains(r#"&["x = 1"];"#), "{test}");
        assert!(test.contains(
            r#"("p=a/part-0.parquet", &[("p", "CAST('a' AS VARCHAR)")], &[("col-7", "x")])"#
        ));
    }
}
