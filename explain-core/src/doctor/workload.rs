//! The doctor's workload: each predicate explained with its diagnoses, and the reasons the
//! diagnoses do not name: an OR one of whose branches keeps (nearly) every file, so the OR
//! does too (`OR_FAN_OUT`), and filters bound at query time, with the value bound
//! (`BOUND_AT_QUERY_TIME`); the columns it uses without statistics, and the table property
//! that would give them some.

use explain_compiler::ast::Predicate;

use super::{
    BOUND_AT_QUERY_TIME, Fix, OR_FAN_OUT, Reason, StatsSettings, WEAK_SHARE, WorkloadEntry,
};
use crate::explain_request::{ExplainRequest, Options};
use crate::replay::ReplayedTable;
use crate::request::{Progress, explain_one};

/// One predicate of the workload, explained at the request's version with `options`.
pub(super) fn entry(
    request: &ExplainRequest,
    table: &ReplayedTable,
    settings: &StatsSettings,
    predicate: &str,
    options: &Options,
) -> WorkloadEntry {
    let one = ExplainRequest {
        predicate: Some(predicate.to_string()),
        predicates: Vec::new(),
        options: Options {
            explain_why: true,
            ..options.clone()
        },
        ..request.clone()
    };
    let parsed = explain_compiler::sql::parse_predicate(predicate).ok();
    let partitions = table.columns().partition_columns();
    let columns_without_stats: Vec<String> = parsed
        .as_ref()
        .map(Predicate::columns_and_quoted_names)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|c| table.columns().resolve(&c).ok())
        .map(|info| info.column.dotted())
        .filter(|c| !partitions.contains(c) && settings.not_indexed.contains(c))
        .collect();
    match Progress::silent(|progress| explain_one(&one, progress)) {
        Ok(answer) => {
            let report = answer.report;
            let mut reasons: Vec<Reason> = report
                .diagnoses
                .unwrap_or_default()
                .into_iter()
                .map(|d| Reason {
                    code: d.code,
                    message: d.message,
                    suggestion: d.suggestion,
                })
                .collect();
            reasons.extend(bound_at_query_time(&report.bindings, options));
            if let Some(parsed) = &parsed {
                reasons.extend(or_fan_out(&one, parsed, report.total_files));
            }
            WorkloadEntry {
                predicate: predicate.to_string(),
                total_files: Some(report.total_files),
                final_files: Some(report.final_files),
                error: None,
                reasons,
                columns_without_stats,
            }
        }
        Err(e) => WorkloadEntry {
            predicate: predicate.to_string(),
            total_files: None,
            final_files: None,
            error: Some(e.to_string()),
            reasons: Vec::new(),
            columns_without_stats,
        },
    }
}

/// A reason per time function bound: the value, and the instant it stands for.
fn bound_at_query_time(
    bindings: &[explain_compiler::bind::Bound],
    options: &Options,
) -> Vec<Reason> {
    let instant = match &options.now {
        Some(now) => format!("--now {now}"),
        None => "the time of this run".to_string(),
    };
    bindings
        .iter()
        .map(|b| Reason {
            code: BOUND_AT_QUERY_TIME,
            message: format!(
                "`{}` is bound to {} ({instant}), as engines bind it when the query starts: files are pruned with that value, and the same query run at another time keeps other files",
                b.function, b.value
            ),
            suggestion: "pass --now with the instant your queries run at to see what they keep then".into(),
        })
        .collect()
}

/// The ORs of the predicate: itself where it is one, else its conjuncts that are (an OR under
/// a NOT is an AND of negations once pushed down: not one of them).
fn ors(predicate: &Predicate) -> Vec<&[Predicate]> {
    match predicate {
        Predicate::And(conjuncts) => conjuncts.iter().filter_map(as_or).collect(),
        other => as_or(other).into_iter().collect(),
    }
}

/// The branches of an OR; `None` for any other node.
fn as_or(predicate: &Predicate) -> Option<&[Predicate]> {
    match predicate {
        Predicate::Or(branches) => Some(branches),
        Predicate::Compare { .. }
        | Predicate::And(_)
        | Predicate::Not(_)
        | Predicate::IsNull { .. }
        | Predicate::InList { .. }
        | Predicate::QuotedInList { .. }
        | Predicate::Between { .. }
        | Predicate::Like { .. }
        | Predicate::BoolColumn(_)
        | Predicate::Constant(_)
        | Predicate::Unsupported { .. } => None,
    }
}

