#!/usr/bin/env bash
# A short second device call after a change (about 5 minutes on an H200): `ctest -L cuda`, the
# xct CGLS case A B A B against an earlier tessel-xct (bench/gpu/ab_xct.sh), the xct variants
# and the 1024² case with their metrics, spdnn 1024 and 4096 x 120 on cuda (also at block rows
# 512 and 1024), xct's stored case over stage sizes and block rows, abcd's synthetic case (its
# device setup in parts and the first block's device timeline; A B A B against an earlier
# tessel-abcd), Nsight Systems' sums for spdnn 1024 and abcd, and Nsight Compute on the two
# tiled ELL products of one stored iteration and on an early and a late spdnn layer. Run after
# run_bundle.sh ... unpack.
# usage: bench/gpu/recheck.sh BUILD_DIR OUT_DIR [EARLIER_TESSEL_XCT [EARLIER_TESSEL_SPDNN]]
#   (the earlier programs: bench/gpu/earlier.sh COMMIT OUT.tar.xz, unpacked in /opt/tessel-earlier;
#   a tessel-abcd beside EARLIER_TESSEL_SPDNN is compared A B A B too)
set -u
B=${1:?build folder}; out=${2:?output folder}; earlier=${3:-}; earlier_spdnn=${4:-}
mkdir -p "$out"; here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$here/common.sh"
cuda_tests "$B" "$out"
[ -n "$earlier" ] && timeout 120 bash "$here/ab_xct.sh" "$earlier" "$B/apps/xct/tessel-xct" "$out/ab" 2
X="$B/apps/xct/tessel-xct --phantom 512 --angles 750 --num-slices 16 --backend cuda"
for v in "" "--transpose stored" "--transpose stored --bank-order off" "--turn-symmetry off"; do
  name=xct$(echo "$v" | tr -d ' -')
  timeout 60 $X --iterations 24 $v --metrics "$out/$name.json" --output "$tmp/o.h5" > "$out/$name.log" 2>&1
  echo "$name: $(grep -o 'done:.*' "$out/$name.log" | cut -c1-140)"
done
timeout 60 "$B/apps/xct/tessel-xct" --phantom 1024 --angles 1500 --num-slices 64 --iterations 4 --backend cuda \
  --metrics "$out/xct-big.json" --output "$tmp/f.h5" > "$out/xct-big.log" 2>&1
echo "xct-big: $(grep -o 'done:.*' "$out/xct-big.log" | cut -c1-100), last $(grep -o 'SpMM [0-9.]* GFLOP/s' \
  "$out/xct-big.log" | tail -1)"
S="$B/apps/spdnn/tessel-spdnn"
# At the default 256 block rows, then 512 and 1024 (a tile's inputs staged once for two or four
# times the rows; the kernel variants sized for 2048 threads per SM), on the same files.
for n in 1024 4096; do
  timeout 60 "$S" generate --neurons $n --layers 120 --images 60000 --binary --out "$tmp/d$n" > /dev/null 2>&1
  timeout 60 "$S" infer --network "$tmp/d$n" --neurons $n --layers 120 --backend cuda --kernel core --repeat 3 \
    --check "$tmp/d$n/neuron$n-l120-categories.tsv" --metrics "$out/spdnn-$n.json" > "$out/spdnn-$n.log" 2>&1
  echo "spdnn $n: $(grep -E 'check:|inference:' "$out/spdnn-$n.log" | tr '\n' ' ' | cut -c1-200)"
  for rows in 512 1024; do
    log=$out/spdnn-$n-r$rows.log
    timeout 60 "$S" infer --network "$tmp/d$n" --neurons $n --layers 120 --backend cuda --kernel core --repeat 3 \
      --block-rows $rows --check "$tmp/d$n/neuron$n-l120-categories.tsv" --metrics "$out/spdnn-$n-r$rows.json" \
      > "$log" 2>&1
    echo "spdnn $n rows $rows: exit $?, $(grep -E 'inference:' "$log" | cut -c1-60)" \
      "$(grep -o 'check: [A-Z]*' "$log"), $(grep -o 'kernel for [0-9]* x [0-9]*' "$log")"
  done
  rm -rf "$tmp/d$n"
