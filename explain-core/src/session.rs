//! A replayed table and the reports of every predicate asked of it (`--predicates`,
//! `--budget`, and the harness): what those reports share is read once here, above the
//! replay: the table's features (clustering reads domain metadata, a replay of its own) and
//! the partition values present. The replay itself caches only its own rows.

use std::sync::OnceLock;
use std::time::Instant;

use crate::accepted::PresentValues;
use crate::coverage::{self, CoveragePlan};
use crate::diagnose::{EvidencePlan, diagnose_table, gather_parsed, gather_planned};
use crate::error::ExplainError;
use crate::explain::{CompiledPredicate, ExplainOptions, Explanation, explain_compiled};
use crate::features::TableFeatures;
use crate::file_stats::parse_each;
use crate::gates::{self, Assertion};
use crate::layers::Layers;
use crate::replay::ReplayedTable;
use crate::report::{FileTallies, Report, TableHeader};

/// What to put in one predicate's report beside the counts.
#[derive(Clone, Debug, Default)]
pub struct ReportRequest {
    pub options: ExplainOptions,
    /// `--min-pruning PCT`.
    pub min_pruning: Option<f64>,
    /// `--min-files N`.
    pub min_files: Option<usize>,
    /// `--assert-stats`.
    pub assert_stats: bool,
    /// `--verbose`: the per-file view, at most `limit` files.
    pub verbose: bool,
    pub limit: Option<usize>,
    /// `--layers`.
    pub layers: bool,
    /// `--explain-why`.
    pub explain_why: bool,
    /// `analysis.stats_coverage` (a pass over the statistics of the partition survivors).
    pub stats_coverage: bool,
}

/// One report and the lines of the gates it failed.
pub type Reported = (Report, Vec<String>);

/// A replayed table with what its reports share, read on first use.
pub struct Session<'t> {
    table: &'t ReplayedTable,
    features: OnceLock<TableFeatures>,
    present: OnceLock<PresentValues>,
}

impl<'t> Session<'t> {
    pub fn new(table: &'t ReplayedTable) -> Self {
        Self {
            table,
            features: OnceLock::new(),
            present: OnceLock::new(),
        }
    }

