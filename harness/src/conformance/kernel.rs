//! The `kernel` adapter: one delta_kernel scan with the predicate, as a reader runs it
//! (partition pruning and data skipping, its own snapshot and replay), lowered as written with
//! no guard of ours (`explain::unguarded_kernel_predicate`). It returns a survivor set; the
//! truth is the files holding a row that matches under any engine's reading (the oracle's
//! DataFusion matching and its interpreter's Spark and DuckDB semantics).

use delta_kernel::Snapshot;
use delta_kernel::expressions::Predicate;
use explain_compiler::schema::TableColumns;
use explain_core::explain::{CompiledPredicate, unguarded_kernel_predicate};
use explain_core::replay::open_engine;
use oracle::engines::Answer;

use super::{Adapter, Reading, TableUnderTest};
use crate::scaling::fresh_scan_paths;

#[derive(Default)]
pub struct KernelAdapter {
    columns: Option<TableColumns>,
}

impl Adapter for KernelAdapter {
    fn name(&self) -> &'static str {
        "kernel"
    }

    fn version(&self) -> Result<String, String> {
        Ok(kernel_version())
    }

    fn open(&mut self, table: &TableUnderTest) -> Result<Result<(), String>, String> {
        let (url, engine) = open_engine(&table.location).map_err(|e| e.to_string())?;
        let snapshot = Snapshot::builder_for(url.as_str())
            .build(engine.as_ref())
            .map_err(|e| e.to_string())?;
        self.columns = Some(TableColumns::of_snapshot(&snapshot));
        Ok(Ok(()))
    }

    fn read(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Reading, String> {
        let columns = self.columns.as_ref().ok_or("the table is not open")?;
        let kernel = lowered(predicate, columns);
        let kept = fresh_scan_paths(&table.location, None, kernel)?;
        let mut survivors = vec![false; table.files()];
        for path in &kept {
            if let Some(i) = table.file_index(path) {
                survivors[i] = true;
            }
        }
        Ok(Reading::Survivors(survivors))
    }

    fn truth(&mut self, table: &TableUnderTest, predicate: &str) -> Result<Answer, String> {
        // The kernel serves readers of every SQL reading: a file is needed where a row
        // matches under DataFusion's (the oracle's matching) or Spark's and DuckDB's (the
        // interpreter's: NaN above every number). Where the oracle refuses, the predicate has
        // no meaning to hold the kernel to.
        let datafusion = match table.loaded.matching_rows(predicate) {
            Ok(rows) => rows,
            Err(e) => return Ok(Answer::Refused(e.to_string())),
        };
        let spark_duckdb = table
            .loaded
            .matching_rows_under(predicate, oracle::interpret::Semantics::SparkDuckDb)
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        Ok(Answer::Rows(
            datafusion
                .iter()
                .enumerate()
                .map(|(i, n)| (*n).max(spark_duckdb.get(i).copied().unwrap_or(0)))
                .collect(),
        ))
    }
}

/// `predicate` as the kernel is given it: lowered as written, no guard. What the compiler
/// cannot lower gives the kernel nothing to skip with (`None`): a reader scans every file then
/// (the refusal is the compiler's, not the kernel's).
fn lowered(predicate: &str, columns: &TableColumns) -> Option<delta_kernel::PredicateRef> {
    CompiledPredicate::compile_against(predicate, columns)
        .and_then(|compiled| unguarded_kernel_predicate(&compiled, columns))
        .unwrap_or(None)
}

/// A lowered predicate in the kernel's own serde form, as a reproduction reads it back.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelPredicateText {
    /// JSON, where it reads back as the same predicate.
    Json(String),
    /// RON, where JSON cannot hold a literal: JSON has no NaN or infinity (serde_json writes
    /// `null`, which reads back as no double at all); RON writes `NaN`, `inf`, `-inf`.
    Ron(String),
}

/// The kernel's predicate for `predicate` on the table at `location` in its serde form
/// ([`serde_form`]), for a reproduction that hands it to a plain kernel scan; `None` where
/// nothing is lowered.
pub fn predicate_text(
    location: &str,
    predicate: &str,
) -> Result<Option<KernelPredicateText>, String> {
    let (url, engine) = open_engine(location).map_err(|e| e.to_string())?;
    let snapshot = Snapshot::builder_for(url.as_str())
        .build(engine.as_ref())
        .map_err(|e| e.to_string())?;
    let columns = TableColumns::of_snapshot(&snapshot);
    lowered(predicate, &columns)
        .map(|p| serde_form(p.as_ref()))
        .transpose()
}

