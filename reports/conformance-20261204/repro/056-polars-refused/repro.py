# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "i8 IN (-85, -92, -65, -47, -27, -18, -3, 24, 33, 49, 75, -101, -100, -99, 98, 99, 100, -85e-0, -92e-0, 1e30, -1e30, 2.5, -0.5, -85.0000000000000001e0, -84e0, -92.0000000000000001e0, -91e0)"
EXPECTED = 1

import polars as pl

def count(predicate):
    return pl.scan_delta(TABLE).filter(pl.sql_expr(predicate)).select(pl.len()).collect().item()

got = count(PREDICATE)
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