/// `OR_FAN_OUT`: an OR keeps every file any of its branches keeps, so one branch that prunes
/// under [`WEAK_SHARE`] of the files defeats branches that prune well. Each branch is
/// explained alone; the reason names the weak branches and the best one.
fn or_fan_out(request: &ExplainRequest, predicate: &Predicate, total: usize) -> Vec<Reason> {
    let kept_alone = |branch: &Predicate| -> Option<usize> {
        let alone = ExplainRequest {
            predicate: Some(branch.to_string()),
            options: Options {
                explain_why: false,
                ..request.options.clone()
            },
            ..request.clone()
        };
        Progress::silent(|progress| explain_one(&alone, progress))
            .ok()
            .map(|a| a.report.final_files)
    };
    let weak = |kept: usize| (total - kept.min(total)) as f64 <= WEAK_SHARE * total as f64;
    let mut reasons = Vec::new();
    for branches in ors(predicate) {
        let kept: Vec<(String, Option<usize>)> = branches
            .iter()
            .map(|b| (b.to_string(), kept_alone(b)))
            .collect();
        // A branch that cannot be explained alone keeps every file, as far as the OR goes.
        let keeps = |k: &Option<usize>| k.unwrap_or(total);
        let Some((best, best_kept)) = kept
            .iter()
            .map(|(b, k)| (b, keeps(k)))
            .min_by_key(|(_, k)| *k)
        else {
            continue;
        };
        let weak_branches: Vec<String> = kept
            .iter()
            .filter(|(_, k)| weak(keeps(k)))
            .map(|(b, k)| format!("`{b}` keeps {} of {total}", keeps(k)))
            .collect();
        if weak_branches.is_empty() || weak(best_kept) {
            // Every branch prunes, or none does: the OR is not what holds pruning back.
            continue;
        }
        let or_text = Predicate::Or(branches.to_vec()).to_string();
        reasons.push(Reason {
            code: OR_FAN_OUT,
            message: format!(
                "`{or_text}`: an OR keeps every file any branch keeps; alone, {}, while `{best}` keeps {best_kept}",
                weak_branches.join(", ")
            ),
            suggestion: "run the branches as separate queries (UNION ALL), each pruning on its own, or make the weak branch prune: statistics for its columns, or a layout clustered by them".into(),
        });
    }
    reasons
}

/// `delta.dataSkippingStatsColumns` naming the indexed columns and those the workload needs.
pub(super) fn fix(
    location: &str,
    settings: &StatsSettings,
    workload: &[WorkloadEntry],
    table: &ReplayedTable,
) -> Option<Fix> {
    let mut missing: Vec<String> = Vec::new();
    for c in workload.iter().flat_map(|w| &w.columns_without_stats) {
        if !missing.contains(c) {
            missing.push(c.clone());
        }
    }
    if missing.is_empty() {
        return None;
    }
    let all: Vec<String> = settings.indexed.iter().chain(&missing).cloned().collect();
    let files_without_their_stats = table
        .stats_jsons()
        .filter(|stats| {
            let parsed: Option<serde_json::Value> =
                stats.and_then(|s| serde_json::from_str(s).ok());
            missing.iter().any(|c| {
                parsed.as_ref().is_none_or(|p| {
                    let mut at = &p["maxValues"];
                    for part in c.split('.') {
                        at = &at[part];
                    }
                    at.is_null()
                })
            })
        })
        .count();
    Some(Fix {
        statement: format!(
            "ALTER TABLE delta.`{}` SET TBLPROPERTIES ('delta.dataSkippingStatsColumns' = '{}')",
            location.replace('`', "``"),
            all.join(",")
        ),
        caveat: "only files written after the change record statistics for these columns: rewrite the existing files (OPTIMIZE ... FULL on a clustered table, or a rewrite of the data) for data skipping to use them on old data".into(),
        columns: missing,
        files_without_their_stats,
    })
}
