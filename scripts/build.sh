#!/usr/bin/env bash
# Configures and builds tessel (Release) into ${TESSEL_BUILD_DIR:-build}. Extra arguments go
# to cmake (for example -DTESSEL_ENABLE_CUDA=OFF).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSEL_BUILD_DIR:-$root/build}
jobs=${TESSEL_JOBS:-$(nproc)}
# ccache (when installed) makes rebuilds of unchanged files free, in CI on the same machine too.
# Paths under the tree are hashed relative to it, so a fresh clone at another path (CI's) hits
# the objects an earlier clone compiled.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@" > "$build.configure.log" 2>&1 || {
  cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j "$jobs" > "$build.build.log" 2>&1 || {
  grep -E -A3 'error|Error' "$build.build.log" | head -60 >&2; echo "build failed: see $build.build.log" >&2; exit 1; }
