#!/usr/bin/env bash
# The spdnn rows of the GPU table alone: 60000 generated images through 120 layers of 1024, 4096
# and 16384 neurons, cuda (fused layer; cuSPARSE below 16384) and the host's cores, best of 3.
# usage: bench/gpu/spdnn_only.sh BUILD_DIR OUT_DIR
B=${1:?build folder}/apps/spdnn/tessel-spdnn; OUT=${2:?output folder}; mkdir -p "$OUT"; D=$(mktemp -d)
for n in 1024 4096 16384; do
  "$B" generate --neurons $n --layers 120 --images 60000 --binary --out "$D/$n" > /dev/null
  for k in cuda:core cuda:cusparse cpu:auto; do
    [ $n = 16384 ] && [ $k = cuda:cusparse ] && continue
    name=spdnn-$n-${k/:/-}
    timeout 120 "$B" infer --network "$D/$n" --neurons $n --layers 120 --backend ${k%:*} --kernel ${k#*:} --repeat 3 \
      --check "$D/$n/neuron$n-l120-categories.tsv" --metrics "$OUT/$name.json" > "$OUT/$name.log" 2>&1
    echo "$name: $(grep -E '^(inference|check):' "$OUT/$name.log" | tr '\n' ' ' | cut -c1-150)"
  done
  rm -rf "$D/$n"
done
