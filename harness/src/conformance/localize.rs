//! Where a finding must be fixed: the experiments run on each new cause's minimized case before
//! it is listed, and the component and layer they place the fault in.
//!
//! 1. **The engine alone.** The reader's own engine over the plain rows (its truth) in every
//!    spelling the campaign compares ([`super::VARIANTS`]): where the engine's answers differ
//!    with no table format involved, the fault is the engine's expression handling (DataFusion
//!    for `datafusion-parquet` and `delta-rs`, DuckDB, Polars), whichever reader met it.
//! 2. **A layer taken away.** The same case on copies of the table ([`super::surgery`]): without
//!    the Delta statistics, without the Parquet statistics, without both, with the partition
//!    values written as columns. The first copy on which the failure is gone names the layer:
//!    Delta statistics skipping, Parquet statistics pruning, statistics pruning (either layer),
//!    partition pruning (missing rows) or a partition filter answered from the log and never
//!    applied to the rows (extra rows); on none, the rows are filtered wrong with no pruning
//!    involved.
//! 3. **The embedded component alone.** Where the reader embeds another that the campaign also
//!    drives (DuckDB's extension and delta-rs embed delta_kernel; delta-rs embeds DataFusion),
//!    the same case through that component: where it fails the same way, the fault is the
//!    component's, and its readers are listed under one bug. The kernel is asked only about a
//!    fault in a layer it has (the log, its statistics, partition values): it reads no rows.
//!
//! A finding's bug is `component | layer | fault`, the fault its verdict and shape (or hazard,
//! or an error's words, the embedded component's where it is at fault) and the table's
//! features: the same fault met through several readers is one bug listing them.

use serde::{Deserialize, Serialize};

use super::datafusion_parquet::DataFusionParquet;
use super::kernel::KernelAdapter;
use super::surgery::{self, Cut};
use super::{Adapter, Mark, Reading, TableUnderTest, VARIANTS, Verdict, cause, checked, shows};
use generators::variants::apply;
use oracle::engines::Answer;

/// One experiment and what it showed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Experiment {
    /// What was done (`delta statistics removed`, `engine over plain rows`, `delta_kernel
    /// alone`).
    pub name: String,
    /// `still fails`, `gone`, `differs`, `agrees`, or `not run: why`.
    pub outcome: String,
}

/// Where a finding must be fixed, and the experiments that say so.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Localization {
    /// The component at fault (`delta_kernel`, `DataFusion`, `delta-rs`, `DuckDB`, ...).
    pub component: String,
    /// The layer within it ([`Layer`]).
    pub layer: String,
    /// The bug's identity: `component | layer | fault`.
    pub bug: String,
    pub experiments: Vec<Experiment>,
}

/// The layers a fault is placed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// The engine evaluates the predicate's spellings differently over plain rows.
    Expressions,
    /// The failure goes with the Delta statistics.
    DeltaStatistics,
    /// The failure goes with the Parquet statistics (row groups, page index).
    ParquetStatistics,
    /// The failure goes only with both layers of statistics: each drops the rows alone.
    EitherStatistics,
    /// Missing rows that go once partition values are columns: partition pruning.
    PartitionPruning,
    /// Extra rows that go once partition values are columns: a partition filter answered from
    /// the log and never applied to the rows.
    PartitionFilterNotApplied,
    /// The rows come out wrong with no statistics or partition values involved.
    RowFiltering,
    /// The reader fails the table or the predicate (an error or a refusal).
    Reading,
    /// No experiment could be run (the copies could not be made).
    Unplaced,
}

impl Layer {
    pub fn name(self) -> &'static str {
        match self {
            Layer::Expressions => "expressions over plain rows",
            Layer::DeltaStatistics => "Delta statistics skipping",
            Layer::ParquetStatistics => "Parquet statistics pruning",
            Layer::EitherStatistics => "statistics pruning, Delta and Parquet alike",
            Layer::PartitionPruning => "partition pruning",
            Layer::PartitionFilterNotApplied => {
                "partition filter answered from the log, not applied"
            }
            Layer::RowFiltering => "row filtering (no pruning involved)",
            Layer::Reading => "reading",
            Layer::Unplaced => "not placed",
        }
    }
}

