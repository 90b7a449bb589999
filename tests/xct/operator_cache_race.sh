#!/bin/sh
# Two tessel-xct runs started together fill one --operator-cache folder: both build (neither
# finds a file), both store, and both volumes equal an uncached run's bit for bit; the folder
# then holds one whole cache file and no temporary, which a third run loads.
# usage: operator_cache_race.sh TESSEL_XCT TEST_TOOL WORK_DIR
set -eu
xct=$1 tool=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
# Large enough that each build (about half a second) outlasts the gap between the two starts.
args="--phantom 160 --angles 240 --num-slices 2 --iterations 4 --transpose stored"
"$xct" $args --quiet --output "$dir/plain.h5"
"$xct" $args --operator-cache "$dir/cache" --output "$dir/run-1.h5" > "$dir/run-1.log" 2>&1 &
one=$!
"$xct" $args --operator-cache "$dir/cache" --output "$dir/run-2.h5" > "$dir/run-2.log" 2>&1 &
two=$!
wait $one || { cat "$dir/run-1.log"; exit 1; }
wait $two || { cat "$dir/run-2.log"; exit 1; }
for run in 1 2; do
  grep -q "operator: stored in" "$dir/run-$run.log" || {
    cat "$dir/run-$run.log"; echo "run $run did not build and store (the runs did not overlap)"; exit 1; }
  "$tool" compare "$dir/plain.h5" "$dir/run-$run.h5" 0
done
set -- "$dir"/cache/*
[ $# -eq 1 ] && case $1 in */xct-op-*.bin) ;; *) false ;; esac || { echo "cache folder holds: $*"; exit 1; }
"$xct" $args --operator-cache "$dir/cache" --output "$dir/run-3.h5" | grep "operator: loaded from"
"$tool" compare "$dir/plain.h5" "$dir/run-3.h5" 0
echo "both concurrent runs equal the uncached volume; one cache file, loaded by a third run"
