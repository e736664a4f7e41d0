#!/usr/bin/env bash
# Runs every Python reproduction of a conformance report once more, each from a clean copy of
# its folder (its table and its script alone, none of this project's tools), with the
# engines' Python (oracle/engines/setup.sh; DuckDB's delta extension from beside it). Writes
# REPORT/rerun.md: each reproduction's exit (1: the reader still returns other rows) and output.
# Usage: harness/scripts/rerun-repros.sh reports/conformance-YYYYMMDD
set -uo pipefail
report="${1:?usage: rerun-repros.sh REPORT_DIR}"
python="${DX_ENGINES_PYTHON:-${HOME}/.cache/delta-explain/engines/bin/python}"
readers="$(dirname "$(dirname "${python}")")/readers/duckdb-delta"
out="${report}/rerun.md"
{
  echo "# The reproductions, run again from clean folders"
  echo
  echo "Each \`repro.py\` copied with its table alone into an empty temporary folder and run with \`${python##*/}\` ($(${python} --version 2>&1)). Exit 1: the reader still returns other rows than the table holds. The DataFusion reproductions (\`repro.rs\`) are tests for a crate depending on datafusion and tokio."
  echo
  echo "| reproduction | exit | output |"
  echo "|---|---:|---|"
} > "${out}"
for dir in "${report}"/repro/*/; do
  name="$(basename "${dir}")"
  [ -f "${dir}/repro.py" ] || continue
  clean="$(mktemp -d)"
  cp -r "${dir}/." "${clean}/"
  (cd "${clean}" && PYTHONPATH="${readers}" "${python}" repro.py > "${clean}/output" 2>&1)
  code=$?
  result="$(tail -1 "${clean}/output")"
  rm -rf "${clean}"
  echo "| ${name} | ${code} | ${result//|/\\|} |" >> "${out}"
done
echo "wrote ${out}"
