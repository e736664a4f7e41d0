#!/usr/bin/env bash
# The Python package's tests, as .ci/run runs them: a virtual environment with the test
# dependencies from PyPI, the package built from this clone with `pip install ./delta-explain-python`
# (maturin; the debug profile unless DX_PYTHON_PROFILE says otherwise, in the workspace's
# build directory, with the feature workspace-build so that after the workspace's build only
# PyO3 and the extension compile), then pytest against the shared fixtures. DX_BIN is the
# delta-explain binary the tests compare with. `--setup-only` makes the environment and stops
# (.ci/run does it while the workspace compiles).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${HOME}/.cache/delta-explain/target}"
venv="${DX_VENV:-${HOME}/.cache/delta-explain/venv}"
if [ ! -x "${venv}/bin/python" ]; then
  python3 -m venv "${venv}"
fi
"${venv}/bin/python" -m pip install -q --disable-pip-version-check \
  "maturin>=1.9,<2" "pytest>=8" "pyarrow>=14" "deltalake>=0.25" "pandas>=1.5" "moto[server]>=5"
if [ "${1:-}" = "--setup-only" ]; then
  exit 0
fi
MATURIN_PEP517_ARGS="--profile ${DX_PYTHON_PROFILE:-dev} --features workspace-build" \
  "${venv}/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps ./delta-explain-python
export DX_BIN="${DX_BIN:-${CARGO_TARGET_DIR}/debug/delta-explain}"
if [ ! -x "${DX_BIN}" ]; then
  cargo build --locked -p delta-explain --bin delta-explain
fi
# From outside the source tree, so `import delta_explain` is the installed package.
cd delta-explain-python/tests
exec "${venv}/bin/python" -m pytest -q -p no:cacheprovider "$@" .
