#!/usr/bin/env bash
# The build's library check: basis.nesl as it is passes; with diff's body narrowed to ints (its
# signature promises every number) it fails, naming diff at its basis.types declaration.
# usage: library_check.sh NESL_CHECK_LIBRARY SOURCE_DIR
set -uo pipefail
checker=$1 lib=$2/nesl/lib
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$checker" "$lib/basis.types" "$lib/basis.nesl" || { echo "FAIL: the library as it is was refused"; exit 1; }
grep -q '^function diff(a, b) = abs(a - b);$' "$lib/basis.nesl" || { echo "FAIL: diff's definition moved"; exit 1; }
sed 's/^function diff(a, b) = abs(a - b);$/function diff(a, b) = abs(a - b) + 0;/' "$lib/basis.nesl" >"$work/basis.nesl"
if "$checker" "$lib/basis.types" "$work/basis.nesl" 2>"$work/err"; then
  echo "FAIL: a diff narrowed to ints was accepted"; exit 1
fi
grep -q "basis.types:[0-9]*:[0-9]*: error: declared type of diff: expected the type variable a in number, found int" "$work/err" ||
  { echo "FAIL: unexpected message:"; cat "$work/err"; exit 1; }
echo "library check: the library passes; a narrowed diff is refused"
