# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "id NOT IN (-969, -9223372036854775808, -632, -470, -214, -7, 80, 212, 458, 648, 804, 9223372036854775806, 9223372036854775807, -969e-0, -9223372036854775808e-0, 1e30, -1e30, 2.5, -0.5, -968e0, -9223372036854775808.0000000000000001e0, -9223372036854775807e0) OR id IN (-969, -9223372036854775808, -632, -470, -214, -7, 80, 212, 458, 648, 804, -9223372036854775807, 9223372036854775806, 9223372036854775807, -969e-0, -9223372036854775808e-0, 1e30, -1e30, 2.5, -0.5, -969.0000000000000001e0, -968e0, -9223372036854775808.0000000000000001e0, -9223372036854775807e0)"
EXPECTED = 255

from deltalake import DeltaTable, QueryBuilder
result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {PREDICATE}').read_all()
got = result.column('n')[0].as_py()
print(f'{got} row(s), expected {EXPECTED}')
sys.exit(0 if got == EXPECTED else 1)
