# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "x NOT IN (-845.7985221232112, -821.301681181538, -602.9799858424722, -577.2078644758917, -243.13607160516744, -78.85536688372224, 143.778643583551, 132.69535599322876, 276.71821669289284, 976.1322516485786, -990.6129708963787, -990.6129708963786, -990.6129708963784, 999.9166430850611, 999.9166430850612, -8457985221232112e-13, -821301681181538e-12, -0.0, 0.0, 0, 1e300, 0.1) AND (x = -990.6129708963786 AND id + 1 > -887.0000000000000001e0)"
EXPECTED = 0

import duckdb, duckdb_extension_delta, glob, os
ext = glob.glob(os.path.join(os.path.dirname(duckdb_extension_delta.__file__), 'extensions', '*', '*.duckdb_extension'))[0]
con = duckdb.connect(config={'allow_unsigned_extensions': 'true'})
con.execute(f"LOAD '{ext}'")

def count(predicate):
    return con.execute(f"SELECT count(*) FROM delta_scan('{TABLE}') WHERE {predicate}").fetchone()[0]

got = count(PREDICATE)
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
