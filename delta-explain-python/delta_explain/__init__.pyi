from typing import Any, Dict, List, Mapping, Optional, Sequence

import pyarrow

__version__: str

class DeltaExplainError(Exception):
    """An error of delta-explain; ``exit_code`` is the command's exit code for it."""

    exit_code: int

class BadInputError(DeltaExplainError):
    """Bad input (exit code 2): an invalid predicate, an unknown column, a bad option."""

class TableError(DeltaExplainError):
    """The table or its store cannot be read (exit code 3)."""

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
    """The report of ``where`` on ``table``: the document ``delta-explain --format json`` prints."""

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
    """One report per predicate, against one replay of the log."""

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
) -> pyarrow.Table:
    """The per-file view as a ``pyarrow.Table``, one row per live file."""
