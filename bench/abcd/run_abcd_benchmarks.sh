#!/usr/bin/env bash
# The tessel-abcd table of docs/BENCHMARKS.md: each problem on 1 rank x all cores and on
# 2 ranks x (cores / 2), tessel-abcd (cpu) and libDBCSR side by side; JSON into $OUT.
# usage: bench/abcd/run_abcd_benchmarks.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
build=${1:-build}
out=${2:-bench-abcd-results}
mkdir -p "$out"
bin="$build/bench/abcd/tessel-bench-abcd"
cores=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
problems=(
  "synthetic-2000|--generator synthetic --m 2000 --n 24000 --tile-min 512 --tile-max 2048 --density-a 0.3 --density-b 0.1"
  "synthetic-8000|--generator synthetic --m 8000 --n 24000 --tile-min 512 --tile-max 2048 --density-a 0.3 --density-b 0.1"
  "molecule-C24H50|--generator molecule --length 24 --basis minimal --cluster-size 16"
  "molecule-C6H14-svp|--generator molecule --length 6"
)
for entry in "${problems[@]}"; do
  name=${entry%%|*}
  args=${entry#*|}
  for ranks in 1 2; do
    threads=$((cores / ranks))
    # Open MPI binds each rank to one core by default: a rank with several threads must not be.
    bind=()
    [ "$threads" -gt 1 ] && bind=(--bind-to none)
    echo "== $name on $ranks rank(s) x $threads thread(s)"
    # shellcheck disable=SC2086
    mpiexec -n "$ranks" --oversubscribe "${bind[@]}" -x OMP_NUM_THREADS="$threads" "$bin" $args --label "$name" \
      --repeat "${REPEAT:-3}" --json "$out/$name-$ranks.json" ${EXTRA:-}
  done
done
