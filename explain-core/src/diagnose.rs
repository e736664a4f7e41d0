//! `--explain-why`: deterministic diagnoses of why pruning is weak, each with a stable code, a
//! severity, what was seen and what to do about it. Diagnoses read the same replay and the
//! same explanation as the counts; the only extra work is measuring what each data-column
//! conjunct prunes alone, over the cached rows, in a few kernel scans ([`pruned_alone`]).
//!
//! | code | when |
//! |---|---|
//! | `NO_PARTITION_FILTER` | the table is partitioned and no conjunct constrains partition columns alone (not when data skipping already removes every file; info when it removes nine in ten) |
//! | `WEAK_DATA_SKIPPING` | a data-column conjunct prunes under 10% of the files it sees, though they carry statistics |
//! | `STATS_ABSENT` | files record no min/max for a data column the predicate uses |
//! | `UNSUPPORTED_FRAGMENT` | a fragment no phase can evaluate; it keeps every file |
//! | `UNSPLITTABLE_OR` | an OR mixes partition and data columns, so neither phase is credited |
//! | `NAN_UNGUARDED_BOUNDS` | float bounds a NaN row could defeat (see `--strict`) |
//! | `NAN_STRICT_EXCLUDED` | `--strict` left such fragments out of the scan |
//! | `PREDICATE_ALWAYS_FALSE` | the predicate normalizes to FALSE: every file is pruned unread |
//! | `PREDICATE_ALWAYS_TRUE` | the predicate normalizes to TRUE: nothing can be pruned |
//! | `PARTITION_VALUE_ABSENT` | the predicate accepts no partition value present in the table (a misspelt literal, most often): every file is pruned |

use crate::report::diagnoses::{Diagnosis, Severity};

use crate::explain::Explanation;
use crate::file_stats::{FileStats, StatsNeeds};
use crate::gates::{bounds_usable, referenced_data_columns};
use crate::replay::ReplayedTable;
use explain_compiler::classify::{Bucket, UNSPLITTABLE_OR};
use explain_compiler::error::ExplainError;
use explain_compiler::guards::{Effect, Guard, NAN_STRICT_EXCLUDED, NAN_UNGUARDED_BOUNDS, guard};
use explain_compiler::lower::{MAX_IN_LIST_EXPANSION, kernel_can_evaluate, to_kernel};
use explain_compiler::nnf::{Leaf, Nnf};
use explain_compiler::schema::ColumnInfo;

pub const NO_PARTITION_FILTER: &str = "NO_PARTITION_FILTER";
pub const WEAK_DATA_SKIPPING: &str = "WEAK_DATA_SKIPPING";
pub const STATS_ABSENT: &str = "STATS_ABSENT";
pub const UNSUPPORTED_FRAGMENT: &str = "UNSUPPORTED_FRAGMENT";
pub const PREDICATE_ALWAYS_FALSE: &str = "PREDICATE_ALWAYS_FALSE";
pub const PREDICATE_ALWAYS_TRUE: &str = "PREDICATE_ALWAYS_TRUE";
pub const PARTITION_VALUE_ABSENT: &str = "PARTITION_VALUE_ABSENT";

/// Every diagnosis code, listed once: the schema's enum and the docs' table say the same
/// (checked by a test).
pub const DIAGNOSIS_CODES: &[&str] = &[
    NO_PARTITION_FILTER,
    WEAK_DATA_SKIPPING,
    STATS_ABSENT,
    UNSUPPORTED_FRAGMENT,
    UNSPLITTABLE_OR,
    NAN_UNGUARDED_BOUNDS,
    NAN_STRICT_EXCLUDED,
    PREDICATE_ALWAYS_FALSE,
    PREDICATE_ALWAYS_TRUE,
    PARTITION_VALUE_ABSENT,
];

/// A partition column whose accepted values are none of the present ones.
#[derive(Clone, Debug, PartialEq)]
pub struct AbsentValue {
    pub column: String,
    /// Up to three present values nearest the predicate's literals.
    pub nearest: Vec<String>,
}

