#!/usr/bin/env bash
# spdnn's row groups on one card (about 3 minutes on an H200, most of it generating the problems):
# 60000 generated images through 120 layers of 1024 and 4096 neurons, the tiled layer kernel
# (R = 8; 4 and 16) against the row-group kernel (G = 2, 4, 8; G = 4 at R = 16 and in blocks of 1024
# rows, whose 256 threads stage as many inputs each as the tiled kernel's 256; G = 4 in the first 8
# layers only, the tiled kernel on the late ones), output neurons
# with equal inputs side by side (--reorder on), and the cuSPARSE path for the ratio; best of 3
# repeats each, every run checked against the categories, with layer 1's time and the late
# layers'. Then Nsight Compute on layers 1 and 101 of the tiled and G = 4 kernels at the last
# size, and the kernels' inner loops as compiled (sass_loops.py, when cuobjdump is there). Run
# after run_bundle.sh ... unpack.
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
  "tiled-r4|--kernel core --register 4"
  "tiled-r16|--kernel core --register 16"
  "tiled-reorder|--kernel core --reorder on"
  "g2|--kernel core --reorder on --row-groups 2"
  "g4|--kernel core --reorder on --row-groups 4"
  "g4-r16|--kernel core --reorder on --row-groups 4 --register 16"
  "g4-b1024|--kernel core --reorder on --row-groups 4 --block-rows 1024"
  "g4-first8|--kernel core --reorder on --row-groups 4 --row-group-layers 8"
  "g8|--kernel core --reorder on --row-groups 8"
  "cusparse|--kernel cusparse"
)
# summary LOG: T and the rate, the check, layer 1's seconds and the last layers' per layer (the
# early layers are throughput, the late ones latency).
summary() {
  local first late
  first=$(grep -E '^  1: ' "$1" | awk '{print $3}')
  late=$(grep -o -E '\([0-9.e-]+ s per layer\)' "$1" | tail -1)
  echo "$(grep -E '^(inference|check):' "$1" | tr '\n' ' ' | cut -c1-100) layer 1 ${first:--} s, late ${late:--}"
}
for n in $sizes; do
  "$S" generate --neurons $n --layers 120 --images "$images" --binary --out "$tmp/$n" > /dev/null || exit 1
  for v in "${variants[@]}"; do
    name=$n-${v%%|*}; extra=${v#*|}
    timeout 90 "$S" infer --network "$tmp/$n" --neurons $n --layers 120 --backend cuda $extra --repeat 3 \
      --check "$tmp/$n/neuron$n-l120-categories.tsv" --metrics "$out/$name.json" > "$out/$name.log" 2>&1
    echo "$name: exit $?, $(summary "$out/$name.log")"
  done
done
# Nsight Compute at the last size on layer 1 (60000 images) and layer 101 (a few hundred) of the
# tiled and the G = 4 kernels.
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for k in "fused_layer_kernel|--kernel core --reorder on" "grouped_layer_kernel|--kernel core --reorder on --row-groups 4"; do
  for skip in 0 100; do
    name=ncu-${k%%|*}-$skip
    timeout 90 "$ncu" --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy -k "regex:${k%%|*}" \
      --launch-skip $skip --launch-count 1 "$S" infer --network "$tmp/$n" --neurons $n --layers 120 --backend cuda \
      ${k#*|} > "$out/$name.txt" 2>&1
    echo "$name: $(grep -E 'Duration|Issue Slots Busy|Shared Memory|L1/TEX Cache Throughput|Warp Cycles Per Issued|Achieved Occupancy' \
      "$out/$name.txt" | sed 's/ \{2,\}/ /g' | tr '\n' ';' | cut -c1-300)"
  done
done
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$cuobjdump" ]; then
  "$cuobjdump" -sass "$S" 2>/dev/null | python3 "$(dirname "$0")/sass_loops.py" --kernel '(grouped|fused)_layer_kernel' \
    > "$out/sass-loops-spdnn.txt"
  cat "$out/sass-loops-spdnn.txt"
fi
