#!/usr/bin/env bash
# NVIDIA compute-sanitizer over the cuda code on a real GPU (the simulator cannot see global
# races, shared-memory hazards or uninitialised device reads): memcheck on every cuda unit case
# and small runs of the three apps, racecheck, synccheck and initcheck on the kernels with
# shared memory. Races reported inside cuSPARSE's own kernels are counted apart (library code,
# not tessel's). Needs an AUTO or ON build with a device.
# usage: scripts/cuda-sanitize.sh BUILD_DIR OUT_DIR   (one log per check in OUT_DIR)
set -u
B=${1:?build folder}; OUT=${2:?output folder}; mkdir -p "$OUT"; D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$CS" ] || { echo "cuda-sanitize: no compute-sanitizer" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
failed=0
# check NAME SECONDS SANITIZER_ARGS... -- runs one check; its own races (not cuSPARSE's) fail it.
check() {
  local name=$1 limit=$2; shift 2
  timeout "$limit" "$CS" "$@" > "$OUT/$name.log" 2>&1
  local status=$?
  local ours; ours=$(grep "Race reported" "$OUT/$name.log" | grep -vc cusparse)
  local library; library=$(grep "Race reported" "$OUT/$name.log" | grep -c cusparse)
  local errors; errors=$(grep -oE "(ERROR|RACECHECK) SUMMARY: [0-9]* (error|hazard)s?" "$OUT/$name.log" | tail -1)
  printf '%-16s exit %3d  %s  races: %d ours, %d in cuSPARSE\n' "$name" "$status" "${errors:-no summary}" "$ours" "$library"
  if [ "$ours" -gt 0 ] || { [ "$status" -ne 0 ] && [ "$library" -eq 0 ]; }; then failed=1; fi
}
T="$B/tests/core/tessel-test-core"
check core-memcheck 300 --tool memcheck --leak-check full --error-exitcode 9 "$T" "[cuda]"
check abcd-memcheck 120 --tool memcheck --error-exitcode 9 "$B/tests/abcd/tessel-test-abcd" "[cuda]"
check core-racecheck 300 --tool racecheck --error-exitcode 9 "$T" "[cuda][operator],[cuda][device],[cuda][spmm]"
check core-synccheck 120 --tool synccheck --error-exitcode 9 "$T" "[cuda][operator],[cuda][device]"
check core-initcheck 120 --tool initcheck --error-exitcode 9 "$T" "[cuda][operator],[cuda][device]"
X="$B/apps/xct/tessel-xct --phantom 128 --angles 96 --num-slices 4 --backend cuda"
check xct-fbp 60 --tool memcheck --error-exitcode 9 $X --solver fbp --output "$D/a.h5"
check xct-cgls 120 --tool memcheck --error-exitcode 9 $X --iterations 2 --output "$D/b.h5"
check xct-scatter-race 120 --tool racecheck --error-exitcode 9 $X --iterations 1 --output "$D/c.h5"
check xct-stored-race 120 --tool racecheck --error-exitcode 9 $X --iterations 1 --transpose stored --output "$D/d.h5"
"$B/apps/spdnn/tessel-spdnn" generate --neurons 1024 --layers 4 --images 600 --binary --out "$D/dnn" > /dev/null 2>&1
check spdnn 120 --tool memcheck --error-exitcode 9 "$B/apps/spdnn/tessel-spdnn" infer --network "$D/dnn" --neurons 1024 \
  --layers 4 --backend cuda --kernel core
check abcd 120 --tool memcheck --error-exitcode 9 "$B/apps/ccsd_abcd/tessel-abcd" --generator synthetic --m 300 --n 600 \
  --tile-min 16 --tile-max 64 --backend cuda --dgemm-size 0
[ $failed -eq 0 ] && echo "cuda-sanitize: no error in tessel's code" || echo "cuda-sanitize: errors above (logs in $OUT)"
exit $failed