/// The partition columns the predicate constrains to values no file has: an empty result that
/// is probably a mistake (`pickup_date = '2024-1-3'` where the table spells `2024-01-03`).
pub fn absent_partition_values(
    columns: &explain_compiler::schema::TableColumns,
    present_values: &crate::accepted::PresentValues,
    explanation: &Explanation,
) -> Vec<AbsentValue> {
    let Some(compiled) = &explanation.predicate else {
        return Vec::new();
    };
    // The quoted literals of the predicate, to rank the present values by.
    let literals: Vec<String> = compiled
        .text
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_lowercase)
        .collect();
    let mut out = Vec::new();
    for (column, accepted) in explanation.accepted.iter() {
        if !matches!(accepted, Some(values) if values.is_empty()) {
            continue;
        }
        let Ok(info) = columns.resolve(&explain_compiler::ast::ColumnRef::new([column.as_str()]))
        else {
            continue;
        };
        let present: Vec<String> = present_values
            .get(&info.partition_key)
            .into_iter()
            .flat_map(|present| present.iter().flatten().map(str::to_string))
            .collect();
        if present.is_empty() {
            continue;
        }
        let score = |value: &String| {
            literals
                .iter()
                .map(|l| strsim::jaro_winkler(l, &value.to_lowercase()))
                .fold(0.0, f64::max)
        };
        let mut ranked: Vec<(f64, &String)> = present.iter().map(|v| (score(v), v)).collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        out.push(AbsentValue {
            column: column.clone(),
            nearest: ranked.into_iter().take(3).map(|(_, v)| v.clone()).collect(),
        });
    }
    out
}

impl AbsentValue {
    /// The warning line printed by default.
    pub fn warning(&self) -> String {
        format!(
            "no file holds a `{}` value the predicate accepts, so every file is pruned; present values nearest the literal: {}",
            self.column,
            self.nearest.join(", ")
        )
    }
}

/// A conjunct that prunes fewer than this share of the files it sees is weak.
pub const WEAK_PRUNING_PCT: usize = 10;

/// What the diagnoses count over the files: read off a replayed table ([`gather_evidence`]),
/// or window by window and summed ([`Evidence::plus`]) when the explanation streams. Each
/// count is a sum over files, so the two agree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evidence {
    pub files: usize,
    /// Files left after partition pruning: the files data skipping sees.
    pub input: usize,
    /// Per data-column conjunct data skipping can evaluate ([`skipping_conjuncts`]).
    pub conjuncts: Vec<ConjunctEvidence>,
    /// Per data column the predicate references (`referenced_data_columns`), the files with
    /// no usable bounds for it.
    pub lacking: Vec<usize>,
}

/// One data-column conjunct's evidence, over the files left after partition pruning.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ConjunctEvidence {
    /// Files with usable bounds for every column of the conjunct.
    pub with_stats: usize,
    /// Files the conjunct prunes when scanned alone.
    pub pruned: usize,
}

impl Evidence {
    /// The evidence of two disjoint sets of files of one table, for one explanation (so
    /// both list the same conjuncts and columns, in the same order).
    pub fn plus(self, other: Evidence) -> Evidence {
        Evidence {
            files: self.files + other.files,
            input: self.input + other.input,
            conjuncts: self
                .conjuncts
                .iter()
                .zip(&other.conjuncts)
                .map(|(a, b)| ConjunctEvidence {
                    with_stats: a.with_stats + b.with_stats,
                    pruned: a.pruned + b.pruned,
                })
                .collect(),
            lacking: self
                .lacking
                .iter()
                .zip(&other.lacking)
                .map(|(a, b)| a + b)
                .collect(),
        }
    }
}

/// The fragments WEAK_DATA_SKIPPING measures: each data-column conjunct with what data
/// skipping can evaluate of it (its leaves the kernel cannot evaluate weakened to TRUE),
/// where that is not TRUE.
fn skipping_conjuncts(
    explanation: &Explanation,
) -> Vec<(&explain_compiler::classify::Fragment, Nnf)> {
    let Some(compiled) = &explanation.predicate else {
        return Vec::new();
    };
    compiled
        .classification
        .fragments
        .iter()
        .filter(|f| matches!(f.bucket, Bucket::StatsSafe | Bucket::Unsplittable))
        .filter_map(|f| {
            let (evaluable, _) = f.predicate.weaken(&kernel_can_evaluate);
            (evaluable != Nnf::Const(true)).then_some((f, evaluable))
        })
        .collect()
}

/// What the evidence asks of every file, planned once per predicate (a streamed explanation
/// gathers it window by window with one plan): per data-column conjunct, its data columns and
/// its guarded kernel scan; the data columns the predicate references.
pub struct EvidencePlan {
    conjuncts: Vec<(Vec<ColumnInfo>, Option<delta_kernel::PredicateRef>)>,
    referenced: Vec<ColumnInfo>,
    /// The statistics those columns read: only they are parsed of each file's JSON.
    needs: StatsNeeds,
}

