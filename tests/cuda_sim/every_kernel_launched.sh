#!/usr/bin/env bash
# Every __global__ kernel in the sources appears in the simulator's launch log of this ctest run.
# usage: every_kernel_launched.sh SOURCE_DIR LAUNCH_LOG
set -euo pipefail
src=$1 log=$2
[ -s "$log" ] || { echo "no launch log at $log: no cuda test ran under the simulator"; exit 1; }
# The name after `__global__ void` (and after __launch_bounds__(...), whose arguments nest).
kernels=$(find "$src/core" "$src/apps" "$src/tests" -name '*.cu' -o -name '*.cuh' | sort | xargs perl -0777 -ne \
  'while (/__global__\s+void\s+(?:__launch_bounds__\s*(\((?:[^()]++|(?1))*\))\s*)?(\w+)\s*\(/g) { print "$2\n" }' | sort -u)
launched=$(cut -d' ' -f1 "$log" | sort -u)
missing=$(comm -23 <(echo "$kernels") <(echo "$launched"))
count=$(echo "$kernels" | wc -l)
if [ -n "$missing" ]; then
  echo "kernels never launched in this run (run the whole ctest -L cuda):" $missing
  exit 1
fi
echo "all $count __global__ kernels launched ($(wc -l < "$log") launches):" $kernels
