# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "pf BETWEEN -0.0 AND -0"
EXPECTED = 24

import duckdb, duckdb_extension_delta, glob, os
ext = glob.glob(os.path.join(os.path.dirname(duckdb_extension_delta.__file__), 'extensions', '*', '*.duckdb_extension'))[0]
con = duckdb.connect(config={'allow_unsigned_extensions': 'true'})
con.execute(f"LOAD '{ext}'")

def count(predicate):
    return con.execute(f"SELECT count(*) FROM delta_scan('{TABLE}') WHERE {predicate}").fetchone()[0]

got = count(PREDICATE)
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
