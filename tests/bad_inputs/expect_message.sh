#!/bin/sh
# Runs a command that must refuse its input: it exits non-zero by itself (not killed by a
# signal: status 1..127), and its stderr is exactly the one expected line (no second message,
# no "terminate called", no MPI help text). stdout is shown but not checked.
# usage: expect_message.sh 'EXPECTED LINE' command args...
expected=$1
shift
err=$(mktemp)
"$@" 2>"$err"
status=$?
got=$(cat "$err")
rm -f "$err"
printf 'exit status %s, stderr:\n%s\n' "$status" "$got"
if [ "$status" -eq 0 ]; then echo "expect_message: the command succeeded" >&2; exit 1; fi
if [ "$status" -ge 128 ]; then echo "expect_message: killed by a signal (status $status)" >&2; exit 1; fi
if [ "$got" != "$expected" ]; then printf 'expect_message: expected exactly:\n%s\n' "$expected" >&2; exit 1; fi
exit 0
