#!/usr/bin/env bash
# A Delta reader of the conformance campaign pinned at one version from PyPI, in a virtual
# environment of its own (`campaign --reader NAME==VERSION`, harness/src/conformance):
#   bash oracle/engines/reader-env.sh delta-rs 1.1.4    -> deltalake==1.1.4
#   bash oracle/engines/reader-env.sh polars 1.27.1     -> polars==1.27.1 (and deltalake)
#   bash oracle/engines/reader-env.sh duckdb-delta 1.5.1 -> duckdb-extension-delta==1.5.1
#                                                          (which pins its DuckDB)
# Made once under ${DX_READERS_DIR:-~/.cache/delta-explain/readers}/NAME-VERSION and reused
# offline afterwards (an environment that installed whole has a `ready` mark). Prints the
# environment's python on the last line; the installer's words go to stderr.
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: reader-env.sh duckdb-delta|polars|delta-rs VERSION" >&2
  exit 2
fi
reader="$1"
version="$2"
case "${version}" in
  *[!0-9A-Za-z.+-]*|"") echo "reader-env.sh: not a version: ${version}" >&2; exit 2 ;;
esac
case "${reader}" in
  delta-rs) packages=("deltalake==${version}" "pyarrow") ;;
  polars) packages=("polars==${version}" "deltalake" "pyarrow") ;;
  duckdb-delta) packages=("duckdb-extension-delta==${version}" "pyarrow") ;;
  *) echo "reader-env.sh: no such reader: ${reader} (duckdb-delta, polars, delta-rs)" >&2; exit 2 ;;
esac
root="${DX_READERS_DIR:-${HOME}/.cache/delta-explain/readers}"
venv="${root}/${reader}-${version}"
if [ ! -f "${venv}/ready" ]; then
  echo "reader-env.sh: installing ${packages[*]} into ${venv}" >&2
  rm -rf "${venv}"
  mkdir -p "${root}"
  python3 -m venv "${venv}"
  "${venv}/bin/python" -m pip install -q --disable-pip-version-check "${packages[@]}" >&2
  touch "${venv}/ready"
fi
echo "${venv}/bin/python"
