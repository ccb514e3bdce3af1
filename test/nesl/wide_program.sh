#!/usr/bin/env bash
# A program of test/nesl/wide (a nested level past 2^31 - 1 instances, streamed) compiled by nesl
# --vcode and run by vinterp with the given arguments; its output must be NAME.expected.
# usage: wide_program.sh NESL VINTERP NAME.nesl [VINTERP ARGUMENTS...]
set -uo pipefail
nesl=$1 vinterp=$2 program=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$nesl" --vcode "$program" -o "$work/program.vcode" || { echo "FAILED: nesl --vcode $program"; exit 1; }
expected=$(cat "${program%.nesl}.expected")
found=$("$vinterp" "$@" "$work/program.vcode" 2>&1)
[ "$found" = "$expected" ] || { echo "FAILED: expected $expected, found:"; echo "$found" | head -5; exit 1; }
echo "$(basename "$program"): $found"
