# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "x IN (0.1, 'NaN', '-9421269577163121e-13')"
EXPECTED = 2

from deltalake import DeltaTable, QueryBuilder

def count(predicate):
    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()
    return result.column('n')[0].as_py()

got = count(PREDICATE)
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
