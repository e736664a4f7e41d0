"""Delta Lake file pruning, made visible: delta-explain in-process.

``explain`` returns the report of one predicate, the same document as
``delta-explain --format json``, as a dict. ``explain_many`` explains many predicates against
one replay of the log. ``files`` returns the per-file view as a ``pyarrow.Table``.

A table is a path or URL, or with ``catalog="unity"`` a name ``catalog.schema.table`` in Unity
Catalog, read with the credentials the catalog vends for it (the endpoint and token from
``catalog_url``, ``catalog_profile`` of ``~/.databrickscfg``, or ``DATABRICKS_HOST`` and
``DATABRICKS_TOKEN``, as ``delta-explain --catalog unity`` reads them).

Storage options are a dict, as delta-rs takes them (``{"aws_region": "eu-west-1",
"aws_endpoint": "http://127.0.0.1:9000", "aws_allow_http": "true"}``); credentials also come
from each cloud's environment variables and files.

Errors are exceptions of the command's exit-code classes: ``BadInputError`` (exit code 2: an
invalid predicate, an unknown column, a bad option) and ``TableError`` (exit code 3: the table
or its store cannot be read), both ``DeltaExplainError`` with an ``exit_code`` attribute.
"""

from __future__ import annotations

import json as _json
import typing as _typing

from . import _native
from ._native import BadInputError, DeltaExplainError, TableError

if _typing.TYPE_CHECKING:  # the annotations' names, not the module's API
    from typing import Any, Dict, List, Mapping, Optional, Sequence

__all__ = [
    "explain",
    "explain_many",
    "files",
    "DeltaExplainError",
    "BadInputError",
    "TableError",
    "__version__",
]

__version__: str = _native.__version__

DeltaExplainError.exit_code = 1
BadInputError.exit_code = 2
TableError.exit_code = 3
# The errors are this package's: a traceback names `delta_explain.BadInputError`, not the
# extension module the classes are made in.
for _error in (DeltaExplainError, BadInputError, TableError):
    _error.__module__ = __name__
del _error


def _location(table: Any) -> str:
    # A path-like (pathlib.Path) or a URL string.
    return str(table)


def _storage(storage_options: Optional[Mapping[str, str]]) -> Optional[Dict[str, str]]:
    if storage_options is None:
        return None
    return {str(k): str(v) for k, v in storage_options.items()}


def _options(arguments: Mapping[str, Any]) -> str:
    # The keyword arguments that are the library's options (``_native.OPTIONS``), as JSON.
    return _json.dumps(
        {
            name: list(value) if name == "ranges" else value
            for name, value in arguments.items()
            if name in _native.OPTIONS
        }
    )


def explain(
    table: Any,
    where: Optional[str] = None,
    *,
    storage_options: Optional[Mapping[str, str]] = None,
    version: Optional[int] = None,
    catalog: Optional[str] = None,
    catalog_url: Optional[str] = None,
    catalog_profile: Optional[str] = None,
    strict: bool = False,
    verbose: bool = False,
    limit: Optional[int] = None,
    explain_why: bool = False,
    layers: bool = False,
    verify: bool = False,
    ranges: Sequence[str] = (),
    referenced_ranges: bool = False,
    min_pruning: Optional[float] = None,
    min_files: Optional[int] = None,
    assert_stats: bool = False,
    now: Optional[str] = None,
) -> Dict[str, Any]:
    """Explains how partition pruning and data skipping narrow ``where`` on ``table``.

    Returns the report as a dict: the document ``delta-explain --format json`` prints
    (``docs/report.schema.json``). Without ``where``, the baseline (every live file).

    Options are the command's: ``strict`` (sound under Spark, DuckDB and DataFusion at once),
    ``verbose`` and ``limit`` (the per-file ``files`` list), ``explain_why`` (``diagnoses``),
    ``layers``, ``verify`` (the funnel down to the matching rows; reads every row),
    ``ranges`` (columns whose per-file ``[min, max]`` to include), ``referenced_ranges``
    (the same for every column ``where`` references, as the HTML page draws them), and the gates
    ``min_pruning``, ``min_files`` and ``assert_stats``, whose outcome is in
    ``report["result"]`` (``"pass"`` or ``"fail"``) and ``report["assertions"]``.
    ``current_date()``, ``current_timestamp()`` and ``now()`` in ``where`` are bound before
    planning, to the time of the call or to ``now`` (``"2024-01-03"`` or a timestamp, UTC unless
    it says otherwise); ``report["bindings"]`` says each value bound.

    Raises ``BadInputError`` for bad input and ``TableError`` when the table cannot be read.
    """
    text, _failures = _native.explain(
        _location(table),
        where,
        storage_options=_storage(storage_options),
        version=version,
        options=_options(locals()),
        catalog=catalog,
        catalog_url=catalog_url,
        catalog_profile=catalog_profile,
    )
    return _json.loads(text)


