#!/usr/bin/env bash
# The build's library check: basis.nesl as it is passes; with diff's body narrowed to ints (its
# declared type promises every number) it fails, naming diff where it is declared; a built-in
# declared both in basis.types and in basis.nesl fails too.
# usage: library_check.sh NESL_CHECK_LIBRARY SOURCE_DIR
set -uo pipefail
checker=$1 lib=$2/nesl/lib
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$checker" "$lib/basis.types" "$lib/basis.nesl" || fail "the library as it is was refused"
diff_line='function diff(a, b) : (a, a) -> a :: (a in number) = abs(a - b);'
grep -qxF "$diff_line" "$lib/basis.nesl" || fail "diff's definition moved"
sed "s/^function diff(a, b) : (a, a) -> a :: (a in number) = abs(a - b);$/function diff(a, b) : (a, a) -> a :: (a in number) = abs(a - b) + 0;/" \
  "$lib/basis.nesl" >"$work/basis.nesl"
"$checker" "$lib/basis.types" "$work/basis.nesl" 2>"$work/err" && fail "a diff narrowed to ints was accepted"
grep -q "basis.nesl:[0-9]*:[0-9]*: error: declared type of diff: expected the type variable a in number, found int" "$work/err" ||
  fail "unexpected message: $(cat "$work/err")"
{ cat "$lib/basis.types"; echo "diff : (a, a) -> a :: (a in number)"; } >"$work/basis.types"
"$checker" "$work/basis.types" "$lib/basis.nesl" 2>"$work/err" && fail "diff declared in both files was accepted"
grep -q "error: the built-in diff is declared in basis.types too" "$work/err" || fail "unexpected message: $(cat "$work/err")"
echo "library check: the library passes; a narrowed diff and a diff declared twice are refused"