impl EvidencePlan {
    /// The statistics the plan reads of each file.
    pub fn needs(&self) -> &StatsNeeds {
        &self.needs
    }

    /// Whether the plan reads no file's statistics (no data column is referenced).
    fn reads_nothing(&self) -> bool {
        self.conjuncts.is_empty() && self.referenced.is_empty()
    }

    pub fn new(
        columns: &explain_compiler::schema::TableColumns,
        explanation: &Explanation,
    ) -> Result<Self, ExplainError> {
        let conjuncts = skipping_conjuncts(explanation)
            .iter()
            .map(|(_, evaluable)| {
                // The message names what the kernel could use: the bounds of files with
                // statistics.
                let scan = to_kernel(&guard(evaluable, columns, false).predicate, columns)?;
                Ok((columns.split_columns(evaluable).1, scan))
            })
            .collect::<Result<Vec<(Vec<ColumnInfo>, _)>, ExplainError>>()?;
        let referenced = referenced_data_columns(columns, explanation);
        let needs = StatsNeeds::columns(
            conjuncts
                .iter()
                .flat_map(|(data_columns, _)| data_columns)
                .chain(&referenced)
                .map(|c| c.stats_path.as_slice()),
        );
        Ok(Self {
            conjuncts,
            referenced,
            needs,
        })
    }
}

/// The evidence of `explanation` over the files of `table`.
pub fn gather_evidence(
    table: &ReplayedTable,
    explanation: &Explanation,
) -> Result<Evidence, ExplainError> {
    gather_planned(
        table,
        explanation,
        &EvidencePlan::new(table.columns(), explanation)?,
    )
}

/// [`gather_evidence`] with its plan: statistics parsed once per file, and what each
/// data-column conjunct prunes alone measured in a few kernel scans over the partition
/// survivors ([`pruned_alone`]).
pub fn gather_planned(
    table: &ReplayedTable,
    explanation: &Explanation,
    plan: &EvidencePlan,
) -> Result<Evidence, ExplainError> {
    if plan.reads_nothing() {
        return gather_parsed(table, explanation, plan, &[]);
    }
    let stats = crate::file_stats::parse_each(table.stats_jsons(), &plan.needs);
    gather_parsed(table, explanation, plan, &stats)
}

/// [`gather_planned`] over statistics parsed already, one entry per file of `table`, holding
/// at least what `plan.needs()` names (another reader of the same files may have asked for
/// more).
pub fn gather_parsed(
    table: &ReplayedTable,
    explanation: &Explanation,
    plan: &EvidencePlan,
    stats: &[Option<FileStats>],
) -> Result<Evidence, ExplainError> {
    let files = table.files().len();
    let among = &explanation.after_partition.to_bools();
    let input = explanation.after_partition.count();
    if plan.reads_nothing() {
        return Ok(Evidence {
            files,
            input,
            ..Evidence::default()
        });
    }
    assert_eq!(stats.len(), files, "one parsed statistics entry per file");
    let covers = |i: usize, cols: &[ColumnInfo]| {
        cols.iter()
            .all(|c| bounds_usable(table, stats[i].as_ref(), c))
    };
    let scans: Vec<_> = plan
        .conjuncts
        .iter()
        .map(|(_, scan)| scan.clone())
        .collect();
    let conjuncts = plan
        .conjuncts
        .iter()
        .zip(pruned_alone(table, &scans, among)?)
        .map(|((data_columns, _), pruned)| ConjunctEvidence {
            with_stats: (0..files)
                .filter(|&i| among[i] && covers(i, data_columns))
                .count(),
            pruned,
        })
        .collect();
    let lacking = plan
        .referenced
        .iter()
        .map(|info| {
            (0..files)
                .filter(|&i| !covers(i, std::slice::from_ref(info)))
                .count()
        })
        .collect();
    Ok(Evidence {
        files,
        input,
        conjuncts,
        lacking,
    })
}

/// The diagnoses of one explanation, in a fixed order: by code as in the module table, then
/// by the fragment or column they concern, in predicate order.
pub fn diagnose(
    table: &ReplayedTable,
    explanation: &Explanation,
) -> Result<Vec<Diagnosis>, ExplainError> {
    let present = crate::accepted::present_values(table.shared_partitions(), table.columns());
    diagnose_with(table, explanation, &present)
}