def explain_many(
    table: Any,
    predicates: Sequence[str],
    *,
    storage_options: Optional[Mapping[str, str]] = None,
    version: Optional[int] = None,
    catalog: Optional[str] = None,
    catalog_url: Optional[str] = None,
    catalog_profile: Optional[str] = None,
    strict: bool = False,
    verbose: bool = False,
    limit: Optional[int] = None,
    explain_why: bool = False,
    layers: bool = False,
    min_pruning: Optional[float] = None,
    min_files: Optional[int] = None,
    assert_stats: bool = False,
    now: Optional[str] = None,
    errors: str = "raise",
) -> List[Dict[str, Any]]:
    """Explains every predicate against one replay of ``table``'s log, on every core.

    Returns one report per predicate, in order. The options are ``explain``'s, each applied to
    every predicate (``verify`` and the ranges, which read the files again, are
    ``explain``'s alone). An invalid predicate raises ``BadInputError``
    naming its position (``errors="raise"``), or with ``errors="entry"`` becomes
    ``{"predicate", "error", "exit_code"}`` in its place, as ``--predicates`` writes it.
    A table error always raises ``TableError``.
    """
    if errors not in ("raise", "entry"):
        raise BadInputError(f"errors must be 'raise' or 'entry', not {errors!r}")
    predicates = list(predicates)
    options = _options(locals())
    outcomes = _native.explain_many(
        _location(table),
        predicates,
        storage_options=_storage(storage_options),
        version=version,
        options=options,
        catalog=catalog,
        catalog_url=catalog_url,
        catalog_profile=catalog_profile,
    )
    reports: List[Dict[str, Any]] = []
    for index, (predicate, (text, message, exit_code)) in enumerate(zip(predicates, outcomes)):
        if text is not None:
            reports.append(_json.loads(text))
        elif errors == "raise":
            raise BadInputError(f"predicate {index} ({predicate!r}): {message}")
        else:
            reports.append({"predicate": predicate, "error": message, "exit_code": exit_code})
    return reports


def files(
    table: Any,
    where: Optional[str] = None,
    *,
    storage_options: Optional[Mapping[str, str]] = None,
    version: Optional[int] = None,
    catalog: Optional[str] = None,
    catalog_url: Optional[str] = None,
    catalog_profile: Optional[str] = None,
    strict: bool = False,
) -> "pyarrow.Table":  # noqa: F821
    """The per-file view of ``where`` on ``table`` as a ``pyarrow.Table``, one row per live file.

    Columns: ``path``, ``size_bytes``, ``num_records``, ``has_stats``, ``has_deletion_vector``,
    ``kept``, ``pruned_by`` (``"Partition pruning"``, ``"Data skipping (min/max
    statistics)"`` or null), ``partition_values`` (a map of strings), and ``min_values``,
    ``max_values``, ``null_count`` of the columns ``where`` references (all recorded columns
    without a predicate) as JSON text, as the log records them.
    """
    import pyarrow as pa

    report = explain(
        table,
        where,
        storage_options=storage_options,
        version=version,
        catalog=catalog,
        catalog_url=catalog_url,
        catalog_profile=catalog_profile,
        strict=strict,
        verbose=True,
    )
    rows = report.get("files", [])
    schema = pa.schema(
        [
            ("path", pa.string()),
            ("size_bytes", pa.int64()),
            ("num_records", pa.int64()),
            ("has_stats", pa.bool_()),
            ("has_deletion_vector", pa.bool_()),
            ("kept", pa.bool_()),
            ("pruned_by", pa.string()),
            ("partition_values", pa.map_(pa.string(), pa.string())),
            ("min_values", pa.string()),
            ("max_values", pa.string()),
            ("null_count", pa.string()),
        ]
    )
    columns = {
        "path": [f["path"] for f in rows],
        "size_bytes": [f["size_bytes"] for f in rows],
        "num_records": [f["num_records"] for f in rows],
        "has_stats": [f["has_stats"] for f in rows],
        "has_deletion_vector": [f["has_deletion_vector"] for f in rows],
        "kept": [f["kept"] for f in rows],
        "pruned_by": [f["pruned_by"] for f in rows],
        "partition_values": [list(f["partition_values"].items()) for f in rows],
        "min_values": [_json.dumps(f["min_values"]) for f in rows],
        "max_values": [_json.dumps(f["max_values"]) for f in rows],
        "null_count": [_json.dumps(f["null_count"]) for f in rows],
    }
    return pa.table(columns, schema=schema)

# `from __future__ import annotations` binds the name `annotations`; it is not the API.
del annotations
