#!/usr/bin/env bash
# Runs COMMAND [-- CHECK...]: exit 77 (ctest: skipped) when COMMAND says there is no CUDA device,
# else COMMAND's status, then CHECK's.
# usage: skip_if_no_device.sh command args... [-- check args...]
run=() check=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do run+=("$1"); shift; done
[ "${1:-}" = "--" ] && { shift; check=("$@"); }
out=$("${run[@]}" 2>&1)
status=$?
printf '%s\n' "$out"
if [ $status -ne 0 ] && printf '%s\n' "$out" | grep -E -q -i "no (usable )?CUDA device"; then
  echo "skipped: no CUDA device"
  exit 77
fi
[ $status -ne 0 ] && exit $status
[ ${#check[@]} -eq 0 ] && exit 0
exec "${check[@]}"
