#!/usr/bin/env bash
# A tessel-abcd --repeat --metrics file of the cuda backend: the first run registers host tile
# buffers with the device, the later runs reuse them (the previous run's C and the same A) and
# register nothing.
# usage: repeat_registers_once.sh metrics.json runs
set -euo pipefail
repeats=$(tr -d ' \n' < "$1" | grep -o '"repeats":\[[^]]*\]')
read -r -a bytes <<< "$(echo "$repeats" | grep -o '"registered_bytes":[0-9]*' | cut -d: -f2 | tr '\n' ' ')"
echo "registered bytes per run: ${bytes[*]}"
[ "${#bytes[@]}" -eq "$2" ] || { echo "expected $2 runs"; exit 1; }
[ "${bytes[0]}" -gt 0 ] || { echo "the first run registered nothing"; exit 1; }
for b in "${bytes[@]:1}"; do [ "$b" -eq 0 ] || { echo "a later run registered again"; exit 1; }; done
