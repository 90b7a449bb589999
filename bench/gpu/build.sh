#!/usr/bin/env bash
# Builds what a GPU lease runs, on this machine, and packs it: nvcc for sm_90 (H100, H200), the
# host code portable (TESSEL_NATIVE off: the cpu kernels pick their instruction set at run time),
# Release, benchmarks on; then bundle.sh. Only the programs the bundle takes are built (the cuda
# tests' programs, the apps, bench/gpu's and bench/xct's), not the peers' benchmarks.
# usage: bench/gpu/build.sh [BUILD_DIR [BUNDLE]]   (defaults: build-gpu, .gpu/tessel-gpu.tar.xz)
#   then, on the device: bench/gpu/run_bundle.sh BUNDLE OUT [quick|tests|unpack] (carry [".gpu"])
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${1:-$root/build-gpu}"); bundle=${2:-$root/.gpu/tessel-gpu.tar.xz}
nvcc=${CUDACXX:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || { echo "build.sh: no nvcc at $nvcc (set CUDACXX)" >&2; exit 1; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DTESSEL_BUILD_BENCHMARKS=ON "${launcher[@]}" > "$build.configure.log" 2>&1 ||
  { tail -20 "$build.configure.log" >&2; exit 1; }
# The targets: the cuda tests' programs (scripts/cuda_programs.sh; those this configuration has),
# the apps, bench/gpu's and bench/xct's.
source "$root/scripts/cuda_programs.sh"
known=$(cmake --build "$build" --target help | awk '{print $2}')
targets=$(for t in "${cuda_test_programs[@]}" tessel-bench-gpu-limits tessel-bench-bank-order; do
  grep -qxF "$t" <<<"$known" && echo "$t"; done | tr '\n' ' ')
cmake --build "$build" -j "${TESSEL_JOBS:-$(nproc)}" --target $targets > "$build.build.log" 2>&1 ||
  { grep -E -A3 'error' "$build.build.log" | head -40 >&2; echo "build.sh: see $build.build.log" >&2; exit 1; }
echo "build.sh: built $(wc -w <<<"$targets") targets in $(( $(date +%s) - start )) s"
mkdir -p "$(dirname "$bundle")"
bash "$root/bench/gpu/bundle.sh" "$build" "$bundle"
