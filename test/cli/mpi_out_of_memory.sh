#!/usr/bin/env bash
# Every process of an mpirun out of vector memory at the same point, each in its own block (the
# vectors, of one value, are written only when the final stack dump reads them, a part of one
# process's block at a time): the message is printed once, by rank 0, and the processes end
# together without MPI_Abort, whose notices Open MPI prints differently from run to run
# (ORTE_ERROR_LOG in show_help.c, or its MPI_ABORT banner). mpirun's own notices are left on (no
# -q): they are what is checked.
# usage: mpi_out_of_memory.sh MPIEXEC VINTERP VCODE
set -uo pipefail
mpiexec=$1 vinterp=$2 vcode=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
expected="vinterp: $vcode: the final stack dump: out of vector memory: 2000000 bytes requested, 0 in use, limit 1048576 (--max-memory)"
for run in 1 2 3; do
  "$mpiexec" --oversubscribe -np 2 "$vinterp" --backend mpi --max-memory 1M "$vcode" >"$work/out" 2>"$work/err"
  status=$?
  [ "$status" = 1 ] || { echo "FAIL: run $run: status $status"; cat "$work/err"; exit 1; }
  if grep -q 'ORTE_ERROR_LOG\|MPI_ABORT' "$work/err"; then
    echo "FAIL: run $run: MPI_Abort's notices:"; cat "$work/err"; exit 1
  fi
  [ "$(grep '^vinterp:' "$work/err")" = "$expected" ] ||
    { echo "FAIL: run $run: not the message once:"; cat "$work/err"; exit 1; }
done
echo "out of memory on every process: one message, no MPI_Abort (3 runs)"
