#!/usr/bin/env bash
# The engines of the oracle's engine-backed evaluation (oracle/src/engines.rs) and the Delta
# readers of the conformance campaign (oracle/src/readers.rs): a virtual environment with
# DuckDB, pyspark, deltalake and polars from PyPI, DuckDB's delta extension beside it, and a Java runtime for Spark (Debian's
# openjdk-17-jre-headless where none is installed and this runs as root). Idempotent: an
# existing environment is brought up to the pinned ranges. Prints the environment's python.
set -euo pipefail
venv="${DX_ENGINES_VENV:-${HOME}/.cache/delta-explain/engines}"
if ! command -v java >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing openjdk-17-jre-headless (Debian package) for Spark" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null
  else
    echo "java is missing: Spark will be reported unavailable (install openjdk-17-jre-headless)" >&2
  fi
fi
if [ ! -x "${venv}/bin/python" ]; then
  python3 -m venv "${venv}"
fi
"${venv}/bin/python" -m pip install -q --disable-pip-version-check \
  "duckdb>=1.1,<3" "pyspark>=4.0,<5" "pyarrow>=14" "deltalake>=1.0,<2" "polars>=1.0,<3" >&2
# The Delta readers of the conformance campaign (oracle/src/readers.rs): DuckDB's delta
# extension pins its own DuckDB, so it goes beside the environment (the duckdb-delta worker
# puts it first on its path), leaving the engines' DuckDB as measured.
readers="${venv}/readers/duckdb-delta"
if [ ! -d "${readers}/duckdb_extension_delta" ]; then
  "${venv}/bin/python" -m pip install -q --disable-pip-version-check --target "${readers}" \
    "duckdb-extension-delta==1.5.5" >&2
fi
echo "${venv}/bin/python"
