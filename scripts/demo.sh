#!/usr/bin/env bash
# The main job on built-in data: installs what is missing, builds, runs the demo of every
# part that exists, and prints where the results are.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
export TESSEL_BUILD_DIR=${TESSEL_BUILD_DIR:-$root/build}
echo "== building tessel in $TESSEL_BUILD_DIR (Release)"
"$root/scripts/build.sh" "$@"
out=${TESSEL_DEMO_OUT:-$root/demo-output}
mkdir -p "$out"
bin="$TESSEL_BUILD_DIR"

echo "== SpMM kernels on built-in matrices (tessel-bench-spmm --quick)"
"$bin/bench/spmm/tessel-bench-spmm" --quick --json "$out/spmm.json"

echo
echo "== results"
echo "  SpMM table (JSON): $out/spmm.json"
