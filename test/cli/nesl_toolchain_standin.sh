#!/bin/sh
# Stands in for the NESL REPL's call of its interpreter: the job's VCODE goes to <job>_code in a
# temporary directory, the interpreter runs as `INTERP -m 1048576 <job>_code` with fixed
# arguments, and what it printed is read back from its stdout.
# usage: nesl_toolchain_standin.sh INTERP PROGRAM.vcode SCRATCH_DIR
set -eu
interp=$1 program=$2 scratch=$3
job="$scratch/nesl_job_$$"
cp "$program" "${job}_code"
status=0
"$interp" -m 1048576 "${job}_code" > "${job}_output" || status=$?
cat "${job}_output"
rm -f "${job}_code" "${job}_output"
exit $status