/// A reader's own component name.
pub fn component_of(reader: &str) -> &str {
    match reader {
        "kernel" => "delta_kernel",
        "datafusion-parquet" => "DataFusion",
        "duckdb-delta" => "duckdb-delta",
        "delta-rs" => "delta-rs",
        "polars" => "Polars",
        other => other,
    }
}

/// The SQL engine whose reading of the predicate is the reader's truth (none for the kernel,
/// which reads no rows).
pub fn engine_of(reader: &str) -> Option<&'static str> {
    match reader {
        "datafusion-parquet" | "delta-rs" => Some("DataFusion"),
        "duckdb-delta" => Some("DuckDB"),
        "polars" => Some("Polars"),
        _ => None,
    }
}

/// The components a reader embeds that the campaign drives alone (as adapter names), each with
/// the layers it does that reader's work in: DuckDB's extension reads the log and skips files
/// through delta_kernel; delta-rs reads the log through delta_kernel and prunes (on the Delta
/// statistics, the partition values and the Parquet statistics alike) and filters with
/// DataFusion; Polars' `scan_delta` lists the files through delta-rs (and so the kernel) and
/// prunes and filters itself.
pub fn embedded(reader: &str) -> &'static [(&'static str, &'static [Layer])] {
    const KERNEL_SKIPS: &[Layer] = &[
        Layer::Reading,
        Layer::DeltaStatistics,
        Layer::EitherStatistics,
        Layer::PartitionPruning,
        Layer::Unplaced,
    ];
    const KERNEL_READS: &[Layer] = &[Layer::Reading];
    const DATAFUSION: &[Layer] = &[
        Layer::DeltaStatistics,
        Layer::ParquetStatistics,
        Layer::EitherStatistics,
        Layer::RowFiltering,
        Layer::Unplaced,
    ];
    match reader {
        "duckdb-delta" => &[("kernel", KERNEL_SKIPS)],
        "polars" => &[("kernel", KERNEL_READS)],
        "delta-rs" => &[("kernel", KERNEL_READS), ("datafusion-parquet", DATAFUSION)],
        _ => &[],
    }
}

/// A finding's fault: its cause without the reader's name.
fn fault_of(cause_text: &str, engine: &str) -> String {
    cause_text
        .strip_prefix(engine)
        .map(str::trim_start)
        .unwrap_or(cause_text)
        .to_string()
}

/// What the localization is given: the finding's reader, its minimized case and how it fails.
pub struct Case<'a> {
    pub table: &'a TableUnderTest,
    pub predicate: &'a str,
    /// The equivalent spelling that reads other rows, for spellings that differ.
    pub variant: Option<&'a str>,
    pub verdict: Verdict,
    /// The finding's cause ([`cause::cause`]).
    pub cause: &'a str,
    /// The cause's middle part: the predicate's shape, a hazard or `(the table)`.
    pub shape: &'a str,
    pub features: &'a str,
}

/// Runs the experiments on `case` with `adapter` (left open on `case.table`).
pub fn localize(adapter: &mut dyn Adapter, case: &Case) -> Localization {
    let reader = adapter.name().to_string();
    let mut experiments = Vec::new();
    let mut component = component_of(&reader).to_string();
    let mut fault = fault_of(case.cause, &reader);
    let layer = if case.verdict.has_words() {
        Layer::Reading
    } else {
        match engine_alone(adapter, case, &mut experiments) {
            Some(engine) => {
                component = engine.to_string();
                Layer::Expressions
            }
            None => layers(adapter, case, &mut experiments),
        }
    };
    let mut layer = layer;
    if layer != Layer::Expressions {
        for (name, acts_in) in embedded(&reader) {
            if !acts_in.contains(&layer) {
                continue;
            }
            let Some((verdict, detail)) = alone(name, case) else {
                experiments.push(Experiment {
                    name: format!("{} alone", component_of(name)),
                    outcome: "not run: the component could not start".into(),
                });
                continue;
            };
            let same = verdict == case.verdict
                || (case.verdict == Verdict::VariantsDiffer && verdict.wrong_rows());
            experiments.push(Experiment {
                name: format!("{} alone", component_of(name)),
                outcome: if same {
                    format!("fails the same way ({})", verdict.name())
                } else {
                    format!("{} (not the same)", verdict.name())
                },
            });
            if same {
                component = component_of(name).to_string();
                fault = fault_of(
                    &cause::cause(name, verdict, case.shape, case.features, &detail),
                    name,
                );
                // The layer as the component alone shows it (DataFusion alone reads no Delta
                // statistics), so the bug is the one its own finding names.
                if !case.verdict.has_words()
                    && let Some(own) = layer_alone(name, case, &mut experiments)
                {
                    layer = own;
                }
                break;
            }
        }
    }
    let layer_name = layer.name();
    Localization {
        bug: format!("{component} | {layer_name} | {fault}"),
        component,
        layer: layer_name.to_string(),
        experiments,
    }
}

