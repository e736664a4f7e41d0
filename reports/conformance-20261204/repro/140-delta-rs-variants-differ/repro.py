# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "day NOT IN ('2021-01-03') OR day IN ('2021-01-03', '2021-01-04', '2021-01-04')"
EXPECTED = 0

from deltalake import DeltaTable, QueryBuilder

def count(predicate):
    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()
    return result.column('n')[0].as_py()

# Two spellings of one predicate, equal in SQL's three-valued logic: the reader must
# read the same rows for both.
VARIANT = "NOT (NOT day NOT IN ('2021-01-03') AND NOT day IN ('2021-01-03', '2021-01-04', '2021-01-04'))"
a, b = count(PREDICATE), count(VARIANT)
print(f'{a} row(s) for the predicate, {b} for its equivalent spelling')
sys.exit(0 if a == b else 1)
