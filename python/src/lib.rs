//! `delta_explain._native`: explain-core called in-process from Python. Each function takes the
//! table and the options as the command does and returns the JSON document of `--format
//! json` as text; the Python package (`delta_explain/__init__.py`) parses it and builds the
//! `pyarrow` view. Errors are raised as exceptions of the exit-code classes: `BadInputError`
//! (exit 2), `TableError` (exit 3), both `DeltaExplainError`.

use std::collections::HashMap;

use explain_core::error::ExplainError;
use explain_core::explain::ExplainOptions;
use explain_core::request::{ExplainRequest, Progress, explain_many as many, explain_one};
use explain_core::session::ReportRequest;
use explain_core::stream::StreamRequest;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _native,
    DeltaExplainError,
    PyException,
    "An error of delta-explain; `exit_code` is the command's exit code for it."
);
create_exception!(
    _native,
    BadInputError,
    DeltaExplainError,
    "Bad input (exit code 2): an invalid predicate, an unknown column, a bad option."
);
create_exception!(
    _native,
    TableError,
    DeltaExplainError,
    "The table or its store cannot be read (exit code 3)."
);

fn raised(error: ExplainError) -> PyErr {
    match error.exit_code() {
        2 => BadInputError::new_err(error.to_string()),
        _ => TableError::new_err(error.to_string()),
    }
}

/// Storage options as delta-rs takes them (a dict, keys in any case).
fn storage(options: Option<HashMap<String, String>>) -> storage::StorageOptions {
    let mut pairs: Vec<(String, String)> = options
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v))
        .collect();
    // A dict has no order; sorted, the same options always mean the same thing.
    pairs.sort();
    storage::StorageOptions {
        options: pairs,
        ..Default::default()
    }
}

/// The report of one predicate (`None`: the baseline) as JSON text, and the gates it failed.
#[pyfunction]
#[pyo3(signature = (
    table, predicate=None, storage_options=None, version=None, strict=false, verbose=false,
    limit=None, explain_why=false, layers=false, verify=false, ranges=Vec::new(),
    min_pruning=None, min_files=None, assert_stats=false
))]
#[allow(clippy::too_many_arguments)]
fn explain(
    py: Python<'_>,
    table: String,
    predicate: Option<String>,
    storage_options: Option<HashMap<String, String>>,
    version: Option<u64>,
    strict: bool,
    verbose: bool,
    limit: Option<usize>,
    explain_why: bool,
    layers: bool,
    verify: bool,
    ranges: Vec<String>,
    min_pruning: Option<f64>,
    min_files: Option<usize>,
    assert_stats: bool,
) -> PyResult<(String, Vec<String>)> {
    if let Some(pct) = min_pruning
        && !(0.0..=100.0).contains(&pct)
    {
        return Err(BadInputError::new_err(format!(
            "min_pruning {pct} is not a percentage from 0 to 100"
        )));
    }
    let request = ExplainRequest {
        stream: StreamRequest {
            storage: storage(storage_options),
            version,
            predicate,
            report: ReportRequest {
                options: ExplainOptions { strict },
                min_pruning,
                min_files,
                assert_stats,
                verbose,
                limit,
                layers,
                explain_why: explain_why || verify,
            },
            ..StreamRequest::new(&table)
        },
        verify,
        ranges,
        ..ExplainRequest::new(&table)
    };
    if request.verify && request.stream.predicate.is_none() {
        return Err(BadInputError::new_err(
            "verify needs a predicate (`where`)".to_string(),
        ));
    }
    let (report, failures) = py
        .detach(|| Progress::silent(|progress| explain_one(&request, progress)))
        .map_err(raised)?;
    Ok((report.to_json(), failures))
}

/// One predicate's outcome in [`explain_many`]: `(report JSON, error message, exit code)`.
type ManyOutcome = (Option<String>, Option<String>, i32);

/// The reports of many predicates against one replay of the table: per predicate
/// `(report JSON, None, 0)`, or `(None, message, exit code)` for an invalid one.
#[pyfunction]
#[pyo3(signature = (table, predicates, storage_options=None, version=None, strict=false))]
fn explain_many(
    py: Python<'_>,
    table: String,
    predicates: Vec<String>,
    storage_options: Option<HashMap<String, String>>,
    version: Option<u64>,
    strict: bool,
) -> PyResult<Vec<ManyOutcome>> {
    let request = ReportRequest {
        options: ExplainOptions { strict },
        ..ReportRequest::default()
    };
    let storage = storage(storage_options);
    let texts: Vec<&str> = predicates.iter().map(String::as_str).collect();
    let outcomes = py
        .detach(|| many(&table, &storage, version, &texts, &request, &mut |_| {}))
        .map_err(raised)?;
    outcomes
        .into_iter()
        .map(|outcome| match outcome {
            Ok((report, _)) => Ok((Some(report.to_json()), None, 0)),
            // A table error stops the batch, as on the command line.
            Err(e @ (ExplainError::Table { .. } | ExplainError::Output(_))) => Err(raised(e)),
            Err(e) => Ok((None, Some(e.to_string()), e.exit_code())),
        })
        .collect()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(explain_many, m)?)?;
    let py = m.py();
    m.add("DeltaExplainError", py.get_type::<DeltaExplainError>())?;
    m.add("BadInputError", py.get_type::<BadInputError>())?;
    m.add("TableError", py.get_type::<TableError>())?;
    m.add("__version__", explain_core::VERSION)?;
    Ok(())
}
