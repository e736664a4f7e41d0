# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "id NOT IN (-969, -9223372036854775808, -632, -470, -214, -7, 80, 212, 458, 648, 804, 9223372036854775806, 9223372036854775807, -969e-0, -9223372036854775808e-0, 1e30, -1e30, 2.5, -0.5, -968e0, -9223372036854775808.0000000000000001e0, -9223372036854775807e0) OR id IN (-969, -9223372036854775808, -632, -470, -214, -7, 80, 212, 458, 648, 804, -9223372036854775807, 9223372036854775806, 9223372036854775807, -969e-0, -9223372036854775808e-0, 1e30, -1e30, 2.5, -0.5, -969.0000000000000001e0, -968e0, -9223372036854775808.0000000000000001e0, -9223372036854775807e0)"
EXPECTED = 21

from deltalake import DeltaTable, QueryBuilder

def count(predicate):
    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()
    return result.column('n')[0].as_py()

# Two spellings of one predicate, equal in SQL's three-valued logic: the reader must
# read the same rows for both.
VARIANT = "NOT (NOT id NOT IN (-969, -9223372036854775808, -632, -470, -214, -7, 80, 212, 458, 648, 804, 9223372036854775806, 9223372036854775807, -969e-0, -9223372036854775808e-0, 1e30, -1e30, 2.5, -0.5, -968e0, -9223372036854775808.0000000000000001e0, -9223372036854775807e0) AND NOT id IN (-969, -9223372036854775808, -632, -470, -214, -7, 80, 212, 458, 648, 804, -9223372036854775807, 9223372036854775806, 9223372036854775807, -969e-0, -9223372036854775808e-0, 1e30, -1e30, 2.5, -0.5, -969.0000000000000001e0, -968e0, -9223372036854775808.0000000000000001e0, -9223372036854775807e0))"
a, b = count(PREDICATE), count(VARIANT)
print(f'{a} row(s) for the predicate, {b} for its equivalent spelling')
sys.exit(0 if a == b else 1)
