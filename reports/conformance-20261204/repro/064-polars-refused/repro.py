# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "i64 IN (-826, -969, -754, -160, -170, -52, 258, 524, 375, 791, -983, -982, -981, 992, 993, 994, -826e-0, -969e-0, 1e30, -1e30, 2.5, -0.5, -826.0000000000000001e0, -825e0, -969.0000000000000001e0, -968e0)"
EXPECTED = 2

import polars as pl

def count(predicate):
    return pl.scan_delta(TABLE).filter(pl.sql_expr(predicate)).select(pl.len()).collect().item()

got = count(PREDICATE)
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