/// [`diagnose`] with the table's present partition values read already.
pub fn diagnose_with(
    table: &ReplayedTable,
    explanation: &Explanation,
    present: &crate::accepted::PresentValues,
) -> Result<Vec<Diagnosis>, ExplainError> {
    if explanation.predicate.is_none() {
        return Ok(Vec::new());
    }
    let evidence = gather_evidence(table, explanation)?;
    Ok(diagnose_table(table, explanation, present, &evidence))
}

/// The diagnoses of `explanation` over `table` with its evidence gathered already.
pub fn diagnose_table(
    table: &ReplayedTable,
    explanation: &Explanation,
    present: &crate::accepted::PresentValues,
    evidence: &Evidence,
) -> Vec<Diagnosis> {
    diagnose_from(
        &TableFacts {
            columns: table.columns(),
            present_values: present,
            has_min_max_column: &|path| table.has_min_max_column(path),
        },
        explanation,
        evidence,
    )
}

/// What the diagnoses read of the table beyond the evidence: no rows.
pub struct TableFacts<'a> {
    pub columns: &'a explain_compiler::schema::TableColumns,
    pub present_values: &'a crate::accepted::PresentValues,
    /// Whether data skipping reads min/max for a data column (its physical path).
    pub has_min_max_column: &'a dyn Fn(&[String]) -> bool,
}

/// The diagnoses of `explanation` from the table's facts and the evidence over its files.
pub fn diagnose_from(
    table: &TableFacts<'_>,
    explanation: &Explanation,
    evidence: &Evidence,
) -> Vec<Diagnosis> {
    let Some(compiled) = &explanation.predicate else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match &compiled.normalized {
        Nnf::Const(false) => {
            out.push(Diagnosis {
                code: PREDICATE_ALWAYS_FALSE,
                severity: Severity::Info,
                message: format!("`{}` is never TRUE: every file is pruned without reading statistics", compiled.text.trim()),
                suggestion: "check the predicate: a contradiction or a comparison with NULL (which is never TRUE) makes the query return nothing".into(),
            });
            return out;
        }
        Nnf::Const(true) => {
            out.push(Diagnosis {
                code: PREDICATE_ALWAYS_TRUE,
                severity: Severity::Warning,
                message: format!(
                    "`{}` is always TRUE: no file can be pruned",
                    compiled.text.trim()
                ),
                suggestion: "add a condition on a partition column or a well-clustered data column"
                    .into(),
            });
            return out;
        }
        _ => {}
    }
    let facts = Diagnosing {
        table,
        explanation,
        compiled,
        evidence,
    };
    no_partition_filter(&facts, &mut out);
    partition_value_absent(&facts, &mut out);
    weak_data_skipping(&facts, &mut out);
    stats_absent(&facts, &mut out);
    unsupported_fragments(&facts, &mut out);
    restated_notes(&facts, &mut out);
    out
}

/// What every diagnosis reads: the table's facts, the explanation, its compiled predicate and
/// the evidence over the files.
#[derive(Clone, Copy)]
struct Diagnosing<'a> {
    table: &'a TableFacts<'a>,
    explanation: &'a Explanation,
    compiled: &'a crate::explain::CompiledPredicate,
    evidence: &'a Evidence,
}

