# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "x NOT IN (-860.9202967145789, -780.7288976445366, -594.0578951974089, -368.84406562715344, -176.25490730566764, 133.03407389468498, 57.870857783273095, 345.26047606095676, 547.9413846196396, 754.1749859732679, 835.8894969402759, -990.1397334632456, -990.1397334632455, 977.47974265806, 977.4797426580601, 977.4797426580602, -8609202967145789e-13, -84488890044275e-11, -0.0, 0.0, 0, 1e300, -1e-300, 0.1, 'NaN') OR id + 1 > -993e0 AND pf IS NULL"
EXPECTED = 16

import duckdb, duckdb_extension_delta, glob, os
ext = glob.glob(os.path.join(os.path.dirname(duckdb_extension_delta.__file__), 'extensions', '*', '*.duckdb_extension'))[0]
con = duckdb.connect(config={'allow_unsigned_extensions': 'true'})
con.execute(f"LOAD '{ext}'")

def count(predicate):
    return con.execute(f"SELECT count(*) FROM delta_scan('{TABLE}') WHERE {predicate}").fetchone()[0]

got = count(PREDICATE)
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
