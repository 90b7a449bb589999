#!/usr/bin/env bash
# Two tessel-xct binaries on one card, A B A B: 16 slices of the 512² x 750 phantom, 24 CGLS
# iterations, default options and --transpose stored, ROUNDS times each. Prints each run's
# median iteration (read from its per-iteration lines) and whole process; logs in OUT_DIR.
# usage: bench/gpu/ab_xct.sh A_BINARY B_BINARY OUT_DIR [ROUNDS]
set -u
a=${1:?binary A}; b=${2:?binary B}; out=${3:?output folder}; rounds=${4:-2}
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/common.sh"
for r in $(seq "$rounds"); do
  for variant in default stored; do
    extra=(); [ $variant = stored ] && extra=(--transpose stored)
    for side in A B; do
      bin=$a; [ $side = B ] && bin=$b
      log="$out/xct-$variant-$side-$r.log"
      timeout 100 "$bin" --phantom 512 --angles 750 --num-slices 16 --iterations 24 --backend cuda "${extra[@]}" \
        --output "$tmp/x.h5" > "$log" 2>&1
      status=$?
      printf '%-8s %s round %d: exit %d, median iteration %s ms, whole %s s\n' "$variant" "$side" "$r" $status \
        "$(median_ms "$log" 16)" "$(grep -o 'total [0-9][0-9.]*' "$log" | cut -d' ' -f2)"
    done
  done
done
