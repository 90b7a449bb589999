#!/usr/bin/env bash
# The CUDA code without a GPU: builds the programs that have cuda tests against tessel's CUDA
# simulator (-DTESSEL_ENABLE_CUDA=SIM, docs/core.md) in ${TESSEL_SIM_DIR:-build-sim}, then runs
# every test labelled cuda there. None may be skipped: under the simulator there is a device.
# usage: scripts/test-cuda-sim.sh [extra ctest arguments]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSEL_SIM_DIR:-$root/build-sim}
source "$root/scripts/cuda_programs.sh"
targets=("${cuda_test_programs[@]}")
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=SIM -DTESSEL_BUILD_BENCHMARKS=OFF \
  "${launcher[@]}" > "$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j "${TESSEL_JOBS:-$(nproc)}" --target "${targets[@]}" > "$build.build.log" 2>&1 || {
  grep -E -A3 'error' "$build.build.log" | head -60 >&2; echo "simulator build failed: see $build.build.log" >&2; exit 1; }
echo "== simulator build in $(( $(date +%s) - start )) s"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}  # no spinning beside the other test (scripts/test.sh)
cd "$build"
log=$(mktemp)
status=0
ctest --output-on-failure -j "${TESSEL_TEST_JOBS:-2}" --timeout 600 -L cuda "$@" 2>&1 | tee "$log" || status=$?
if grep -q "(Skipped)" "$log"; then
  echo "test-cuda-sim: cuda tests were skipped under the simulator" >&2
  status=1
fi
rm -f "$log"
exit $status