/// Experiment 1: the reader's engine over the plain rows in the case's spellings. The engine
/// where they differ.
fn engine_alone(
    adapter: &mut dyn Adapter,
    case: &Case,
    experiments: &mut Vec<Experiment>,
) -> Option<&'static str> {
    let engine = engine_of(adapter.name())?;
    let mut spellings: Vec<String> = case.variant.iter().map(ToString::to_string).collect();
    if let Ok(tree) = explain_compiler::sql::parse_predicate(case.predicate) {
        for v in VARIANTS {
            if let Some(s) = apply(v, &tree).map(|p| p.to_string())
                && !spellings.contains(&s)
            {
                spellings.push(s);
            }
        }
    }
    let name = format!(
        "{engine} over plain rows, {} spelling(s)",
        spellings.len() + 1
    );
    let Ok(Answer::Rows(first)) = adapter.truth(case.table, case.predicate) else {
        experiments.push(Experiment {
            name,
            outcome: "not run: the engine refuses the predicate".into(),
        });
        return None;
    };
    let total: u64 = first.iter().sum();
    for s in &spellings {
        if let Ok(Answer::Rows(rows)) = adapter.truth(case.table, s)
            && rows.iter().sum::<u64>() != total
        {
            experiments.push(Experiment {
                name,
                outcome: format!(
                    "differs: `{}` matches {total} row(s), `{s}` {}",
                    case.predicate,
                    rows.iter().sum::<u64>()
                ),
            });
            return Some(engine);
        }
    }
    experiments.push(Experiment {
        name,
        outcome: "agrees".into(),
    });
    None
}

/// Experiment 2: the case on copies with a layer taken away; the layer whose removal makes
/// the failure go.
fn layers(adapter: &mut dyn Adapter, case: &Case, experiments: &mut Vec<Experiment>) -> Layer {
    let partitioned = !case
        .table
        .loaded
        .snapshot
        .metadata
        .partition_columns
        .is_empty();
    let cuts: [(&str, Cut, Layer); 4] = [
        (
            "Delta statistics removed",
            Cut {
                delta_stats: true,
                ..Cut::default()
            },
            Layer::DeltaStatistics,
        ),
        (
            "Parquet statistics removed",
            Cut {
                parquet_stats: true,
                ..Cut::default()
            },
            Layer::ParquetStatistics,
        ),
        (
            "Delta and Parquet statistics removed",
            Cut {
                delta_stats: true,
                parquet_stats: true,
                ..Cut::default()
            },
            Layer::EitherStatistics,
        ),
        (
            "partition values written as columns",
            Cut {
                partitions_as_columns: true,
                ..Cut::default()
            },
            if case.verdict == Verdict::ExtraRows {
                Layer::PartitionFilterNotApplied
            } else {
                Layer::PartitionPruning
            },
        ),
    ];
    let mut placed = None;
    let mut ran = false;
    for (name, cut, layer) in cuts {
        if cut.partitions_as_columns && !partitioned {
            continue;
        }
        let outcome = match still_fails(adapter, case, &cut) {
            Ok(true) => {
                ran = true;
                "still fails".to_string()
            }
            Ok(false) => {
                ran = true;
                placed = placed.or(Some(layer));
                "gone".to_string()
            }
            Err(why) => format!("not run: {why}"),
        };
        experiments.push(Experiment {
            name: name.to_string(),
            outcome,
        });
        // The partition experiment runs beside the statistics ones, for the record; the first
        // copy on which the failure is gone names the layer.
    }
    let _ = adapter.open(case.table);
    match placed {
        Some(layer) => layer,
        None if ran => Layer::RowFiltering,
        None => Layer::Unplaced,
    }
}

