#!/bin/sh
# An error that every process meets on its own (here: out of vector memory in each block, which no
# exchange agrees on) still prints one message and ends every process with a non-zero status.
# Usage: mpi_one_message.sh MPIEXEC VINTERP PROGRAM.vcode (run under CTest with a timeout).
mpiexec=$1
vinterp=$2
program=$3
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$mpiexec" -q --oversubscribe -np 3 "$vinterp" --backend mpi --max-memory 1M "$program" \
  > /dev/null 2> "$err"
status=$?
messages=$(grep -c "out of vector memory" "$err")
if [ "$status" -eq 0 ] || [ "$messages" -ne 1 ]; then
  echo "expected one 'out of vector memory' message and a failure; status $status, stderr:"
  cat "$err"
  exit 1
fi
echo "one message, status $status"
