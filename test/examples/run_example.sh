#!/usr/bin/env bash
# Runs one NESL example as a user would, `nesl NAME.nesl` from its folder, and compares everything
# it prints (stdout and stderr together: print_string writes to stderr) with NAME.out, exactly.
# usage: run_example.sh NESL DIR/NAME.nesl
set -uo pipefail
nesl=$1
program=$2
dir=$(dirname "$program")
name=$(basename "$program" .nesl)
if [ ! -f "$dir/$name.out" ]; then
  echo "FAILED: $name.nesl has no $name.out beside it (what 'nesl $name.nesl' must print)"
  exit 1
fi
cd "$dir"
found=$("$nesl" --threads 1 "$name.nesl" 2>&1)
status=$?
if [ $status -ne 0 ]; then
  echo "FAILED: nesl $name.nesl exited with status $status:"
  echo "$found"
  exit 1
fi
if [ "$found" != "$(cat "$name.out")" ]; then
  echo "FAILED: nesl $name.nesl differs from $name.out (< printed, > expected):"
  diff <(echo "$found") "$name.out"
  exit 1
fi
echo "$name: $(wc -l < "$name.out") lines match"
