# A reproduction: the reader returns other rows than the table holds for this predicate.
import os, sys

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'table')
PREDICATE = "NOT x IN (983.2480206167447, 0.1, -979.8531749773684) OR x IN (-889.5252653121361, -829.3251030353234, -555.6811329732514, -339.49332860193033, -295.39903517160735, 178.782074551807, 391.7095093672799, 658.9025605514519, -0.0, 835.8484536719368, -979.8531749773686, -979.8531749773684, -979.8531749773683, 983.2480206167446, 983.2480206167447, 983.2480206167448, -8895252653121361e-13, -8293251030353234e-13, 0.0, 0, 0.1, 'NaN')"
EXPECTED = 23

from deltalake import DeltaTable, QueryBuilder

def count(predicate):
    result = QueryBuilder().register('t', DeltaTable(TABLE)).execute(f'SELECT count(*) AS n FROM t WHERE {predicate}').read_all()
    return result.column('n')[0].as_py()

# Two spellings of one predicate, equal in SQL's three-valued logic: the reader must
# read the same rows for both.
VARIANT = "NOT (NOT NOT x IN (983.2480206167447, 0.1, -979.8531749773684) AND NOT x IN (-889.5252653121361, -829.3251030353234, -555.6811329732514, -339.49332860193033, -295.39903517160735, 178.782074551807, 391.7095093672799, 658.9025605514519, -0.0, 835.8484536719368, -979.8531749773686, -979.8531749773684, -979.8531749773683, 983.2480206167446, 983.2480206167447, 983.2480206167448, -8895252653121361e-13, -8293251030353234e-13, 0.0, 0, 0.1, 'NaN'))"
a, b = count(PREDICATE), count(VARIANT)
print(f'{a} row(s) for the predicate, {b} for its equivalent spelling')
sys.exit(0 if a == b else 1)
