# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "NOT x IN (265.03729432169416, 0.1) OR NOT x NOT IN (-845.4876989892043, 0.0, -628.122272362869, -255.12824354531688, -55.236242340608214, 35.31009568499826, 265.03729432169416, 976.400095192962, -996.7408418213477, -996.7408418213475, -996.7408418213474, 999.3497764655871, 999.3497764655872, 999.3497764655873, -8454876989892043e-13, 0e-1, -0.0, 0, 1e300, -1e-300, 0.1, 'NaN')"
EXPECTED = 20

from deltalake import DeltaTable, QueryBuilder

def count(predicate):
    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()
    return result.column('n')[0].as_py()

# Two spellings of one predicate, equal in SQL's three-valued logic: the reader must
# read the same rows for both.
VARIANT = "NOT (NOT NOT x IN (265.03729432169416, 0.1) AND NOT NOT x NOT IN (-845.4876989892043, 0.0, -628.122272362869, -255.12824354531688, -55.236242340608214, 35.31009568499826, 265.03729432169416, 976.400095192962, -996.7408418213477, -996.7408418213475, -996.7408418213474, 999.3497764655871, 999.3497764655872, 999.3497764655873, -8454876989892043e-13, 0e-1, -0.0, 0, 1e300, -1e-300, 0.1, 'NaN'))"
a, b = count(PREDICATE), count(VARIANT)
print(f'{a} row(s) for the predicate, {b} for its equivalent spelling')
sys.exit(0 if a == b else 1)
