#!/usr/bin/env bash
# Two tessel-abcd --metrics files whose runs differ only in B's density: the executor's blocks
# (the steady phase of "device_traffic") must have copied the same bytes to the device, since B
# is made there and only A goes up.
# usage: same_steady_h2d.sh first.json second.json [at least this many blocks in the first, 1]
set -euo pipefail
steady() {  # the steady phase's field $2 of file $1 (nlohmann writes the keys sorted)
  tr -d ' \n' < "$1" | grep -o '"device_traffic":{.*' | grep -o '"steady":{[^}]*}' | grep -o "\"$2\":[0-9]*" | cut -d: -f2
}
a=$(steady "$1" h2d_bytes) b=$(steady "$2" h2d_bytes)
steps=$(tr -d ' \n' < "$1" | grep -o '"steady_steps":[0-9]*' | cut -d: -f2)
echo "steady host-to-device bytes: $a ($1), $b ($2); blocks: $steps"
[ -n "$a" ] && [ -n "$b" ] && [ "${steps:-0}" -ge "${3:-1}" ] && [ "$a" = "$b" ]
