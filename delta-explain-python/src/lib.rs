//! `delta_explain._native`: explain-core called in-process from Python. Each function takes the
//! table (a location, or a name in a catalog), its store and version, and the options as the JSON form of the library's
//! `request::Options` (their names in `OPTIONS`), and returns the JSON document of `--format
//! json` as text; the Python package (`delta_explain/__init__.py`) parses it and builds the
//! `pyarrow` view. Errors are raised as exceptions of the exit-code classes: `BadInputError`
//! (exit 2), `TableError` (exit 3), both `DeltaExplainError`.

use std::collections::HashMap;

use explain_compiler::error::ExplainError;
use explain_core::request::{ExplainRequest, Options, Progress, explain_many as many, explain_one};
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

/// Where the table is: a location, or with `catalog="unity"` a name `catalog.schema.table`
/// in Unity Catalog (its endpoint and token from `catalog_url`, `catalog_profile` of
/// ~/.databrickscfg, or DATABRICKS_HOST and DATABRICKS_TOKEN, as the command reads them).
struct Place {
    catalog: Option<String>,
    catalog_url: Option<String>,
    catalog_profile: Option<String>,
}

/// The catalog the table is named in, as the library takes it; an unknown catalog is bad
/// input, and so are a catalog's options without a catalog.
fn catalog(place: Place) -> Result<Option<storage::Catalog>, ExplainError> {
    match place.catalog.as_deref() {
        None if place.catalog_url.is_some() || place.catalog_profile.is_some() => Err(
            ExplainError::Usage("catalog_url and catalog_profile need catalog=\"unity\"".into()),
        ),
        None => Ok(None),
        Some(name) if name.eq_ignore_ascii_case("unity") => Ok(Some(storage::Catalog::Unity(
            storage::unity::CatalogOptions {
                host: place.catalog_url,
                profile: place.catalog_profile,
                refresh_before: None,
            },
        ))),
        Some(other) => Err(ExplainError::Usage(format!(
            "unknown catalog `{other}` (the catalogs: \"unity\")"
        ))),
    }
}

/// The request of `table` (a location or a catalog's name), its store and its version.
fn request(
    table: &str,
    storage_options: Option<HashMap<String, String>>,
    place: Place,
    version: Option<u64>,
) -> PyResult<ExplainRequest> {
    Ok(ExplainRequest::new(table)
        .storage(storage(storage_options))
        .catalog(catalog(place).map_err(raised)?)
        .version(version))
}

/// The options, from their JSON form (the package's keyword arguments, as `OPTIONS` names
/// them).
fn options(options: &str) -> PyResult<Options> {
    Options::from_json(options).map_err(raised)
}

/// The report of one predicate (`None`: the baseline) as JSON text, and the gates it failed.
#[pyfunction]
#[pyo3(signature = (table, predicate=None, storage_options=None, version=None, options="{}", catalog=None, catalog_url=None, catalog_profile=None))]
#[allow(clippy::too_many_arguments)]
fn explain(
    py: Python<'_>,
    table: String,
    predicate: Option<String>,
    storage_options: Option<HashMap<String, String>>,
    version: Option<u64>,
    options: &str,
    catalog: Option<String>,
    catalog_url: Option<String>,
    catalog_profile: Option<String>,
) -> PyResult<(String, Vec<String>)> {
    let place = Place {
        catalog,
        catalog_url,
        catalog_profile,
    };
    let request = request(&table, storage_options, place, version)?
        .predicate(predicate)
        .options(self::options(options)?);
    let (report, failures) = py
        .detach(|| Progress::silent(|progress| explain_one(&request, progress)))
        .map_err(raised)?
        .reported();
    Ok((report.to_json(), failures))
}

/// One predicate's outcome in [`explain_many`]: `(report JSON, error message, exit code)`.
type ManyOutcome = (Option<String>, Option<String>, i32);

/// The reports of many predicates against one replay of the table: per predicate
/// `(report JSON, None, 0)`, or `(None, message, exit code)` for an invalid one.
#[pyfunction]
#[pyo3(signature = (table, predicates, storage_options=None, version=None, options="{}", catalog=None, catalog_url=None, catalog_profile=None))]
#[allow(clippy::too_many_arguments)]
fn explain_many(
    py: Python<'_>,
    table: String,
    predicates: Vec<String>,
    storage_options: Option<HashMap<String, String>>,
    version: Option<u64>,
    options: &str,
    catalog: Option<String>,
    catalog_url: Option<String>,
    catalog_profile: Option<String>,
) -> PyResult<Vec<ManyOutcome>> {
    let place = Place {
        catalog,
        catalog_url,
        catalog_profile,
    };
    let options = self::options(options)?;
    let request = request(&table, storage_options, place, version)?.predicates(
        predicates
            .into_iter()
            .map(|p| (p, options.clone()))
            .collect(),
    );
    let streamed = py.detach(|| many(&request, &mut |_| {})).map_err(raised)?;
    streamed
        .reports
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
    // The options `explain` and `explain_many` take, as the library spells them.
    m.add("OPTIONS", Options::names())?;
    Ok(())
}
