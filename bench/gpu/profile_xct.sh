#!/usr/bin/env bash
# Nsight Compute on xct's device kernels (forward tiled ELL on the stored Aᵀ path, transposed
# scatter on the default path) and a register-tile sweep of the stored path, 16 slices of
# 512² x 750. usage: bench/gpu/profile_xct.sh BUILD_DIR OUT_DIR
set -u
B=${1:?build folder}; OUT=${2:?output folder}; mkdir -p "$OUT"
N=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
X="$B/apps/xct/tessel-xct --phantom 512 --angles 750 --num-slices 16 --backend cuda --output /tmp/profile-xct.h5"
S="--clock-control none --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section LaunchStats"
timeout 120 "$N" $S -k regex:tiled_ell_kernel --launch-count 2 $X --iterations 1 --transpose stored --buffer-entries 1024 \
  > "$OUT/ncu-forward.txt" 2>&1
timeout 120 "$N" $S -k regex:transposed_kernel --launch-count 1 $X --iterations 1 > "$OUT/ncu-scatter.txt" 2>&1
for f in "$OUT"/ncu-*.txt; do
  echo "== $f"
  grep -E '^  [a-z_].*kernel|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Stall|Shared Memory Configuration Size|Bank' "$f" | sed 's/ \{3,\}/ /g' | cut -c1-110 | head -40
done
for r in 8 16 32; do
  for e in 1024 4096; do
    printf 'stored R=%-2s entries=%s: ' $r $e
    $X --iterations 24 --transpose stored --register-factor $r --buffer-entries $e 2>&1 | grep -o '[0-9.]* s/iteration' | head -1
  done
done
