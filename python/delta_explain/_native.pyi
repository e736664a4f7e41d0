from typing import Dict, List, Optional, Tuple

__version__: str

class DeltaExplainError(Exception):
    exit_code: int

class BadInputError(DeltaExplainError): ...
class TableError(DeltaExplainError): ...

def explain(
    table: str,
    predicate: Optional[str] = None,
    storage_options: Optional[Dict[str, str]] = None,
    version: Optional[int] = None,
    strict: bool = False,
    verbose: bool = False,
    limit: Optional[int] = None,
    explain_why: bool = False,
    layers: bool = False,
    verify: bool = False,
    ranges: List[str] = ...,
    min_pruning: Optional[float] = None,
    min_files: Optional[int] = None,
    assert_stats: bool = False,
) -> Tuple[str, List[str]]: ...
def explain_many(
    table: str,
    predicates: List[str],
    storage_options: Optional[Dict[str, str]] = None,
    version: Optional[int] = None,
    strict: bool = False,
) -> List[Tuple[Optional[str], Optional[str], int]]: ...
