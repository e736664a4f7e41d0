#!/usr/bin/env bash
# Runs the action's budget: `delta-explain TABLE --budget FILE` with the markdown summary
# appended to GITHUB_STEP_SUMMARY and the outputs written to GITHUB_OUTPUT; exits with
# delta-explain's code, so a failed gate (1), bad input (2) or a table error (3) fails the job.
# Inputs come as DX_TABLE, DX_BUDGET, DX_BASELINE, DX_STORAGE_OPTIONS (KEY=VALUE per line),
# DX_JUNIT; DX_BIN overrides the binary (default: delta-explain on PATH).
set -uo pipefail
bin="${DX_BIN:-delta-explain}"
table="${DX_TABLE:?the table input is required}"
budget="${DX_BUDGET:?the budget input is required}"
report="${DX_REPORT:-${RUNNER_TEMP:-/tmp}/delta-explain-budget.json}"
args=("${table}" --budget "${budget}" --format json)
if [ -n "${DX_BASELINE:-}" ]; then
  args+=(--baseline "${DX_BASELINE}")
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  args+=(--summary-md "${GITHUB_STEP_SUMMARY}")
fi
if [ -n "${DX_JUNIT:-}" ]; then
  args+=(--junit "${DX_JUNIT}")
fi
while IFS= read -r option; do
  option="${option#"${option%%[![:space:]]*}"}"
  option="${option%"${option##*[![:space:]]}"}"
  if [ -n "${option}" ]; then
    args+=(--storage-option "${option}")
  fi
done <<< "${DX_STORAGE_OPTIONS:-}"

"${bin}" "${args[@]}" > "${report}"
code=$?
case "${code}" in
  0) result=pass ;;
  1) result=fail ;;
  *) result=error ;;
esac
failed=0
if [ "${code}" -le 1 ] && [ -s "${report}" ]; then
  # The entries whose gates failed or that regressed (jq and python3 are on GitHub's runners).
  if command -v jq >/dev/null 2>&1; then
    failed=$(jq '[.entries[] | select(.result == "fail")] | length' "${report}")
  else
    failed=$(python3 -c 'import json,sys; print(sum(e["result"] == "fail" for e in json.load(open(sys.argv[1]))["entries"]))' "${report}")
  fi
fi
{
  echo "result=${result}"
  echo "failed=${failed}"
  echo "report=${report}"
  echo "exit-code=${code}"
} >> "${GITHUB_OUTPUT:-/dev/null}"
if [ "${code}" -ge 2 ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  echo "**delta-explain** could not run the budget (exit ${code}); see the step's log." >> "${GITHUB_STEP_SUMMARY}"
fi
exit "${code}"
