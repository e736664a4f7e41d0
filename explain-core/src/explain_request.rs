//! What a caller asks of the library, as plain data: [`ExplainRequest`] (where the table is,
//! which snapshot, which predicate or predicates, how the run is carried out) and the
//! [`Options`] of each report, spelled and checked once; and [`locate`], which turns a
//! catalog's name into a location. The entry points that answer it are in
//! [`crate::request`] (and, for the windows themselves, [`crate::stream`]).

use serde::{Deserialize, Serialize};
use storage::{Catalog, StorageOptions};

use crate::explain::ExplainOptions;
use crate::replay::WINDOW_ROWS;
use crate::report_request::ReportRequest;
use explain_compiler::bind::{Bound, bind_time};
use explain_compiler::error::ExplainError;

/// What one explanation's report carries beside the counts, and the gates it answers: the
/// options of the command (its flags), of the Python package (its keyword arguments, read
/// from this type's JSON form) and of a budget entry, spelled once. Unknown names are refused.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// `--strict`: the survivor set sound under Spark, DuckDB and DataFusion at once.
    pub strict: bool,
    /// `--verbose`: the per-file view.
    pub verbose: bool,
    /// `--limit`: at most this many files in the per-file view and each `--layers` set.
    pub limit: Option<usize>,
    /// `--explain-why`: the diagnoses.
    pub explain_why: bool,
    /// `--layers`: the five forms of the predicate.
    pub layers: bool,
    /// `--verify`: the funnel checked against the data (one predicate only).
    pub verify: bool,
    /// `--ranges`: the columns whose per-file `[min, max]` the report carries (one predicate
    /// only).
    pub ranges: Vec<String>,
    /// The ranges of every column the predicate references too (what the HTML page draws;
    /// one predicate only).
    pub referenced_ranges: bool,
    /// `--now`: the instant `current_date()`, `current_timestamp()` and `now()` are bound to
    /// (`yyyy-mm-dd` or a timestamp, UTC unless it says otherwise); the time of the run when
    /// unset.
    pub now: Option<String>,
    /// `--min-pruning`: a percentage from 0 to 100.
    pub min_pruning: Option<f64>,
    /// `--min-files`.
    pub min_files: Option<usize>,
    /// `--assert-stats`.
    pub assert_stats: bool,
}

