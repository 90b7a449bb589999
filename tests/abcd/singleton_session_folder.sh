#!/usr/bin/env bash
# A program started without mpiexec keeps Open MPI's session folder to itself
# ($TMPDIR/ompi.tessel.<pid>) and removes it when it ends: side by side, isolated singletons had
# shared one, which the first to end removed under the others (core/app/run_mpi_app.cpp).
# usage: singleton_session_folder.sh PROGRAM ARGS...  (a run of a second or so)
set -u
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export TMPDIR=$dir OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset OMPI_MCA_orte_top_session_dir
"$@" > /dev/null 2>&1 &
pid=$!
seen=""
for _ in $(seq 500); do
  if [ -d "$dir/ompi.tessel.$pid" ]; then seen=yes; break; fi
  kill -0 "$pid" 2> /dev/null || break
  sleep 0.01
done
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] || { echo "the program failed (exit $rc)"; exit 1; }
[ -n "$seen" ] || { echo "no session folder $dir/ompi.tessel.$pid while it ran"; exit 1; }
left=$(ls -A "$dir")
[ -z "$left" ] || { echo "left in TMPDIR after the run: $left"; exit 1; }
echo "session folder ompi.tessel.$pid while it ran, removed at its end"
