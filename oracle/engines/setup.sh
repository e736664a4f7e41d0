#!/usr/bin/env bash
# The engines of the oracle's engine-backed evaluation (oracle/src/engines.rs): a virtual
# environment with DuckDB and pyspark from PyPI, and a Java runtime for Spark (Debian's
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
  "duckdb>=1.1,<3" "pyspark>=4.0,<5" "pyarrow>=14" >&2
echo "${venv}/bin/python"
