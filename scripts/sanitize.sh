#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer build of chosen test executables in
# ${TESSEL_ASAN_DIR:-build-asan} (CPU only, -O0 -g), then runs their tests under ctest.
# -O0: the build is most of this script's time and the tests a few seconds; -O1 compiled the
# kernels' template instances 5x slower (docs/RELIABILITY.md "CI's time").
# Chosen to keep CI within its time on 2 cores (docs/RELIABILITY.md says why these):
#   tessel-test-io          every reader and writer, their bad inputs (parsers: where memory bugs live)
#   tessel-test-bad-inputs  the bad-input catalogue's library cases (core/app, atomic outputs)
#   tessel-test-mpi-comm    the MPI runtime (topology, exchange plans and executors), 2 ranks
#   tessel-test-mpi-dist    the distributed SpMMs against the serial reference, 2 ranks
# usage: scripts/sanitize.sh [extra ctest arguments]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSEL_ASAN_DIR:-$root/build-asan}
targets=(tessel-test-io tessel-test-bad-inputs tessel-test-mpi-comm tessel-test-mpi-dist)
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
  -DTESSEL_ENABLE_CUDA=OFF -DTESSEL_BUILD_BENCHMARKS=OFF "${launcher[@]}" > "$build.configure.log" 2>&1 || {
  cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j "${TESSEL_JOBS:-2}" --target "${targets[@]}" > "$build.build.log" 2>&1 || {
  grep -E -A3 'error' "$build.build.log" | head -40 >&2; echo "sanitizer build failed: see $build.build.log" >&2; exit 1; }
echo "== sanitizer build in $(( $(date +%s) - start )) s"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=2
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}  # no spinning beside the other test (scripts/test.sh)
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$build"
# Unit tests with leak detection; MPI tests without (Open MPI keeps allocations past Finalize).
ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j "${TESSEL_TEST_JOBS:-2}" --timeout 600 \
  -R '^tessel-test-(io|bad-inputs):' "$@"
ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure --timeout 600 -R '^mpi-(comm|dist)-n2$' "$@"