done
# xct's stored case: stages of 512 and 640 entries, where core's kernel variant for six blocks
# of 256 per SM (40 registers) runs instead of four (the default 768: 64 registers either way),
# and blocks of 512 rows; then the 1024² case at 512 entries.
for shape in 256:512 256:640 256:768 512:768 512:1024; do
  name=xct-r${shape%:*}-e${shape#*:}
  timeout 60 $X --transpose stored --iterations 24 --block-rows ${shape%:*} --buffer-entries ${shape#*:} \
    --metrics "$out/$name.json" --output "$tmp/o.h5" > "$out/$name.log" 2>&1
  echo "$name: exit $?, median $(median_ms "$out/$name.log" 16) ms"
done
timeout 60 "$B/apps/xct/tessel-xct" --phantom 1024 --angles 1500 --num-slices 64 --iterations 4 --backend cuda \
  --buffer-entries 512 --metrics "$out/xct-big-e512.json" --output "$tmp/f.h5" > "$out/xct-big-e512.log" 2>&1
echo "xct-big-e512: $(grep -o 'done:.*' "$out/xct-big-e512.log" | cut -c1-100), last $(grep -o 'SpMM [0-9.]* GFLOP/s' \
  "$out/xct-big-e512.log" | tail -1)"
# abcd's executor with its device setup in parts (schedule, streams and handles, buffers, upload).
timeout 60 "$B/apps/ccsd_abcd/tessel-abcd" --generator synthetic --m 8000 --n 24000 --tile-min 512 --tile-max 2048 \
  --density-a 0.3 --density-b 0.2 --backend cuda --repeat 3 --metrics "$out/abcd.json" > "$out/abcd.log" 2>&1
echo "abcd: $(grep -E '^executor: [0-9]' "$out/abcd.log")"
grep -E '^device timeline' "$out/abcd.log"
# spdnn 1024 A B A B against an earlier tessel-spdnn (inference T from each log).
if [ -n "$earlier_spdnn" ]; then
  timeout 60 "$S" generate --neurons 1024 --layers 120 --images 60000 --binary --out "$tmp/d1024" > /dev/null 2>&1
  for r in 1 2; do
    for side in A B; do
      bin=$earlier_spdnn; [ $side = B ] && bin=$S
      timeout 60 "$bin" infer --network "$tmp/d1024" --neurons 1024 --layers 120 --backend cuda --kernel core \
        --repeat 3 > "$out/spdnn-ab-$side-$r.log" 2>&1
      echo "spdnn 1024 $side round $r: $(grep -o 'inference: .*' "$out/spdnn-ab-$side-$r.log" | cut -c1-80)"
    done
  done
fi
# abcd A B A B against an earlier tessel-abcd beside the earlier tessel-spdnn (best of 3 repeats each).
earlier_abcd=${earlier_spdnn%/*}/tessel-abcd
if [ -n "$earlier_spdnn" ] && [ -x "$earlier_abcd" ]; then
  for r in 1 2; do
    for side in A B; do
      bin=$earlier_abcd; [ $side = B ] && bin=$B/apps/ccsd_abcd/tessel-abcd
      timeout 60 "$bin" --generator synthetic --m 8000 --n 24000 --tile-min 512 --tile-max 2048 --density-a 0.3 \
        --density-b 0.2 --backend cuda --repeat 3 > "$out/abcd-ab-$side-$r.log" 2>&1
      echo "abcd $side round $r: $(grep -E '^(executor: [0-9]|repeats:)' "$out/abcd-ab-$side-$r.log" | tr '\n' ' ' | cut -c1-200)"
    done
  done
fi
# Timelines summed (nsys): where spdnn 1024's layer loop and abcd's executor spend their time.
timeout 60 "$S" generate --neurons 1024 --layers 120 --images 60000 --binary --out "$tmp/d1024" > /dev/null 2>&1
nsys_summary "$out" spdnn-1024 "$S" infer --network "$tmp/d1024" --neurons 1024 --layers 120 --backend cuda --kernel core
nsys_summary "$out" abcd "$B/apps/ccsd_abcd/tessel-abcd" --generator synthetic --m 8000 --n 24000 --tile-min 512 \
  --tile-max 2048 --density-a 0.3 --density-b 0.2 --backend cuda --repeat 2
ncu_products "$out" $X --transpose stored --output "$tmp/n.h5"
# Nsight Compute on one early and one late spdnn 1024 layer (layers 2 and 61 of the fused
# kernel, all 120 layers run: the generated network's binary cache holds 120): occupancy,
# registers, waves, the L2's load (the sectors the output's stores write).
ncu_bin=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for at in early:1 late:60; do
  timeout 60 "$ncu_bin" --clock-control none --set detailed --section WarpStateStats -k regex:fused_layer_kernel \
    --launch-skip ${at#*:} --launch-count 1 "$S" infer --network "$tmp/d1024" --neurons 1024 --layers 120 \
    --backend cuda --kernel core > "$out/ncu-spdnn-${at%:*}.txt" 2>&1
done
grep -hE 'Duration|Registers Per Thread|Waves Per SM|Achieved Occupancy|L2 Cache Throughput|Compression Input' \
  "$out"/ncu-spdnn-*.txt
