#!/usr/bin/env bash
# Installs delta-explain for the action: the release asset of DX_VERSION for this runner when
# one exists, else `cargo install --git` of the action's repository at that ref. A
# delta-explain already on PATH (or DX_BIN) is used as it is.
set -euo pipefail
if [ -n "${DX_BIN:-}" ] && [ -x "${DX_BIN}" ]; then
  echo "using DX_BIN=${DX_BIN}: $("${DX_BIN}" --version)"
  exit 0
fi
if command -v delta-explain >/dev/null 2>&1; then
  echo "using $(command -v delta-explain): $(delta-explain --version)"
  exit 0
fi
repository="${DX_REPOSITORY:?DX_REPOSITORY names the repository to install from}"
version="${DX_VERSION:-latest}"
bin_dir="${RUNNER_TEMP:-/tmp}/delta-explain/bin"
mkdir -p "${bin_dir}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-gnu ;;
  Linux-aarch64) target=aarch64-unknown-linux-gnu ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  *) target="" ;;
esac
asset="delta-explain-${target}.tar.gz"
if [ "${version}" = latest ]; then
  url="https://github.com/${repository}/releases/latest/download/${asset}"
else
  url="https://github.com/${repository}/releases/download/${version}/${asset}"
fi
if [ -n "${target}" ] && curl -fsSL --retry 3 "${url}" -o "${bin_dir}/asset.tar.gz" 2>/dev/null; then
  tar -xzf "${bin_dir}/asset.tar.gz" -C "${bin_dir}"
  rm -f "${bin_dir}/asset.tar.gz"
  echo "installed ${asset} (${version})"
else
  echo "no release asset ${asset} for ${version}: building with cargo install --git"
  ref=()
  if [ "${version}" != latest ]; then
    ref=(--tag "${version}")
  fi
  cargo install --locked --profile dist --git "https://github.com/${repository}" "${ref[@]}" \
    --root "${bin_dir%/bin}" delta-explain
fi
echo "${bin_dir}" >> "${GITHUB_PATH:-/dev/null}"
"${bin_dir}/delta-explain" --version