/// NO_PARTITION_FILTER: the table is partitioned and no conjunct over its partition columns
/// alone prunes.
fn no_partition_filter(facts: &Diagnosing<'_>, out: &mut Vec<Diagnosis>) {
    let Diagnosing {
        table,
        compiled,
        evidence,
        ..
    } = *facts;
    let classes = &compiled.classification;
    let columns = table.columns;
    // NO_PARTITION_FILTER: partition pruning needs a conjunct over partition columns alone.
    let partition_columns = columns.partition_columns();
    let has_partition_phase = !classes.in_bucket(Bucket::PartitionSafe).is_empty()
        || !classes.in_bucket(Bucket::PartitionExact).is_empty();
    // What data skipping already removes (the best conjunct alone, a lower bound): nothing
    // left to gain when it removes every file, little when it removes nine in ten.
    let skipped = evidence
        .conjuncts
        .iter()
        .map(|c| c.pruned)
        .max()
        .unwrap_or(0);
    let skips_all = evidence.input > 0 && skipped >= evidence.input;
    let skips_most = skipped * 10 >= evidence.input * 9;
    if !partition_columns.is_empty() && !has_partition_phase && !skips_all {
        let mentioned: Vec<String> = columns
            .split_columns(&compiled.normalized)
            .0
            .iter()
            .map(|i| i.column.dotted())
            .collect();
        let message = if mentioned.is_empty() {
            format!(
                "the table is partitioned by {} but the predicate does not constrain {}: partition pruning removes nothing",
                partition_columns.join(", "),
                if partition_columns.len() == 1 {
                    "it"
                } else {
                    "them"
                }
            )
        } else {
            format!(
                "{} appears only inside a fragment that also depends on data columns or functions, so partition pruning removes nothing",
                mentioned.join(", ")
            )
        };
        out.push(Diagnosis {
            code: NO_PARTITION_FILTER,
            severity: if skips_most {
                Severity::Info
            } else {
                Severity::Warning
            },
            message,
            suggestion: format!(
                "add a top-level AND condition on {} (equality, IN or a range) if the query allows it",
                partition_columns.join(" or ")
            ),
        });
    }
}

/// PARTITION_VALUE_ABSENT: a partition literal no file has.
fn partition_value_absent(facts: &Diagnosing<'_>, out: &mut Vec<Diagnosis>) {
    let Diagnosing {
        table, explanation, ..
    } = *facts;
    let columns = table.columns;
    // PARTITION_VALUE_ABSENT: a partition literal no file has.
    for absent in absent_partition_values(columns, table.present_values, explanation) {
        out.push(Diagnosis {
            code: PARTITION_VALUE_ABSENT,
            severity: Severity::Warning,
            message: absent.warning(),
            suggestion: format!(
                "check how the literal is spelt against the values the table holds (for example {})",
                absent.nearest.first().map_or("the per-file view's partition_values", String::as_str)
            ),
        });
    }
}

/// WEAK_DATA_SKIPPING: a data-column conjunct that prunes little alone.
fn weak_data_skipping(facts: &Diagnosing<'_>, out: &mut Vec<Diagnosis>) {
    let Diagnosing {
        table,
        explanation,
        evidence,
        ..
    } = *facts;
    let columns = table.columns;
    // WEAK_DATA_SKIPPING: what each data-column conjunct prunes alone, among the files that
    // survive partition pruning (the files data skipping actually sees).
    let input = evidence.input;
    for ((fragment, evaluable), measured) in skipping_conjuncts(explanation)
        .iter()
        .zip(&evidence.conjuncts)
    {
        let ConjunctEvidence { with_stats, pruned } = *measured;
        if input == 0 || with_stats == 0 {
            continue; // STATS_ABSENT says why.
        }
        let data_columns = columns.split_columns(evaluable).1;
        if pruned * 100 >= WEAK_PRUNING_PCT * input {
            continue;
        }
        let names: Vec<String> = data_columns.iter().map(|c| c.column.dotted()).collect();
        let seen = if input == evidence.files {
            format!("the {input} file(s) of the snapshot")
        } else {
            format!("the {input} file(s) left after partition pruning")
        };
        let missing = input - with_stats;
        out.push(Diagnosis {
            code: WEAK_DATA_SKIPPING,
            severity: Severity::Warning,
            message: format!(
                "`{}` prunes {pruned} of {seen}: the recorded [min, max] of {} admits it in {} of the {with_stats} file(s) with statistics{}",
                fragment.predicate,
                names.join(", "),
                with_stats - pruned.min(with_stats),
                if missing > 0 { format!(" ({missing} file(s) record none)") } else { String::new() }
            ),
            suggestion: format!(
                "cluster the data on {} (liquid clustering, or OPTIMIZE ... ZORDER BY) so each file covers a narrow range of values",
                names.join(", ")
            ),
        });
    }
}

