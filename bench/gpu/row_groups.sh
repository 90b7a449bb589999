#!/usr/bin/env bash
# xct's row groups on one card (about 6 minutes on an H200, most of it the host's build of each
# operator): CGLS on 64 slices of the 1024² x 1500 phantom, 4 iterations, the tiled default
# against row groups (G = 4 with 1536- and 3072-entry stages, fp32 and --precision mixed; G = 2 at
# R = 32), each run's median SpMM rate as its log reports it; then Nsight Compute on the G = 4 kernel
# (issue, shared-memory and L2 figures) and the row-group and tiled kernels' inner loops as
# compiled (sass_loops.py, when cuobjdump is there). Run after run_bundle.sh ... unpack.
# usage: bench/gpu/row_groups.sh BUILD_DIR OUT_DIR
set -u
B=${1:?build folder}; out=${2:?output folder}
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/common.sh"
X="$B/apps/xct/tessel-xct --phantom 1024 --angles 1500 --num-slices 64 --backend cuda"
groups4="--row-groups 4 --block-rows 1024 --register-factor 16"
variants=(
  "default|"
  "g4-e1536|$groups4 --buffer-entries 1536"
  "g4-e1536-mixed|$groups4 --buffer-entries 1536 --precision mixed"
  "g4-e3072|$groups4 --buffer-entries 3072"
  "g2-e1536-r32|--row-groups 2 --block-rows 1024 --register-factor 32 --buffer-entries 1536"
)
for v in "${variants[@]}"; do
  name=${v%%|*}; extra=${v#*|}
  timeout 150 $X --iterations 4 $extra --metrics "$out/$name.json" --output "$tmp/x.h5" > "$out/$name.log" 2>&1
  status=$?
  spmm=$(grep -o -E 'SpMM [0-9.]+ GFLOP/s' "$out/$name.log" | awk '{print $2}' | sort -n |
    awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "-"}')
  echo "$name: exit $status, median iteration $(median_ms "$out/$name.log" 64) ms, SpMM $spmm GFLOP/s (median)"
done
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 150 "$ncu" --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats \
  --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy -k regex:grouped_ell_kernel --launch-count 2 \
  $X --iterations 1 $groups4 --buffer-entries 1536 --output "$tmp/n.h5" > "$out/ncu-groups.txt" 2>&1
grep -E 'Duration|Issue Slots Busy|Executed Ipc Active|Shared Memory|L2 Cache Throughput|DRAM Throughput|Warp Cycles Per Issued|Achieved Occupancy|Stall' \
  "$out/ncu-groups.txt" | sed 's/ \{3,\}/ /g' | cut -c1-110 | head -30
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$cuobjdump" ]; then
  # Every inner loop: fp32 and half-value loops of one kernel are separate loops.
  "$cuobjdump" -sass "$B/apps/xct/tessel-xct" 2>/dev/null |
    python3 "$(dirname "$0")/sass_loops.py" --all --kernel '(grouped|tiled)_ell_kernel<(4, 16|16), true, (1, )?float, int' \
    > "$out/sass-loops.txt"
  cat "$out/sass-loops.txt"
fi
