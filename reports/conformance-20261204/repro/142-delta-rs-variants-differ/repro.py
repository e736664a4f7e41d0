# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "NOT (i16 NOT IN (-896, -869, -650, -291, -204, -98, 341, 498, 807, -964, -963, -962, 970, -896e-0, -869e-0, 1e30, -1e30, 2.5, -0.5, -896.0000000000000001e0, -869.0000000000000001e0, -868e0) AND i16 IN (2.5, -204))"
EXPECTED = 24

from deltalake import DeltaTable, QueryBuilder

def count(predicate):
    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()
    return result.column('n')[0].as_py()

# Two spellings of one predicate, equal in SQL's three-valued logic: the reader must
# read the same rows for both.
VARIANT = "NOT NOT (NOT i16 NOT IN (-896, -869, -650, -291, -204, -98, 341, 498, 807, -964, -963, -962, 970, -896e-0, -869e-0, 1e30, -1e30, 2.5, -0.5, -896.0000000000000001e0, -869.0000000000000001e0, -868e0) OR NOT i16 IN (2.5, -204))"
a, b = count(PREDICATE), count(VARIANT)
print(f'{a} row(s) for the predicate, {b} for its equivalent spelling')
sys.exit(0 if a == b else 1)