/// STATS_ABSENT: data columns the predicate uses whose files record no usable bounds.
fn stats_absent(facts: &Diagnosing<'_>, out: &mut Vec<Diagnosis>) {
    let Diagnosing {
        table,
        explanation,
        evidence,
        ..
    } = *facts;
    let columns = table.columns;
    // STATS_ABSENT: per data column the predicate uses, the files with no usable bounds.
    for (info, &lacking) in referenced_data_columns(columns, explanation)
        .iter()
        .zip(&evidence.lacking)
    {
        if lacking == 0 {
            continue;
        }
        let name = info.column.dotted();
        if !(table.has_min_max_column)(&info.stats_path) {
            out.push(Diagnosis {
                code: STATS_ABSENT,
                severity: Severity::Warning,
                message: format!(
                    "`{name}` is not among the table's statistics columns: data skipping ignores whatever bounds its files record, so it keeps all {} file(s)",
                    evidence.files
                ),
                suggestion: format!(
                    "add `{name}` to delta.dataSkippingStatsColumns (or raise delta.dataSkippingNumIndexedCols) and recompute the files' statistics"
                ),
            });
            continue;
        }
        out.push(Diagnosis {
            code: STATS_ABSENT,
            severity: Severity::Warning,
            message: format!(
                "{lacking} of {} file(s) record no min/max for `{name}`: data skipping keeps them whatever the predicate says about it",
                evidence.files
            ),
            suggestion: format!(
                "writers collect statistics for the first 32 columns by default (delta.dataSkippingNumIndexedCols) or the columns in delta.dataSkippingStatsColumns; include `{name}` and rewrite or recompute the files' statistics"
            ),
        });
    }
}

/// UNSUPPORTED_FRAGMENT: leaves no phase evaluates.
fn unsupported_fragments(facts: &Diagnosing<'_>, out: &mut Vec<Diagnosis>) {
    let Diagnosing { compiled, .. } = *facts;
    let classes = &compiled.classification;
    // UNSUPPORTED_FRAGMENT: leaves no phase evaluates (partition-exact leaves are decided by
    // the partition evaluator, so they are not listed).
    for fragment in classes
        .fragments
        .iter()
        .filter(|f| matches!(f.bucket, Bucket::StatsSafe | Bucket::Unsplittable))
    {
        for leaf in fragment.predicate.leaves() {
            if kernel_can_evaluate(leaf) {
                continue;
            }
            let (why, suggestion) = unsupported_reason(leaf);
            out.push(Diagnosis {
                code: UNSUPPORTED_FRAGMENT,
                severity: Severity::Warning,
                message: if matches!(leaf, Leaf::In { negated: false, .. }) {
                    format!("`{leaf}` {why}; sibling conjuncts still prune")
                } else {
                    format!("`{leaf}` {why}; it keeps every file, sibling conjuncts still prune")
                },
                suggestion,
            });
        }
    }
}

/// UNSPLITTABLE_OR, NAN_UNGUARDED_BOUNDS and NAN_STRICT_EXCLUDED: notes and guards restated
/// as advice.
fn restated_notes(facts: &Diagnosing<'_>, out: &mut Vec<Diagnosis>) {
    let Diagnosing {
        explanation,
        compiled,
        ..
    } = *facts;
    let classes = &compiled.classification;
    // UNSPLITTABLE_OR and NAN_UNGUARDED_BOUNDS restate notes as advice.
    for note in classes.notes.iter().filter(|n| n.code == UNSPLITTABLE_OR) {
        out.push(Diagnosis {
            code: UNSPLITTABLE_OR,
            severity: Severity::Info,
            message: note.message.clone(),
            suggestion: "if each branch prunes well alone, run the query as a UNION ALL of its branches (with the overlap excluded), so each branch gets its own pruning".into(),
        });
    }
    // The NaN advice reads which guard fired (guards.rs) instead of deciding it again.
    let leaves_of = |effect: Effect| -> Vec<String> {
        explanation
            .hazards
            .iter()
            .filter(|h| h.guard == Guard::NanBounds && h.effect == effect)
            .flat_map(|h| h.leaves.iter().map(|l| format!("`{l}`")))
            .collect()
    };
    let exposed = leaves_of(Effect::Announced);
    let excluded = leaves_of(Effect::Excluded);
    if !exposed.is_empty() {
        out.push(Diagnosis {
            code: NAN_UNGUARDED_BOUNDS,
            severity: Severity::Info,
            message: format!(
                "{} can prune a file whose matching rows are NaN: writers leave NaN out of min/max",
                exposed.join(", ")
            ),
            suggestion: "run with --strict when NaN rows may exist, to see the survivor set that is sound for any data".into(),
        });
    }
    if !excluded.is_empty() {
        let names = excluded;
        out.push(Diagnosis {
            code: NAN_STRICT_EXCLUDED,
            severity: Severity::Info,
            message: format!("--strict left {} out of the scan, so data skipping does not use them", names.join(", ")),
            suggestion: "if the data is known to hold no NaN in these columns, run without --strict to prune on them".into(),
        });
    }
}

