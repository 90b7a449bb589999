#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ with clang (ASan + UBSan) in ${TESSEL_FUZZ_DIR:-build-fuzz}
# and runs each for SECONDS (default 30) on one core, from the seed corpus in fuzz/corpus/<name>
# (new inputs go to a working corpus in the build folder, the repository's stays as it is).
# usage: scripts/fuzz.sh [SECONDS] [FUZZER...]     e.g. scripts/fuzz.sh 600 matrix_market
# Exit 1 on any finding (its reproducer is left in the build folder as crash-*, leak-*, timeout-*).
# Skipped (exit 0, one line) when clang or its libFuzzer runtime is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-30}
shift || true
build=${TESSEL_FUZZ_DIR:-$root/build-fuzz}
cxx=$(command -v clang++ || true)
if [ -z "$cxx" ] || ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long){return 0;}' |
     "$cxx" -x c++ -fsanitize=fuzzer,address,undefined - -o /tmp/tessel-fuzz-probe.$$ 2>/dev/null; then
  echo "fuzz.sh: skipped: clang++ with libFuzzer (clang, libclang-rt-14-dev) not installed"
  exit 0
fi
rm -f /tmp/tessel-fuzz-probe.$$
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cc=$(command -v clang || echo cc)
cmake -S "$root/fuzz" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" "${launcher[@]}" \
  > "$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j "${TESSEL_JOBS:-2}" > "$build.build.log" 2>&1 || {
  grep -E -A3 'error' "$build.build.log" | head -40 >&2; exit 1; }
fuzzers=("$@")
[ ${#fuzzers[@]} -eq 0 ] && fuzzers=(matrix_market graph_challenge_layer graph_challenge_categories memxct_raw byte_size abcd_grid
                                     xct_operator_cache data_exchange xct_checkpoint xct_slice_store spdnn_cache
                                     abcd_problem_file abcd_xyz abcd_amplitudes)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/fuzz/lsan.supp:print_suppressions=0}
export OMP_NUM_THREADS=1
# One fuzzer: its run, then one summary line in $build/$name.summary; returns 1 on a finding.
fuzz_one() {
  local name=$1
  local work="$build/corpus/$name"
  mkdir -p "$work"
  # Inputs that once were findings stay in the corpus (fuzz/regressions/<name>).
  local regressions=""
  [ -d "$root/fuzz/regressions/$name" ] && regressions="$root/fuzz/regressions/$name"
  # -rss_limit_mb and -malloc_limit_mb: an input that makes a reader ask for more than 2 GiB
  # is a finding (sizes must be checked before allocating), not an out-of-memory of the machine.
  # HDF5 itself mallocs what a damaged file's metadata says and handles a NULL: for the HDF5
  # readers, huge mallocs return NULL (ASan) instead of being findings; an unchecked size of
  # tessel's own then surfaces as std::bad_alloc, which is still a finding.
  # A damaged superblock makes Debian's HDF5 1.10 fill a 4 GiB buffer (4.7 GB resident, 5 s;
  # fuzz/hdf5_findings/superblock-4gib-buffer) before it fails: their RSS limit is 6 GiB.
  local malloc_limit=2048 rss_limit=2560
  # Mutating a damaged HDF5 file soon reaches HDF5's own crashes (a NULL from a huge malloc
  # copied into: fuzz/hdf5_findings/null-malloc-memcpy, whole stack inside libhdf5), so by
  # default these replay their corpus and regressions only (deterministic, for CI);
  # TESSEL_FUZZ_HDF5_MUTATE=1 fuzzes them, and a finding's stack then says whose it is.
  local mode=(-max_total_time="$seconds")
  case $name in
    data_exchange|xct_checkpoint|xct_slice_store|spdnn_cache|abcd_problem_file|abcd_amplitudes)
      malloc_limit=1048576 rss_limit=6144
      [ "${TESSEL_FUZZ_HDF5_MUTATE:-0}" = 1 ] || mode=(-runs=0) ;;
  esac
  if (cd "$build" && ASAN_OPTIONS="$ASAN_OPTIONS:allocator_may_return_null=$([ $malloc_limit = 2048 ] && echo 0 || echo 1)" \
        "./fuzz_$name" "${mode[@]}" -rss_limit_mb=$rss_limit -malloc_limit_mb=$malloc_limit \
        -timeout=10 -max_len=65536 -print_final_stats=1 "$work" "$root/fuzz/corpus/$name" $regressions > "$build/$name.log" 2>&1); then
    echo "fuzz $name: $(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$build/$name.log" | grep -Eo '[0-9]+$') runs$([ "${mode[0]}" = -runs=0 ] && echo ' (corpus replay)' || echo " in ${seconds} s"), no finding"
  else
    echo "fuzz $name: FINDING (see $build/$name.log)"; grep -E 'ERROR|SUMMARY|Test unit written' "$build/$name.log" | head -5
    return 1
  fi
}
# The fuzzers run side by side, one per core (each is one process on one core): CI's 2 cores
# fuzz two readers at once. Their summaries are printed in the list's order.
jobs=${TESSEL_FUZZ_JOBS:-$(nproc)}
status=0
running=0
for name in "${fuzzers[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$name" > "$build/$name.summary" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
for name in "${fuzzers[@]}"; do cat "$build/$name.summary"; done
exit $status
