# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "i8 IN (-78, -83, -54, -33, 10, 49, 76, 80, -100, -98, 98, 99, 100, -78e-0, -83e-0, 1e30, -1e30, 2.5, -0.5, -78.0000000000000001e0, -83.0000000000000001e0, -82e0) OR i8 NOT IN (-83e-0)"
EXPECTED = 22

from deltalake import DeltaTable, QueryBuilder

def count(predicate):
    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()
    return result.column('n')[0].as_py()

# Two spellings of one predicate, equal in SQL's three-valued logic: the reader must
# read the same rows for both.
VARIANT = "NOT (NOT i8 IN (-78, -83, -54, -33, 10, 49, 76, 80, -100, -98, 98, 99, 100, -78e-0, -83e-0, 1e30, -1e30, 2.5, -0.5, -78.0000000000000001e0, -83.0000000000000001e0, -82e0) AND NOT i8 NOT IN (-83e-0))"
a, b = count(PREDICATE), count(VARIANT)
print(f'{a} row(s) for the predicate, {b} for its equivalent spelling')
sys.exit(0 if a == b else 1)
