#!/usr/bin/env bash
# On a GPU machine without tessel's Debian libraries: unpacks a bundle made by bundle.sh (built in
# /work/main/build-gpu), runs `ctest -L cuda` there, then run_gpu_benchmarks.sh. Everything lands
# in OUT_DIR (ctest.txt, bench/, summary.txt).
# usage: bench/gpu/run_bundle.sh BUNDLE.tar.xz OUT_DIR [quick|tests|unpack]
#   (tests: ctest only; unpack: nothing run, for commands of one's own after it)
set -u
bundle=$(readlink -f "${1:?bundle}"); out=${2:?output folder}; quick=${3:-}
mkdir -p "$out"
repo=$(cd "$(dirname "$0")/../.." && pwd)
# The bundle's CTest files name /work/main: make that this checkout.
if [ "$repo" != /work/main ]; then mkdir -p /work && ln -sfn "$repo" /work/main; fi
if command -v xz >/dev/null; then tar xJf "$bundle" -C / || exit 1
else python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall("/")' "$bundle" || exit 1; fi
export LD_LIBRARY_PATH=/opt/tessel-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -e /usr/bin/cmake ] || ln -s "$(command -v cmake)" /usr/bin/cmake
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=8
nvidia-smi -L
[ "$quick" = unpack ] && exit 0
(cd /work/main/build-gpu && timeout 240 ctest -L cuda -j8 --timeout 60 > "$out/ctest.txt" 2>&1)
grep -E 'tests passed|tests failed|\*\*\*|Failed|Not Run' "$out/ctest.txt" | head -40
unset OMP_NUM_THREADS
[ "$quick" = tests ] && exit 0
bash "$repo/bench/gpu/run_gpu_benchmarks.sh" /work/main/build-gpu "$out/bench" $quick