impl Options {
    /// The options' names, sorted (the Python package's keyword arguments).
    pub fn names() -> Vec<String> {
        match serde_json::to_value(Options::default()) {
            Ok(serde_json::Value::Object(fields)) => fields.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// The options read from their JSON form (`{"strict": true, "min_files": 1}`); a name this
    /// type does not have, or a value of the wrong type, is bad input.
    pub fn from_json(text: &str) -> Result<Options, ExplainError> {
        serde_json::from_str(text).map_err(|e| ExplainError::Usage(format!("options: {e}")))
    }

    /// Refuses what no report can mean: a percentage outside 0..=100, `verify` or `ranges`
    /// without a predicate.
    pub fn check(&self, predicate: Option<&str>) -> Result<(), ExplainError> {
        if let Some(now) = &self.now {
            explain_compiler::bind::parse_instant(now)
                .map_err(|e| ExplainError::Usage(format!("now: {e}")))?;
        }
        if let Some(pct) = self.min_pruning
            && !(0.0..=100.0).contains(&pct)
        {
            return Err(ExplainError::Usage(format!(
                "min_pruning {pct} is not a percentage from 0 to 100"
            )));
        }
        if self.verify && predicate.is_none() {
            return Err(ExplainError::Usage(
                "verify needs a predicate (`where`)".to_string(),
            ));
        }
        Ok(())
    }

    /// What the report carries, as the explanation takes it.
    pub fn report_request(&self) -> ReportRequest {
        ReportRequest {
            options: ExplainOptions {
                strict: self.strict,
            },
            min_pruning: self.min_pruning,
            min_files: self.min_files,
            assert_stats: self.assert_stats,
            verbose: self.verbose,
            limit: self.limit,
            layers: self.layers,
            // `verify` says what would remove the false positives: the diagnoses.
            explain_why: self.explain_why || self.verify,
            // One more pass over each file's statistics per predicate: for one predicate, and
            // for many where the diagnoses read the statistics anyway.
            stats_coverage: self.explain_why || self.verify,
        }
    }

    /// Whether the report goes back to the files, so the table is replayed whole.
    pub(crate) fn whole(&self) -> bool {
        self.verify || !self.ranges.is_empty() || self.referenced_ranges
    }
}

/// A request with its time functions bound, what its one predicate bound, and what each of its
/// many predicates bound.
pub(crate) type BoundRequest = (ExplainRequest, Vec<Bound>, Vec<Vec<Bound>>);

/// One request of the library: a table, a snapshot, a predicate and its options. Built with
/// [`ExplainRequest::new`] and the methods that follow it.
#[derive(Clone, Debug)]
pub struct ExplainRequest {
    /// The table's location; with [`ExplainRequest::catalog`], its name in the catalog
    /// (`catalog.schema.table`).
    pub location: String,
    pub storage: StorageOptions,
    /// The catalog `location` names the table in; the location is a path or URL when `None`.
    pub catalog: Option<Catalog>,
    /// The snapshot version; the latest when `None`.
    pub version: Option<u64>,
    /// The predicate of [`explain_one`](crate::request::explain_one); the baseline alone when `None`.
    pub predicate: Option<String>,
    /// The options of [`explain_one`](crate::request::explain_one)'s report.
    pub options: Options,
    /// The predicates of [`explain_many`](crate::request::explain_many), in order, each with the options of its report.
    pub predicates: Vec<(String, Options)>,
    /// Files the oracle reads at once for `verify`.
    pub parallelism: usize,
    /// The files a window of the streamed replay gathers before it is explained and dropped
    /// ([`WINDOW_ROWS`]; the tests make windows of a file or two).
    pub window_files: usize,
    /// The threads that explain a window's predicates ([`explain_many`](crate::request::explain_many); every core).
    pub workers: usize,
}

impl ExplainRequest {
    /// The baseline of the latest snapshot at `location`, with no option set.
    pub fn new(location: &str) -> Self {
        Self {
            location: location.to_string(),
            storage: StorageOptions::default(),
            catalog: None,
            version: None,
            predicate: None,
            options: Options::default(),
            predicates: Vec::new(),
            parallelism: crate::cores(),
            window_files: WINDOW_ROWS,
            workers: crate::cores(),
        }
    }

    /// How to reach the table's store.
    pub fn storage(mut self, storage: StorageOptions) -> Self {
        self.storage = storage;
        self
    }

    /// The catalog the location names the table in (`catalog.schema.table`).
    pub fn catalog(mut self, catalog: Option<Catalog>) -> Self {
        self.catalog = catalog;
        self
    }

    /// The snapshot version (time travel); the latest when `None`.
    pub fn version(mut self, version: Option<u64>) -> Self {
        self.version = version;
        self
    }

    /// The predicate; the baseline when `None`.
    pub fn predicate(mut self, predicate: Option<String>) -> Self {
        self.predicate = predicate;
        self
    }

    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The predicates of [`explain_many`](crate::request::explain_many), each with its options.
    pub fn predicates(mut self, predicates: Vec<(String, Options)>) -> Self {
        self.predicates = predicates;
        self
    }

    /// Where the table is and how to reach it: the location and storage options as given,
    /// or the storage location a catalog gives for the name and the credentials it vends. A
    /// malformed name is bad input (exit 2); the catalog's refusals are table errors (exit 3).
    pub fn located(&self) -> Result<(String, StorageOptions), ExplainError> {
        locate(&self.location, &self.storage, self.catalog.as_ref())
    }

    /// The request with its predicate and predicates' time functions bound
    /// ([`explain_compiler::bind`]) to their options' `now`, else to `run` (the instant the
    /// run started, microseconds since the epoch): the bound request, and what each predicate
    /// bound (the one predicate's first, then the many's in order).
    pub(crate) fn bound_in_time(&self, run: i64) -> Result<BoundRequest, ExplainError> {
        let instant = |options: &Options| -> Result<i64, ExplainError> {
            match &options.now {
                Some(text) => explain_compiler::bind::parse_instant(text)
                    .map_err(|e| ExplainError::Usage(format!("now: {e}"))),
                None => Ok(run),
            }
        };
        let mut bound = self.clone();
        let mut one = Vec::new();
        if let Some(text) = &self.predicate {
            let (sql, b) = bind_time(text, instant(&self.options)?);
            bound.predicate = Some(sql);
            one = b;
        }
        let mut many = Vec::with_capacity(self.predicates.len());
        for (i, (text, options)) in self.predicates.iter().enumerate() {
            let (sql, b) = bind_time(text, instant(options)?);
            bound.predicates[i].0 = sql;
            many.push(b);
        }
        Ok((bound, one, many))
    }

    /// What [`explain_one`](crate::request::explain_one)'s report carries, as the explanation takes it: the options', and
    /// `analysis.stats_coverage` always (one more pass over the statistics, for one predicate).
    pub(crate) fn report_request(&self) -> ReportRequest {
        ReportRequest {
            stats_coverage: true,
            ..self.options.report_request()
        }
    }
}

/// Where `table` is and how to reach it ([`storage::locate`]): itself and `storage` without a
/// catalog; else the storage location the catalog gives for the name, read with the
/// credentials it vends. A malformed name is bad input (exit 2); the catalog's refusals and
/// failures are table errors (exit 3). The entry points of the explainer and the advisor
/// call it, so a catalog's name reads the same from the command and from Python.
pub fn locate(
    table: &str,
    storage: &StorageOptions,
    catalog: Option<&Catalog>,
) -> Result<(String, StorageOptions), ExplainError> {
    storage::locate(table, storage, catalog).map_err(|e| match e.exit_code() {
        2 => ExplainError::Usage(e.to_string()),
        _ => ExplainError::Table {
            table: table.to_string(),
            reason: e.to_string(),
        },
    })
}
