//! A replayed table and the reports of every predicate asked of it (`--verify`, the ranges,
//! the HTML page and the benchmarks): what those reports share is read once here, above the
//! replay: the table's features (clustering reads domain metadata, a replay of its own) and
//! the partition values present. The replay itself caches only its own rows.

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use crate::accepted::PresentValues;
use crate::explain::{CompiledPredicate, ExplainOptions, Explanation, explain_compiled};
use crate::features::TableFeatures;
use crate::replay::ReplayedTable;
use crate::report_request::{ReportRequest, Reported};
use explain_compiler::error::ExplainError;

/// A replayed table with what its reports share, read on first use.
pub struct Session<'t> {
    table: &'t ReplayedTable,
    features: OnceLock<TableFeatures>,
    present: OnceLock<Arc<PresentValues>>,
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
        self.shared_present()
    }

    fn shared_present(&self) -> &Arc<PresentValues> {
        self.present.get_or_init(|| {
            Arc::new(crate::accepted::present_values(
                self.table.shared_partitions(),
                self.table.columns(),
            ))
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
        Ok(self
            .report_with_explanation(compiled.as_ref(), request, started)?
            .0)
    }

    /// [`report`](Self::report) of a predicate compiled already, and the explanation it
    /// reports (the per-file survivor sets, for `--verify` and the ranges). The report is built
    /// as a streamed run builds it, from the table as one window ([`crate::stream`]): one
    /// report builder, whether the rows are held or streamed.
    pub fn report_with_explanation(
        &self,
        compiled: Option<&CompiledPredicate>,
        request: &ReportRequest,
        started: Instant,
    ) -> Result<(Reported, Explanation), ExplainError> {
        let explained =
            crate::stream::explain_window(self.table, compiled, request, self.shared_present())?;
        let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let reported = explained.reported(self.table, self.features(), elapsed_ms);
        Ok((reported, explained.explanation))
    }

    /// The reports of every predicate, on at most `workers` threads (the replay is shared
    /// read-only; each predicate's scans are its own), in input order (the scaling report
    /// measures the throughput on one and on every core, [`crate::cores`]). Workers get the
    /// main thread's deep stack: a predicate file may hold deep predicates.
    pub fn reports(
        &self,
        predicates: &[&str],
        request: &ReportRequest,
        workers: usize,
    ) -> Vec<Result<Reported, ExplainError>> {
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
        workers::map(
            predicates.iter().collect(),
            workers,
            crate::DEEP_STACK,
            |p| self.report(Some(p), request, Instant::now()),
        )
    }
}
