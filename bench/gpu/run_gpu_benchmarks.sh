#!/usr/bin/env bash
# The GPU benchmarks of docs/BENCHMARKS.md ("GPU"), on one machine: each app on --backend cuda
# against the same app on all the host's cores, the SpMM kernels against cuSPARSE, and (when
# Nsight Compute is there) the xct kernels' times. Run `ctest -L cuda` first.
# usage: bench/gpu/run_gpu_benchmarks.sh BUILD_DIR OUT_DIR   (logs and JSON metrics in OUT_DIR)
set -u
B=${1:?build folder}; OUT=${2:?output folder}; mkdir -p "$OUT"; D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
# Runs NAME COMMAND...: the log and metrics in OUT, one summary line here.
run() {
  local name=$1; shift
  timeout 120 "$@" > "$OUT/$name.log" 2>&1
  local status=$?
  printf '%-22s exit %d  %s\n' "$name" $status "$(grep -E '^(done:|executor:|layers|check:|total)' "$OUT/$name.log" | tail -1 | cut -c1-110)"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
XCT="$B/apps/xct/tessel-xct --phantom 512 --angles 750 --iterations 24"
for backend in cuda cpu; do
  run xct-k16-$backend $XCT --num-slices 16 --backend $backend --metrics "$OUT/xct-k16-$backend.json" --output "$D/a.h5"
  run xct-k16-off-$backend $XCT --num-slices 16 --backend $backend --turn-symmetry off --metrics "$OUT/xct-k16-off-$backend.json" --output "$D/b.h5"
  run xct-k16-stored-$backend $XCT --num-slices 16 --backend $backend --transpose stored --metrics "$OUT/xct-k16-stored-$backend.json" --output "$D/c.h5"
  run xct-k1-$backend $XCT --num-slices 1 --backend $backend --metrics "$OUT/xct-k1-$backend.json" --output "$D/d.h5"
  run xct-fbp-$backend $B/apps/xct/tessel-xct --phantom 512 --angles 750 --num-slices 16 --solver fbp --backend $backend --metrics "$OUT/xct-fbp-$backend.json" --output "$D/e.h5"
done
run spdnn-generate $B/apps/spdnn/tessel-spdnn generate --neurons 1024 --layers 120 --images 60000 --binary --out "$D/dnn"
for kernel in cuda:core cuda:cusparse cpu:auto; do
  run spdnn-${kernel/:/-} $B/apps/spdnn/tessel-spdnn infer --network "$D/dnn" --neurons 1024 --layers 120 --backend ${kernel%:*} \
    --kernel ${kernel#*:} --check "$D/dnn/neuron1024-l120-categories.tsv" --metrics "$OUT/spdnn-${kernel/:/-}.json"
done
ABCD="$B/apps/ccsd_abcd/tessel-abcd --generator synthetic --m 4000 --n 12000 --tile-min 64 --tile-max 256 --density-a 0.3 --density-b 0.2"
for backend in cuda cpu; do run abcd-$backend $ABCD --backend $backend --metrics "$OUT/abcd-$backend.json"; done
run spmm $B/bench/spmm/tessel-bench-spmm --k 8,32 --precision float,double \
  --kernels row-split,tiled-ell,cuda-warp-row,cuda-merge,cuda-tiled-ell,cusparse --json "$OUT/spmm.json"
NCU=$(command -v ncu || { [ -x /usr/local/cuda/bin/ncu ] && echo /usr/local/cuda/bin/ncu; })
if [ -n "$NCU" ]; then
  "$NCU" --clock-control none --section SpeedOfLight --section Occupancy -k 'regex:tiled_ell_kernel|transposed_kernel|backproject' \
    --launch-count 3 $XCT --num-slices 16 --iterations 1 --backend cuda --output "$D/n.h5" > "$OUT/ncu-xct.txt" 2>&1
  grep -E '^  void|Duration|DRAM Throughput|Achieved Occupancy' "$OUT/ncu-xct.txt" | sed 's/([^)]*)//g; s/ \{4,\}/ /g' | cut -c1-100
fi
echo "all in $OUT ($(( $(date +%s) - t0 )) s)"
