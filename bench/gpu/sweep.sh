#!/usr/bin/env bash
# The cuda defaults' neighbours on one card (about 3 minutes on an H200): `ctest -L cuda`, then
# xct CGLS (16 slices of 512² x 750, --transpose stored) over stage sizes and block rows, spdnn
# 1024 x 120 over block rows and register tiles, spdnn 16384 x 120 at its defaults, and Nsight
# Compute on one stored iteration's tiled ELL products. Run after run_bundle.sh ... unpack.
# usage: bench/gpu/sweep.sh BUILD_DIR OUT_DIR
set -u
B=${1:?build folder}; out=${2:?output folder}
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/common.sh"
cuda_tests "$B" "$out"
X="$B/apps/xct/tessel-xct --phantom 512 --angles 750 --num-slices 16 --backend cuda --transpose stored"
for entries in 512 768 1024 2048; do
  for rows in 128 256; do
    name=xct-e$entries-r$rows
    timeout 60 $X --iterations 24 --buffer-entries $entries --block-rows $rows --metrics "$out/$name.json" \
      --output "$tmp/o.h5" > "$out/$name.log" 2>&1
    echo "$name: exit $?, median $(median_ms "$out/$name.log" 16) ms, whole $(grep -o 'total [0-9][0-9.]*' "$out/$name.log" | cut -d' ' -f2) s"
  done
done
timeout 60 $X --iterations 24 --register-factor 8 --metrics "$out/xct-f8.json" --output "$tmp/o.h5" > "$out/xct-f8.log" 2>&1
echo "xct-f8: exit $?, median $(median_ms "$out/xct-f8.log" 16) ms"
S="$B/apps/spdnn/tessel-spdnn"
timeout 60 "$S" generate --neurons 1024 --layers 120 --images 60000 --binary --out "$tmp/d1024" > /dev/null 2>&1
for rows in 128 256; do
  for reg in 0 8 32; do
    name=spdnn-1024-r$rows-f$reg; extra=(); [ $reg -gt 0 ] && extra=(--register $reg)
    timeout 60 "$S" infer --network "$tmp/d1024" --neurons 1024 --layers 120 --backend cuda --kernel core --repeat 3 \
      --block-rows $rows "${extra[@]}" --check "$tmp/d1024/neuron1024-l120-categories.tsv" --metrics "$out/$name.json" > "$out/$name.log" 2>&1
    echo "$name: exit $?, $(grep -E 'inference:' "$out/$name.log" | cut -c1-60) $(grep -o 'check: [A-Z]*' "$out/$name.log")"
  done
done
rm -rf "$tmp/d1024"
timeout 90 "$S" generate --neurons 16384 --layers 120 --images 60000 --binary --out "$tmp/d16384" > /dev/null 2>&1
timeout 60 "$S" infer --network "$tmp/d16384" --neurons 16384 --layers 120 --backend cuda --kernel core --repeat 3 \
  --check "$tmp/d16384/neuron16384-l120-categories.tsv" --metrics "$out/spdnn-16384.json" > "$out/spdnn-16384.log" 2>&1
echo "spdnn-16384: exit $?, $(grep -E 'inference:' "$out/spdnn-16384.log" | cut -c1-60) $(grep -o 'check: [A-Z]*' "$out/spdnn-16384.log")"
ncu_products "$out" $X --output "$tmp/n.h5"
