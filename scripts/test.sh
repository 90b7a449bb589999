#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds, runs ctest (MPI tests included).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
# ccache's paths relative to the tree, for every build below (scripts/build.sh); the sanitizer
# build's debug information would otherwise tie its objects to this clone's path.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
export TESSEL_BUILD_DIR=${TESSEL_BUILD_DIR:-$root/build}
echo "== building in $TESSEL_BUILD_DIR"
start=$(date +%s)
# Without an NVIDIA device (CI), nvcc, where installed, compiles the CUDA code for one virtual
# architecture: nothing here can run it, the build only checks that it compiles (40 % of nvcc's
# time saved); the pip build below gets the same flag, so its objects come from ccache. With a
# device, the default architectures (80 and 90, real code).
if nvidia-smi -L >/dev/null 2>&1; then
  cuda_arch="80;90"
else
  cuda_arch="90-virtual"
fi
export TESSEL_CMAKE_ARGS="${TESSEL_CMAKE_ARGS:-} -DCMAKE_CUDA_ARCHITECTURES=$cuda_arch"
"$root/scripts/build.sh" "-DCMAKE_CUDA_ARCHITECTURES=$cuda_arch" "$@"
echo "== built in $(( $(date +%s) - start )) s"
# Root in CI: Open MPI refuses root unless told; oversubscribe lets -n 4 run on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
# OpenMP threads sleep at barriers instead of spinning: ctest runs two tests at once on CI's 2
# cores, where libgomp's default spin took the core the other test needed (the tiled-ELL tests
# ran 1.9-2.2x longer; docs/RELIABILITY.md "CI's time"). Tests time nothing, so nothing is lost.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
cd "$TESSEL_BUILD_DIR"
ctest --output-on-failure -j "${TESSEL_TEST_JOBS:-2}" --timeout 600
# The CUDA code on the simulated device (issue 25; docs/core.md): every cuda test, none skipped.
# TESSEL_SKIP_CUDA_SIM=1 leaves it out of a local run.
if [ "${TESSEL_SKIP_CUDA_SIM:-0}" != 1 ]; then
  echo "== CUDA simulator build and cuda tests"
  "$root/scripts/test-cuda-sim.sh"
fi
# pip for Python users (issue 26; scripts/test-pip.sh): a fresh venv, `pip install .`, a tiny
# reconstruction with the installed package. TESSEL_SKIP_PIP=1 leaves it out of a local run.
if [ "${TESSEL_SKIP_PIP:-0}" != 1 ]; then
  echo "== pip install in a fresh venv"
  "$root/scripts/test-pip.sh"
fi
# Sanitizers and fuzzing (issue 14; docs/RELIABILITY.md): TESSEL_SKIP_SANITIZERS=1 or
# TESSEL_FUZZ_SECONDS=0 leave them out of a local run.
if [ "${TESSEL_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== ASan + UBSan build and tests"
  "$root/scripts/sanitize.sh"
fi
if [ "${TESSEL_FUZZ_SECONDS:-30}" != 0 ]; then
  echo "== fuzzing, ${TESSEL_FUZZ_SECONDS:-30} s per reader"
  "$root/scripts/fuzz.sh" "${TESSEL_FUZZ_SECONDS:-30}"
fi
