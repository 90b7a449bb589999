#!/usr/bin/env bash
# The programs of an earlier commit for recheck.sh's A B A B calls: builds tessel-xct,
# tessel-spdnn and tessel-abcd at COMMIT in a worktree with build-gpu's CUDA settings (ccache, paths relative to
# the tree, so unchanged objects come from earlier builds), strips them and packs them into
# OUT.tar.xz (at OUT's own paths: unpack with `tar xJf OUT.tar.xz -C /`). They load the same
# libraries as the bundle's programs (/opt/tessel-libs).
# usage: bench/gpu/earlier.sh COMMIT OUT.tar.xz   ->  /opt/tessel-earlier/{tessel-xct,tessel-spdnn,tessel-abcd}
set -euo pipefail
commit=${1:?commit}; out=$(readlink -f "${2:?output archive}")
repo=$(cd "$(dirname "$0")/../.." && pwd)
tree=/tmp/tessel-earlier-$(git -C "$repo" rev-parse --short "$commit")
[ -d "$tree" ] || git -C "$repo" worktree add -q --detach "$tree" "$commit"
launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR=$tree
cmake -S "$tree" -B "$tree/build-gpu" -DCMAKE_BUILD_TYPE=Release -DTESSEL_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DTESSEL_PYTHON=OFF "${launcher[@]}" > "$tree/configure.log" 2>&1
cmake --build "$tree/build-gpu" -j "${TESSEL_JOBS:-$(nproc)}" --target tessel-xct tessel-spdnn tessel-abcd > "$tree/build.log" 2>&1 ||
  { tail -20 "$tree/build.log" >&2; exit 1; }
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/opt/tessel-earlier"
for p in apps/xct/tessel-xct apps/spdnn/tessel-spdnn apps/ccsd_abcd/tessel-abcd; do
  cp "$tree/build-gpu/$p" "$stage/opt/tessel-earlier/" && strip --strip-unneeded "$stage/opt/tessel-earlier/${p##*/}"
done
tar cf - -C "$stage" . | xz -T0 -9 > "$out"
echo "earlier: $out ($(du -h "$out" | cut -f1)), $commit's tessel-xct, tessel-spdnn and tessel-abcd in /opt/tessel-earlier"
