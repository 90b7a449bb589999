#!/bin/sh
# Out-of-core inference: streaming weights from disk holds two layers, not the network.
# usage: streaming_peak.sh TESSEL_SPDNN WORK_DIR
# The generator stores every layer in tiled ELL too, so the streamed run reads those stored
# layers (no conversion); the check below makes sure it did.
# A generated network of L = 192 layers (N = 4096, written layer by layer to the binary
# cache, about 200 MiB of CSR + 160 MiB of stored tiled ELL) runs with --stream-source disk
# under --max-rss = the process's own baseline (the same run on a 2-layer network) + a
# quarter of the cache file's bytes: the limit is far below the whole network, far above two
# layers (about 2 MiB of CSR or tiled ELL each, and the activations). The same run with
# resident weights must exceed that limit, so the check can fail and the peak measure does
# see the layers; with the limit as the node's free memory, resident weights are refused up
# front.
set -eu
bin=$1
work=$2
n=4096
big=192
rm -rf "$work"
mkdir -p "$work"
peak() { grep -o '"peak_rss_bytes": *[0-9]*' "$1" | grep -o '[0-9]*$'; }
run() {  # layers, extra args...
  layers=$1
  shift
  "$bin" infer --network "$work/l$layers" --neurons $n --layers "$layers" --threads 1 --quiet \
    --check "$work/l$layers/neuron$n-l$layers-categories.tsv" "$@"
}
"$bin" generate --binary --neurons $n --layers 2 --images 256 --out "$work/l2" > /dev/null
"$bin" generate --binary --neurons $n --layers $big --images 256 --out "$work/l$big" --no-categories > /dev/null
# The categories of the big network by the layer-outer reference (streamed too) as the truth.
"$bin" infer --network "$work/l$big" --neurons $n --layers $big --threads 1 --quiet --stream-weights \
  --stream-source disk --reference --output "$work/l$big/neuron$n-l$big-categories.tsv" > /dev/null

run 2 --stream-weights --stream-source disk --metrics "$work/base.json" > /dev/null
base=$(peak "$work/base.json")
network=$(stat -c %s "$work/l$big/neuron$n/n$n-l$big.tessel.h5")
limit=$((base + network / 4))
echo "baseline peak $base B, network cache $network B, limit $limit B"

# Free memory pinned to the estimate's fixed process part (256 MiB) + a quarter of the
# network: resident weights (estimated at about twice the network) are refused up front with
# the estimate; streaming from disk (estimated at two layers) runs.
free=$((268435456 + network / 4))
if TESSEL_AVAILABLE_MEMORY=$free run $big > "$work/refused.out" 2>&1; then
  echo "streaming_peak: resident weights were not refused with $free B free" >&2
  exit 1
fi
grep -q "the inference needs .*, more than the .* available on this node (--stream-weights --stream-source disk" \
  "$work/refused.out" || { cat "$work/refused.out" >&2; exit 1; }
echo "resident with $free B free: $(cat "$work/refused.out")"
TESSEL_AVAILABLE_MEMORY=$free run $big --stream-weights --stream-source disk --metrics "$work/disk.json" \
  --max-rss "$limit"
echo "streamed from disk: peak $(peak "$work/disk.json") B (within the limit)"
grep -q '"streamed from disk, stored tiled ELL' "$work/disk.json" || {
  echo "streaming_peak: the streamed run did not read the stored tiled layers" >&2; exit 1; }

if run $big --metrics "$work/resident.json" --max-rss "$limit" > "$work/resident.out" 2>&1; then
  echo "streaming_peak: resident weights stayed within $limit B: the peak measure does not see the layers" >&2
  exit 1
fi
grep -q "exceeds --max-rss" "$work/resident.out" || { cat "$work/resident.out" >&2; exit 1; }
echo "resident: peak $(peak "$work/resident.json") B (over the limit, as it must be)"
rm -rf "$work"
