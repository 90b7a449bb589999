#!/usr/bin/env bash
# The main job on built-in data: installs what is missing, builds, runs the demo of every
# part that exists, and prints where the results are.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
export TESSEL_BUILD_DIR=${TESSEL_BUILD_DIR:-$root/build}
echo "== building tessel in $TESSEL_BUILD_DIR (Release)"
"$root/scripts/build.sh" "$@"
out=${TESSEL_DEMO_OUT:-$root/demo-output}
mkdir -p "$out"
bin="$TESSEL_BUILD_DIR"

echo "== SpMM kernels on built-in matrices (tessel-bench-spmm --quick)"
"$bin/bench/spmm/tessel-bench-spmm" --quick --json "$out/spmm.json"

echo
echo "== sparse DNN: generated Graph Challenge network 1024 x 120 (tessel-spdnn)"
spdnn_images=${TESSEL_SPDNN_IMAGES:-10000}
spdnn_data="$out/spdnn-1024-$spdnn_images"
if [ ! -f "$spdnn_data/neuron1024-l120-categories.tsv" ]; then
  "$bin/apps/spdnn/tessel-spdnn" generate --neurons 1024 --layers 120 --images "$spdnn_images" --out "$spdnn_data"
fi
OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} "$bin/apps/spdnn/tessel-spdnn" infer --network "$spdnn_data" \
  --neurons 1024 --layers 120 --check "$spdnn_data/neuron1024-l120-categories.tsv" \
  --output "$out/spdnn-categories.tsv" --metrics "$out/spdnn.json"

echo
echo "== X-ray CT: Shepp-Logan phantom 256 x 256, projected and reconstructed (tessel-xct)"
"$bin/apps/xct/tessel-xct" --phantom 256 --output "$out/xct-phantom256.h5" --png "$out/xct-png" \
  --metrics "$out/xct.json"
echo "== X-ray CT: the same phantom as an APS Data Exchange file (4 slices), read back and reconstructed"
"$bin/apps/xct/tessel-xct" --phantom 256 --num-slices 4 --iterations 0 --quiet \
  --save-exchange "$out/xct-exchange.h5"
"$bin/apps/xct/tessel-xct" --input "$out/xct-exchange.h5" --iterations 30 \
  --output "$out/xct-exchange-recon.h5" --png "$out/xct-exchange-png"

echo
echo "== CCSD ABCD term: synthetic block-sparse problem, verified against dense GEMM (tessel-abcd)"
"$bin/apps/ccsd_abcd/tessel-abcd" --generator synthetic --verify --output "$out/abcd.h5" \
  --metrics "$out/abcd.json"

echo
echo "== results"
echo "  SpMM table (JSON): $out/spmm.json"
echo "  sparse DNN categories: $out/spdnn-categories.tsv, metrics: $out/spdnn.json"
echo "  CT volume: $out/xct-phantom256.h5, previews: $out/xct-png/, metrics: $out/xct.json"
echo "  Data Exchange: $out/xct-exchange.h5 -> $out/xct-exchange-recon.h5, previews: $out/xct-exchange-png/"
echo "  ABCD result shape and norms: $out/abcd.h5, metrics: $out/abcd.json"
