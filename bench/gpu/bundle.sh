#!/usr/bin/env bash
# Packs a CUDA build of tessel for a GPU machine that has the NVIDIA driver and CUDA runtime but
# not tessel's Debian libraries: the programs that ctest -L cuda and run_gpu_benchmarks.sh run,
# the CTest files (they name the build folder's absolute path: unpack where it was, or link it),
# the shared libraries the programs need but glibc and CUDA's own, and Debian's Open MPI tree.
# usage: bench/gpu/bundle.sh BUILD_DIR OUT.tar.xz
#   on the GPU machine: tar xJf OUT.tar.xz -C / ; export LD_LIBRARY_PATH=/opt/tessel-libs
set -euo pipefail
build=$(cd "${1:?build folder}" && pwd); out=${2:?output archive}
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
# The device run's programs: those the cuda tests and the fixtures' set-ups name, the apps, and
# bench/gpu's and bench/xct's. Nothing else: the other tests and benchmarks (their peer
# libraries: GraphBLAS alone is 180 MB) would not fit the device's 64 MiB working tree.
named=$( { (cd "$build" && ctest -N -V -L cuda); grep -rh -B3 FIXTURES_SETUP --include=CTestTestfile.cmake "$build"; } |
  grep -o "$build/[^\" ;&]*" | sort -u)
programs=$(find "$build" -type f -perm -u+x \( -name 'tessel-*' -o -name 'tessel_*' \) ! -name '*.so' ! -path '*/CMakeFiles/*' |
  while read -r p; do
    case $p in "$build"/apps/*|"$build"/bench/gpu/*|"$build"/bench/xct/*) echo "$p" ;; *) grep -qxF "$p" <<<"$named" && echo "$p" ;; esac
  done)
mkdir -p "$stage/opt/tessel-libs"
# The build's programs and test files at their own paths, so that CTest's absolute paths hold.
(cd / && find "${build#/}" \( -name 'CTestTestfile.cmake' -o -name '*_tests*.cmake' -o -name '*_include*.cmake' \) -print0 |
  xargs -0 -r cp --parents -t "$stage")
for p in $programs; do cp --parents "$p" "$stage" && strip --strip-unneeded "$stage$p"; done
# Libraries: what the programs load, less glibc, the CUDA toolkit's and the driver's.
for p in $programs; do ldd "$p" 2>/dev/null | awk '/=> \//{print $3}'; done | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so|libcuda|libcudart|libcublas|libcusparse|libnvJitLink' |
  while read -r lib; do cp -L "$lib" "$stage/opt/tessel-libs/" && strip --strip-unneeded "$stage/opt/tessel-libs/${lib##*/}"; done
# Open MPI: its plugins, help texts and launcher, where Debian puts them.
for d in /usr/lib/x86_64-linux-gnu/openmpi /usr/share/openmpi /etc/openmpi; do
  [ -d "$d" ] && tar cf - -C / "${d#/}" | tar xf - -C "$stage"
done
mkdir -p "$stage/usr/bin"
for b in mpiexec mpirun orterun orted ompi_info; do
  [ -e "/usr/bin/$b" ] && cp -a "/usr/bin/$b" "$stage/usr/bin/" && cp -L "$(readlink -f "/usr/bin/$b")" "$stage/usr/bin/" 2>/dev/null || true
done
tar cf - -C "$stage" . | xz -T0 -9 > "$out"
echo "bundle: $out ($(du -h "$out" | cut -f1)), $(echo "$programs" | wc -w) programs"