/// Why the kernel cannot evaluate `leaf`, and what to write instead.
fn unsupported_reason(leaf: &Leaf) -> (String, String) {
    match leaf {
        Leaf::Like { column, .. } => (
            "has a wildcard before its end (or a `_`), so no [min, max] range can bound it".into(),
            format!(
                "where the data allows, use a prefix pattern (`{column} LIKE 'abc%'`), which becomes a range"
            ),
        ),
        Leaf::In { list, column, .. } => (
            format!(
                "lists {} values, more than the {MAX_IN_LIST_EXPANSION} expanded for data skipping (the scan bounds it by the list's [min, max] instead)",
                list.len()
            ),
            format!(
                "narrow the list, or add a range on `{column}` covering its values (`{column} BETWEEN low AND high`)"
            ),
        ),
        Leaf::Unsupported { columns, .. } => {
            let names: Vec<String> = columns.iter().map(|c| format!("`{c}`")).collect();
            (
                "is outside the pruning language (a function, arithmetic or a column compared with a column)".into(),
                if names.is_empty() {
                    "rewrite it as comparisons of a column with literals".into()
                } else {
                    format!("compare {} directly with literals instead of through an expression", names.join(", "))
                },
            )
        }
        _ => (
            "cannot be evaluated by data skipping".into(),
            "rewrite it as comparisons of a column with literals".into(),
        ),
    }
}

/// Groups this small are scanned conjunct by conjunct: splitting them would cost more scans.
const SCAN_EACH_UP_TO: usize = 4;

/// Per kernel predicate (`None`: TRUE, which prunes nothing), how many of the files `among`
/// marks it prunes when scanned alone.
///
/// Measured by group testing rather than one scan per predicate, because the kernel's data
/// skipping decides a conjunction conjunct by conjunct: a file is pruned by `a AND b` exactly
/// when `a` alone or `b` alone prunes it (its skipping predicate is the three-valued AND of
/// theirs, FALSE when either is). So one scan of a group's conjunction finds the files any of
/// them prunes; a group that prunes none settles all its members at once (ten thousand
/// `x != v` conjuncts of a `NOT IN`: one scan), and a group that prunes some is split in two,
/// each half asked only about the files its parent pruned. Small groups are scanned member by
/// member. `harness/tests/it/phase_scans.rs` holds the counts to one scan per predicate.
pub fn pruned_alone(
    table: &ReplayedTable,
    predicates: &[Option<delta_kernel::PredicateRef>],
    among: &[bool],
) -> Result<Vec<usize>, ExplainError> {
    let mut counts = vec![0; predicates.len()];
    let scanned: Vec<usize> = (0..predicates.len())
        .filter(|&k| predicates[k].is_some())
        .collect();
    split_group(table, predicates, &scanned, among, &mut counts)?;
    Ok(counts)
}

/// [`pruned_alone`] for the predicates `group` names, over the files `among` marks.
fn split_group(
    table: &ReplayedTable,
    predicates: &[Option<delta_kernel::PredicateRef>],
    group: &[usize],
    among: &[bool],
    counts: &mut [usize],
) -> Result<(), ExplainError> {
    if group.is_empty() || !among.iter().any(|a| *a) {
        return Ok(());
    }
    let pruned_by = |predicate: delta_kernel::PredicateRef| -> Result<Vec<bool>, ExplainError> {
        let kept = table.survivors_among(Some(predicate), Some(among))?;
        Ok(among.iter().zip(&kept).map(|(a, k)| *a && !*k).collect())
    };
    if group.len() <= SCAN_EACH_UP_TO {
        for &k in group {
            if let Some(predicate) = &predicates[k] {
                counts[k] = pruned_by(predicate.clone())?.iter().filter(|p| **p).count();
            }
        }
        return Ok(());
    }
    let conjunction = delta_kernel::expressions::Predicate::and_from(
        group
            .iter()
            .filter_map(|&k| predicates[k].as_deref().cloned()),
    );
    let pruned = pruned_by(std::sync::Arc::new(conjunction))?;
    let (left, right) = group.split_at(group.len() / 2);
    split_group(table, predicates, left, &pruned, counts)?;
    split_group(table, predicates, right, &pruned, counts)
}
