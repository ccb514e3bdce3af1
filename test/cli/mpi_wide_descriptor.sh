#!/usr/bin/env bash
# A descriptor past 2^31 - 1 elements on several processes: made (each process's block of it
# streamed by its local cvl-cpu), and what would be stored that long refused at the instruction
# that would store it, as on cpu, though each process's block is shorter than the limit (a scan;
# an INDEX under --eager; a pending result that two reductions read, which the first stores).
# usage: mpi_wide_descriptor.sh MPIEXEC VINTERP TEST_DIR
set -uo pipefail
mpiexec=$1 vinterp=$2 dir=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
too_long="segment lengths sum to 2147483653 elements, more than a vector may hold (2147483647)"
fail=0
# run NP EXPECTED_STATUS EXPECTED_OUT EXPECTED_ERR ARGS...
run() {
  local np=$1 status=$2 out=$3 err=$4
  shift 4
  # --max-memory: a block stored by mistake fails at once, with another message.
  "$mpiexec" -q --oversubscribe -np "$np" "$vinterp" --backend mpi --threads 1 --max-memory 1G "$@" \
    >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" != "$status" ] || [ "$(cat "$work/out")" != "$out" ] || [ "$(cat "$work/err")" != "$err" ]; then
    echo "FAIL: -np $np $*: status $got (expected $status)"
    echo "  out: $(cat "$work/out")"
    echo "  err: $(cat "$work/err")"
    fail=1
  fi
}
for np in 2 3; do
  run "$np" 0 "( -2147483643 )" "" "$dir/wide_lengths.vcode"
  run "$np" 1 "" "vinterp: $dir/wide_scan.vcode:11: in function MAIN1_1, instruction +_SCAN INT: $too_long" \
      "$dir/wide_scan.vcode"
  run "$np" 1 "" "vinterp: $dir/wide_scan.vcode:9: in function MAIN1_1, instruction INDEX: $too_long" \
      --eager "$dir/wide_scan.vcode"
  run "$np" 1 "" "vinterp: $dir/wide_two_readers.vcode:15: in function MAIN1_1, instruction MAX_REDUCE FLOAT: $too_long" \
      "$dir/wide_two_readers.vcode"
done
[ "$fail" = 0 ] && echo "a descriptor past 2^31 - 1 elements at 2 and 3 processes: made, and refused where stored"
exit "$fail"