    pub fn table(&self) -> &'t ReplayedTable {
        self.table
    }

    /// The snapshot's table features, read once however many reports are built.
    pub fn features(&self) -> &TableFeatures {
        self.features
            .get_or_init(|| TableFeatures::read(self.table))
    }

    /// Per partition key, the distinct values present, collected once.
    pub fn present_values(&self) -> &PresentValues {
        self.present.get_or_init(|| {
            crate::accepted::present_values(self.table.shared_partitions(), self.table.columns())
        })
    }

    /// Explains a compiled predicate (none: the baseline), its accepted partition values
    /// decided over the present ones.
    pub fn explain(
        &self,
        compiled: Option<&CompiledPredicate>,
        options: ExplainOptions,
    ) -> Result<Explanation, ExplainError> {
        Ok(explain_compiled(self.table, compiled, options)?
            .with_accepted(self.present_values(), self.table.columns()))
    }

    /// The report of one predicate (`None`: the baseline), with the gates it failed: what one
    /// line of `--predicates` costs, which the benchmarks measure.
    pub fn report(
        &self,
        predicate: Option<&str>,
        request: &ReportRequest,
        started: Instant,
    ) -> Result<Reported, ExplainError> {
        let compiled = predicate
            .map(|text| CompiledPredicate::compile(text, self.table))
            .transpose()?;
        self.report_compiled(compiled.as_ref(), request, started)
    }

    /// [`report`](Self::report) of a predicate compiled already.
    pub fn report_compiled(
        &self,
        compiled: Option<&CompiledPredicate>,
        request: &ReportRequest,
        started: Instant,
    ) -> Result<Reported, ExplainError> {
        Ok(self.explained(compiled, request, started)?.0)
    }

    /// [`report_compiled`](Self::report_compiled), and the explanation it reports (the
    /// per-file survivor sets, for `--verify` and the ranges).
    pub fn explained(
        &self,
        compiled: Option<&CompiledPredicate>,
        request: &ReportRequest,
        started: Instant,
    ) -> Result<(Reported, Explanation), ExplainError> {
        let table = self.table;
        let explanation = self.explain(compiled, request.options)?;
        let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut report = Report::assemble(
            TableHeader {
                location: table.location(),
                version: table.version(),
                features: self.features().clone(),
            },
            &explanation,
            &FileTallies::of(table, &explanation),
            elapsed_ms,
        );
        let stats = request
            .assert_stats
            .then(|| gates::stats_complete(table, &explanation));
        let failures = finish_report(
            request,
            &mut report,
            &explanation,
            table.columns(),
            self.present_values(),
            stats,
        );
        if request.verbose {
            report = report.with_files(table, &explanation, request.limit);
        }
        if request.layers {
            report.layers = Layers::build(table, &explanation, request.limit);
        }
        // The evidence of the diagnoses and the statistics coverage read the same files'
        // statistics: with both asked for, each file's JSON is parsed once.
        let evidence_plan = if request.explain_why && explanation.predicate.is_some() {
            Some(EvidencePlan::new(table.columns(), &explanation)?)
        } else {
            None
        };
        let coverage_plan = (request.stats_coverage && report.analysis.is_some())
            .then(|| CoveragePlan::new(table.columns(), &explanation));
        let shared = match (&evidence_plan, &coverage_plan) {
            (Some(evidence), Some(coverage)) => Some(parse_each(
                table.stats_jsons(),
                &evidence.needs().and(coverage.needs()),
            )),
            _ => None,
        };
        if request.explain_why {
            let diagnoses = match &evidence_plan {
                Some(plan) => {
                    let evidence = match &shared {
                        Some(stats) => gather_parsed(table, &explanation, plan, stats)?,
                        None => gather_planned(table, &explanation, plan)?,
                    };
                    diagnose_table(table, &explanation, self.present_values(), &evidence)
                }
                // No predicate: nothing to diagnose.
                None => Vec::new(),
            };
            report.set_diagnoses(diagnoses);
        }
        if let (Some(plan), Some(analysis)) = (&coverage_plan, &mut report.analysis) {
            let counted = match &shared {
                Some(stats) => coverage::gather_parsed(table, &explanation, plan, stats),
                None => coverage::gather(table, &explanation, plan),
            };
            analysis.stats_coverage = Some(counted.entries(plan));
        }
        Ok(((report, failures), explanation))
    }

    /// Explains every predicate on every core (the replay is shared read-only; each
    /// predicate's scans are its own), and returns the outcomes in input order. Workers get
    /// the main thread's deep stack: a predicate file may hold deep predicates.
    pub fn reports(
        &self,
        predicates: &[&str],
        request: &ReportRequest,
    ) -> Vec<Result<Reported, ExplainError>> {
        self.reports_on(predicates, request, crate::cores())
    }

    /// [`reports`](Self::reports) on at most `workers` threads (the scaling report measures
    /// the throughput on one and on every core).
    pub fn reports_on(
        &self,
        predicates: &[&str],
        request: &ReportRequest,
        workers: usize,
    ) -> Vec<Result<Reported, ExplainError>> {
        use std::sync::Mutex;
        use std::sync::atomic::{AtomicUsize, Ordering};
        type Outcome = Result<Reported, ExplainError>;
        let workers = workers.min(predicates.len());
        if workers <= 1 {
            return predicates
                .iter()
                .map(|p| self.report(Some(p), request, Instant::now()))
                .collect();
        }
        // What the workers share is read before they start, not raced for.
        self.features();
        self.present_values();
        let next = AtomicUsize::new(0);
        let slots: Vec<Mutex<Option<Outcome>>> =
            predicates.iter().map(|_| Mutex::new(None)).collect();
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(predicate) = predicates.get(i) else {
                    break;
                };
                let outcome = self.report(Some(predicate), request, Instant::now());
                *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(outcome);
            }
        };
        crate::on_workers(workers, &work);
        slots
            .into_iter()
            .map(|slot| {
                slot.into_inner()
                    .unwrap_or_else(|p| p.into_inner())
                    .unwrap_or_else(|| {
                        Err(ExplainError::Output("a predicate was not explained".into()))
                    })
            })
            .collect()
    }
}

/// Sets what every report carries beside the counts: `--strict`, the gates' assertions
/// (`stats`: the `--assert-stats` assertion, checked over the files by the caller) and the
/// warnings; returns the failed gates' lines.
pub fn finish_report(
    request: &ReportRequest,
    report: &mut Report,
    explanation: &Explanation,
    columns: &crate::schema::TableColumns,
    present: &PresentValues,
    stats: Option<Assertion>,
) -> Vec<String> {
    report.strict = request.options.strict;
    let mut assertions = Vec::new();
    if let Some(threshold) = request.min_pruning {
        assertions.push(gates::min_pruning(
            threshold,
            report.total_files - report.final_files,
            report.total_files,
            report.total_pruning_pct,
        ));
    }
    if let Some(threshold) = request.min_files {
        assertions.push(gates::min_files(threshold, report.final_files));
    }
    if request.assert_stats {
        assertions.extend(stats);
    }
    let failures: Vec<String> = assertions
        .iter()
        .filter(|a| a.outcome() == gates::Outcome::Fail)
        .map(gates::Assertion::failure_line)
        .collect();
    // Probably a mistake rather than perfect pruning: said by default.
    report.warnings = crate::diagnose::absent_partition_values(columns, present, explanation)
        .iter()
        .map(crate::diagnose::AbsentValue::warning)
        .collect();
    report.set_assertions(assertions);
    failures
}
