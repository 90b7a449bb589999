#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds, runs ctest (MPI tests included).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
export TESSEL_BUILD_DIR=${TESSEL_BUILD_DIR:-$root/build}
echo "== building in $TESSEL_BUILD_DIR"
start=$(date +%s)
"$root/scripts/build.sh" "$@"
echo "== built in $(( $(date +%s) - start )) s"
# Root in CI: Open MPI refuses root unless told; oversubscribe lets -n 4 run on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
cd "$TESSEL_BUILD_DIR"
ctest --output-on-failure -j "${TESSEL_TEST_JOBS:-2}" --timeout 600
