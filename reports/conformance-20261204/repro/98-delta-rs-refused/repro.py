# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "pl < v"
EXPECTED = 83

from deltalake import DeltaTable, QueryBuilder
result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {PREDICATE}').read_all()
got = result.column('n')[0].as_py()
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
