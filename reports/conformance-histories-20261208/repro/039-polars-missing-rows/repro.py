# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "id + 1 > 802"
EXPECTED = 9

import polars as pl

def count(predicate):
    return pl.scan_delta(TABLE).filter(pl.sql_expr(predicate)).select(pl.len()).collect().item()

got = count(PREDICATE)
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
