# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "y NOT IN (-341.22515869140625) AND x < 963.9356027574407 OR 11 >= p AND y IN (-0.0, -1e-300, -998.60137939453125)"
EXPECTED = 20

from deltalake import DeltaTable, QueryBuilder

def count(predicate):
    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()
    return result.column('n')[0].as_py()

got = count(PREDICATE)
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
