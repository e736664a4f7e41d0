#!/usr/bin/env bash
# The advisor's report: taxi-nyc and the generated trips table, and the check of one prediction
# against a real rewrite. Usage: run.sh BIN_DIR TRIPS TRIPS_SORTED (see README.md).
set -euo pipefail
bin="$1/delta-explain"; trips="$2"; sorted="$3"
here="$(cd "$(dirname "$0")" && pwd)"
# From the workspace root, so the page names the bundled table as the README's commands do.
cd "$here/../.."
taxi="../shared/fixtures/taxi-nyc"
out="reports/advise-20261201"
timed() { /usr/bin/time -f "%e s, %M KiB peak" "$@"; }
for format in text json html; do
  ext=$([ "$format" = text ] && echo txt || echo "$format")
  timed "$bin" advise "$taxi" --predicates "$out/workload-taxi.sql" --format "$format" > "$out/taxi.$ext" 2>> "$out/taxi.time"
  timed "$bin" advise "$trips" --predicates "$out/workload-trips.sql" --sample 500000 --format "$format" > "$out/trips.$ext" 2>> "$out/trips.time"
done
# The prediction for "sort by pickup" against the table rewritten so (rewrite_sorted.py).
"$bin" "$sorted" --predicates "$out/workload-trips.sql" --format json > "$out/trips-sorted-actual.json"
echo "taxi:";  cat "$out/taxi.time"
echo "trips:"; cat "$out/trips.time"
