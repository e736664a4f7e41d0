# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "i32 NOT IN (-813, -821, -626, -131, -312, 30, 197, 454, 437, 674, 997, -996, -995, -994, 996, 998, -813e-0, -821e-0, 1e30, -1e30, 2.5, -0.5, -813.0000000000000001e0, -812e0, -821.0000000000000001e0, -820e0)"
EXPECTED = 18

import polars as pl

def count(predicate):
    return pl.scan_delta(TABLE).filter(pl.sql_expr(predicate)).select(pl.len()).collect().item()

got = count(PREDICATE)
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
