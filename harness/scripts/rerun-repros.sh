#!/usr/bin/env bash
# Runs every reproduction of a conformance report once more, each from a clean copy of its
# folder (its table and its script or crate alone, none of this project's tools): `repro.py`
# with the engines' Python (oracle/engines/setup.sh; DuckDB's delta extension from beside it),
# a crate (`Cargo.toml`, `repro.rs`: the kernel, DataFusion) with `cargo test`, the crates
# sharing one build folder (the first builds the reader, minutes; the rest reuse it). Writes
# REPORT/rerun.md: each reproduction's exit (1 or 101: the reader is still wrong) and output.
# Usage: harness/scripts/rerun-repros.sh reports/conformance-YYYYMMDD
set -uo pipefail
report="${1:?usage: rerun-repros.sh REPORT_DIR}"
python="${DX_ENGINES_PYTHON:-${HOME}/.cache/delta-explain/engines/bin/python}"
readers="$(dirname "$(dirname "${python}")")/readers/duckdb-delta"
out="${report}/rerun.md"
{
  echo "# The reproductions, run again from clean folders"
  echo
  echo "Each reproduction copied with its table alone into an empty temporary folder: a \`repro.py\` run with \`${python##*/}\` ($(${python} --version 2>&1)), a crate (the kernel's and DataFusion's \`Cargo.toml\` and \`repro.rs\`) tested with \`cargo test\` ($(cargo --version)). Exit 1 (a script) or 101 (a test): the reader still returns other rows, or drops a file holding a matching row."
  echo
  echo "| reproduction | exit | output |"
  echo "|---|---:|---|"
} > "${out}"
for dir in "${report}"/repro/*/; do
  name="$(basename "${dir}")"
  clean="$(mktemp -d)"
  cp -r "${dir}/." "${clean}/"
  if [ -f "${dir}/repro.py" ]; then
    (cd "${clean}" && PYTHONPATH="${readers}" "${python}" repro.py > "${clean}/output" 2>&1)
    code=$?
    # The exception's line where the reader raised (its message may run on over lines),
    # else the script's last line (what it counted).
    result="$(grep -E '^[A-Za-z_.]*(Error|Exception)\b' "${clean}/output" | tail -1)"
    [ -n "${result}" ] || result="$(grep -v '^[[:space:]]*$' "${clean}/output" | tail -1)"
    result="${result:0:240}"
  elif [ -f "${dir}/Cargo.toml" ]; then
    (cd "${clean}" && CARGO_TARGET_DIR="${REPRO_TARGET:-${HOME}/.cache/delta-explain/repro-target}" \
      cargo test --quiet > "${clean}/output" 2>&1)
    code=$?
    # The assertion, else the panic's message (the line after `panicked at`: a scan that
    # fails), else cargo's own line.
    result="$(grep -m1 -E "holds a matching row|assertion" "${clean}/output" \
      || grep -m1 -A1 "panicked at" "${clean}/output" | tail -n +2 | grep . \
      || grep -m1 -E "^test result|^error" "${clean}/output")"
    result="${result:0:240}"
  else
    rm -rf "${clean}"
    continue
  fi
  rm -rf "${clean}"
  echo "| ${name} | ${code} | ${result//|/\\|} |" >> "${out}"
done
echo "wrote ${out}"
