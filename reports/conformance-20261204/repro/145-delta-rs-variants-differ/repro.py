# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "NOT id IN (-882, -352, -679, -960, 34, -249, -9223372036854775808, 731, 887, 671, 648, -9223372036854775807, 9223372036854775807, -882e-0, -352e-0, 1e30, -1e30, 2.5, -0.5, -882.0000000000000001e0, -881e0, -352.0000000000000001e0, -351e0) OR id IN (-882, -352, -679, -960, 34, -249, -9223372036854775808, 731, 887, 671, 648, -9223372036854775807, 9223372036854775806, 9223372036854775807, -882e-0, 1e30, -1e30, 2.5, -0.5, -882.0000000000000001e0, -881e0, -351e0)"
EXPECTED = 65

from deltalake import DeltaTable, QueryBuilder
result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {PREDICATE}').read_all()
got = result.column('n')[0].as_py()
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