/// Whether the case still fails on `case.table` with `cut` applied.
fn still_fails(adapter: &mut dyn Adapter, case: &Case, cut: &Cut) -> Result<bool, String> {
    let copy = surgery::copy(case.table, cut)?;
    match adapter.open(&copy.table) {
        Ok(Ok(())) => {}
        Ok(Err(why)) | Err(why) => return Err(format!("the reader cannot open the copy: {why}")),
    }
    Ok(shows(
        adapter,
        &copy.table,
        case.predicate,
        case.variant,
        case.verdict,
        &Mark::Verdict,
    ))
}

/// The layer experiments run on the embedded component `name` alone.
fn layer_alone(name: &str, case: &Case, experiments: &mut Vec<Experiment>) -> Option<Layer> {
    let mut component = start(name)?;
    if !matches!(component.open(case.table), Ok(Ok(()))) {
        return None;
    }
    let mut own = Vec::new();
    let layer = layers(component.as_mut(), case, &mut own);
    experiments.extend(own.into_iter().map(|e| Experiment {
        name: format!("{} alone, {}", component_of(name), e.name),
        outcome: e.outcome,
    }));
    Some(layer)
}

/// The adapter of the embedded component `name`.
fn start(name: &str) -> Option<Box<dyn Adapter>> {
    Some(match name {
        "kernel" => Box::new(KernelAdapter::default()),
        "datafusion-parquet" => Box::new(DataFusionParquet::new().ok()?),
        _ => return None,
    })
}

/// Experiment 3: the case through the embedded component `name` alone: its verdict and what
/// differs, or `None` where it cannot start.
fn alone(name: &str, case: &Case) -> Option<(Verdict, String)> {
    let mut component = start(name)?;
    match component.open(case.table) {
        Ok(Ok(())) => {}
        // The component refuses such a table: it cannot show the fault.
        Ok(Err(why)) => return Some((Verdict::Unsupported, why)),
        Err(e) => return Some((Verdict::Error, format!("cannot open the table: {e}"))),
    }
    if case.shape == cause::THE_TABLE && case.verdict.has_words() {
        // The reader fails the table whatever the predicate: so does the component if it
        // fails to read it (the kernel's scan with no predicate).
        return Some(match component.read(case.table, "TRUE") {
            Ok(Reading::Refused(why)) => (Verdict::Refused, why),
            Ok(_) => (Verdict::Correct, String::new()),
            Err(e) => (Verdict::Error, e),
        });
    }
    let c = checked(component.as_mut(), case.table, case.predicate);
    if c.verdict == Verdict::Correct
        && let (Some(a), Some(v)) = (&c.reading, case.variant)
        && let Ok(b) = component.read(case.table, v)
        && super::variants_differ(a, &b).is_some()
    {
        return Some((Verdict::VariantsDiffer, String::new()));
    }
    Some((c.verdict, c.detail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_faults_identity_drops_the_readers_name() {
        assert_eq!(
            fault_of(
                "delta-rs missing-rows | NaN in double | partitioned",
                "delta-rs"
            ),
            "missing-rows | NaN in double | partitioned"
        );
    }

    #[test]
    fn every_reader_with_rows_has_an_engine_and_the_kernel_none() {
        for r in ["datafusion-parquet", "delta-rs", "duckdb-delta", "polars"] {
            assert!(engine_of(r).is_some(), "{r}");
        }
        assert_eq!(engine_of("kernel"), None);
        assert!(embedded("kernel").is_empty());
    }
}