/// `predicate` written so that it reads back as itself: JSON where it does, RON otherwise;
/// an error where neither does. Reading back is checked by writing the predicate read back
/// again (NaN equals nothing, so the predicates themselves cannot be compared).
pub fn serde_form(predicate: &Predicate) -> Result<KernelPredicateText, String> {
    let json = serde_json::to_string_pretty(predicate).map_err(|e| e.to_string())?;
    let json_back = serde_json::from_str::<Predicate>(&json)
        .ok()
        .and_then(|back| serde_json::to_string_pretty(&back).ok());
    if json_back.as_deref() == Some(json.as_str()) {
        return Ok(KernelPredicateText::Json(json));
    }
    let ron_text = |p: &Predicate| {
        ron::ser::to_string_pretty(p, ron::ser::PrettyConfig::default()).map_err(|e| e.to_string())
    };
    let ron = ron_text(predicate)?;
    let back: Predicate = ron::from_str(&ron).map_err(|e| format!("{e}: {ron}"))?;
    if ron_text(&back)? == ron {
        Ok(KernelPredicateText::Ron(ron))
    } else {
        Err(format!(
            "the kernel's predicate reads back as another one in JSON and in RON: {ron}"
        ))
    }
}

/// The delta_kernel version this build links, read from the workspace's lock file.
pub fn kernel_version() -> String {
    super::locked::locked_version("delta_kernel")
        .unwrap_or("unknown")
        .to_string()
}

#[cfg(test)]
mod tests {
    use delta_kernel::expressions::{ColumnName, Expression as Expr, Predicate as Pred, Scalar};

    use super::{KernelPredicateText, serde_form};

    fn column(name: &str) -> Expr {
        Expr::column(ColumnName::new([name]))
    }

    /// Every literal a predicate may hold, finite ones (a long's extremes, a decimal, negative
    /// zero, a double of 17 digits) beside `extra`.
    fn predicate(extra: f64) -> Pred {
        Pred::and_from([
            Pred::eq(column("l"), Expr::literal(i64::MIN)),
            Pred::gt(column("l"), Expr::literal(i64::MAX)),
            Pred::eq(
                column("d"),
                Expr::literal(Scalar::decimal(-12_345_678_901_234_567_890_i128, 38, 18).unwrap()),
            ),
            Pred::le(column("x"), Expr::literal(-0.0_f64)),
            Pred::lt(column("x"), Expr::literal(0.1_f64 + 0.2_f64)),
            Pred::ge(column("x"), Expr::literal(extra)),
        ])
    }

    /// The text reads back as a predicate that writes the same text: the same literals, NaN
    /// and infinities included.
    fn reads_back(text: &KernelPredicateText) -> Pred {
        let back: Pred = match text {
            KernelPredicateText::Json(json) => serde_json::from_str(json).unwrap(),
            KernelPredicateText::Ron(ron) => ron::from_str(ron).unwrap(),
        };
        assert_eq!(serde_form(&back).unwrap(), *text);
        back
    }

    #[test]
    fn a_finite_predicate_is_written_as_json() {
        let p = predicate(1e300);
        let text = serde_form(&p).unwrap();
        assert!(matches!(text, KernelPredicateText::Json(_)), "{text:?}");
        assert_eq!(reads_back(&text), p);
    }

    #[test]
    fn nan_and_infinities_are_written_as_ron_and_read_back_as_themselves() {
        for extra in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let p = predicate(extra);
            // JSON cannot hold them: serde_json writes null, which reads back as no double.
            assert!(serde_json::from_str::<Pred>(&serde_json::to_string(&p).unwrap()).is_err());
            let text = serde_form(&p).unwrap();
            let KernelPredicateText::Ron(ron) = &text else {
                panic!("{text:?}");
            };
            let back = reads_back(&text);
            let shown = format!("{back:?}");
            assert!(
                shown.contains(&format!("Double({extra:?})")),
                "{shown}\n{ron}"
            );
            assert!(shown.contains("Long(-9223372036854775808)"), "{shown}");
            assert!(shown.contains("-0.0"), "{shown}");
        }
    }
}
