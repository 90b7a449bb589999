#!/usr/bin/env bash
# spdnn's row groups on one card (about 3 minutes on an H200, most of it generating the problems):
# 60000 generated images through 120 layers of 1024 and 4096 neurons, the tiled layer kernel
# against the row-group kernel (G = 2, 4, 8; G = 4 at R = 16 and in blocks of 1024 rows, whose 256
# threads stage as many inputs each as the tiled kernel's 256), output neurons with equal inputs
# side by side (--reorder on), and the cuSPARSE path for the ratio; best of 3 repeats each, every
# run checked against the categories. Then Nsight Compute on the first layers of G = 4 at the last size
# (issue, shared memory, stalls) and the kernels' inner loops as compiled (sass_loops.py, when
# cuobjdump is there). Run after run_bundle.sh ... unpack.
# usage: bench/gpu/spdnn_row_groups.sh BUILD_DIR OUT_DIR   (to try it: SPDNN_IMAGES=64 SPDNN_SIZES=1024)
set -u
B=${1:?build folder}; out=${2:?output folder}
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/common.sh"
S="$B/apps/spdnn/tessel-spdnn"
images=${SPDNN_IMAGES:-60000}
sizes=${SPDNN_SIZES:-1024 4096}
variants=(
  "tiled|--kernel core"
  "tiled-reorder|--kernel core --reorder on"
  "g2|--kernel core --reorder on --row-groups 2"
  "g4|--kernel core --reorder on --row-groups 4"
  "g4-r16|--kernel core --reorder on --row-groups 4 --register 16"
  "g4-b1024|--kernel core --reorder on --row-groups 4 --block-rows 1024"
  "g8|--kernel core --reorder on --row-groups 8"
  "cusparse|--kernel cusparse"
)
for n in $sizes; do
  "$S" generate --neurons $n --layers 120 --images "$images" --binary --out "$tmp/$n" > /dev/null || exit 1
  for v in "${variants[@]}"; do
    name=$n-${v%%|*}; extra=${v#*|}
    timeout 90 "$S" infer --network "$tmp/$n" --neurons $n --layers 120 --backend cuda $extra --repeat 3 \
      --check "$tmp/$n/neuron$n-l120-categories.tsv" --metrics "$out/$name.json" > "$out/$name.log" 2>&1
    status=$?
    echo "$name: exit $status, $(grep -E '^(inference|check):' "$out/$name.log" | tr '\n' ' ' | cut -c1-140)"
  done
done
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timeout 120 "$ncu" --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats \
  --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy -k regex:grouped_layer_kernel --launch-count 2 \
  "$S" infer --network "$tmp/$n" --neurons $n --layers 120 --backend cuda --kernel core --reorder on --row-groups 4 \
  > "$out/ncu-spdnn-groups.txt" 2>&1
grep -E 'Duration|Issue Slots Busy|Executed Ipc Active|Shared Memory|L2 Cache Throughput|DRAM Throughput|Warp Cycles Per Issued|Achieved Occupancy' \
  "$out/ncu-spdnn-groups.txt" | sed 's/ \{3,\}/ /g' | cut -c1-110 | head -20
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$cuobjdump" ]; then
  "$cuobjdump" -sass "$S" 2>/dev/null | python3 "$(dirname "$0")/sass_loops.py" --kernel '(grouped|fused)_layer_kernel' \
    > "$out/sass-loops-spdnn.txt"
  cat "$out/sass-loops-spdnn.txt"
fi
