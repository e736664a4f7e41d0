from typing import Dict, List, Optional, Tuple

__version__: str

class DeltaExplainError(Exception):
    exit_code: int

class BadInputError(DeltaExplainError): ...
class TableError(DeltaExplainError): ...

OPTIONS: List[str]
"""The options ``explain`` and ``explain_many`` take in their JSON ``options``."""

def explain(
    table: str,
    predicate: Optional[str] = None,
    storage_options: Optional[Dict[str, str]] = None,
    version: Optional[int] = None,
    options: str = "{}",
    catalog: Optional[str] = None,
    catalog_url: Optional[str] = None,
    catalog_profile: Optional[str] = None,
) -> Tuple[str, List[str]]: ...
def explain_many(
    table: str,
    predicates: List[str],
    storage_options: Optional[Dict[str, str]] = None,
    version: Optional[int] = None,
    options: str = "{}",
    catalog: Optional[str] = None,
    catalog_url: Optional[str] = None,
    catalog_profile: Optional[str] = None,
) -> List[Tuple[Optional[str], Optional[str], int]]: ...
