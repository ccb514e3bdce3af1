#!/usr/bin/env bash
# The build's library check: basis.nesl as it is passes; with diff's body narrowed to ints (its
# declared type promises every number) it fails, naming diff where it is declared; a built-in
# declared both in basis.types and in basis.nesl fails too, and so does a built-in without its
# documentation string (diff's in basis.nesl, sum's in basis.types) or with an unknown family.
# usage: library_check.sh NESL_CHECK_LIBRARY SOURCE_DIR
set -uo pipefail
checker=$1 lib=$2/nesl/lib
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$checker" "$lib/basis.types" "$lib/basis.nesl" || fail "the library as it is was refused"
# diff's definition: its declaration, its documentation string on the two lines after, its body.
diff_header='function diff(a, b) : (a, a) -> a :: (a in number)'
diff_body='  abs(a - b);'
[ "$(grep -A3 -xF "$diff_header" "$lib/basis.nesl" | sed -n 4p)" = "$diff_body" ] || fail "diff's definition moved"
# edit_diff AWK_ACTION: basis.nesl with the action applied to the lines of diff's definition.
edit_diff() {
  awk -v header="$diff_header" '$0 == header { at = NR } { line = NR - at } at && line <= 3 { '"$1"' } { print }' \
    "$lib/basis.nesl" >"$work/basis.nesl"
}
edit_diff 'if (line == 3) $0 = "  abs(a - b) + 0;"'
"$checker" "$lib/basis.types" "$work/basis.nesl" 2>"$work/err" && fail "a diff narrowed to ints was accepted"
grep -q "basis.nesl:[0-9]*:[0-9]*: error: declared type of diff: expected the type variable a in number, found int" "$work/err" ||
  fail "unexpected message: $(cat "$work/err")"
{ cat "$lib/basis.types"; echo "diff : (a, a) -> a :: (a in number)"; } >"$work/basis.types"
"$checker" "$work/basis.types" "$lib/basis.nesl" 2>"$work/err" && fail "diff declared in both files was accepted"
grep -q "error: the built-in diff is declared in basis.types too" "$work/err" || fail "unexpected message: $(cat "$work/err")"
# diff without its documentation string: the two lines go, and `=` follows the type.
edit_diff 'if (line == 0) $0 = $0 " ="; if (line == 1 || line == 2) next'
"$checker" "$lib/basis.types" "$work/basis.nesl" 2>"$work/err" && fail "diff without documentation was accepted"
grep -qx "nesl_check_library: diff: no documentation string giving its meaning" "$work/err" ||
  fail "unexpected message: $(cat "$work/err")"
# sum's documentation string in basis.types gone, then its family unknown.
sum_doc='  "[reduction] The sum of the elements of v; 0 for an empty v.'
grep -qxF "$sum_doc" "$lib/basis.types" || fail "sum's documentation moved"
awk -v doc="$sum_doc" '$0 == doc { skip = 1 } skip { if ($0 ~ /"$/) skip = 0; next } { print }' \
  "$lib/basis.types" >"$work/basis.types"
"$checker" "$work/basis.types" "$lib/basis.nesl" 2>"$work/err" && fail "sum without documentation was accepted"
grep -qx "nesl_check_library: sum: no documentation string giving its meaning" "$work/err" ||
  fail "unexpected message: $(cat "$work/err")"
sed 's/^  "\[reduction\] The sum of the elements/  "[reductions] The sum of the elements/' "$lib/basis.types" >"$work/basis.types"
"$checker" "$work/basis.types" "$lib/basis.nesl" 2>"$work/err" && fail "sum with an unknown family was accepted"
grep -qx "nesl_check_library: sum: no known \[family\] at the start of its documentation" "$work/err" ||
  fail "unexpected message: $(cat "$work/err")"
echo "library check: the library passes; a narrowed diff, a diff declared twice and built-ins" \
     "without their documentation are refused"
