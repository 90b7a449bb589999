#!/bin/sh
# Runs a command that must fail: exit status non-zero and stderr+stdout matching a pattern.
# usage: expect_failure.sh PATTERN command args...
pattern=$1
shift
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -eq 0 ]; then
  echo "expect_failure: the command succeeded" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -E -q -- "$pattern"; then
  echo "expect_failure: no output line matches '$pattern'" >&2
  exit 1
fi
exit 0
