#!/usr/bin/env bash
# `nesl --vcode --source-map`: the map's header, every entry a VCODE line of the program, and the
# call of the runtime error in runtime_errors/index_out_of_range.nesl mapped to the index `s[i]`
# (line 2, column 24, the bracket); vinterp runs the VCODE without the map.
# usage: source_map.sh NESL VINTERP
set -euo pipefail
nesl=$1
vinterp=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$(dirname "$0")/runtime_errors"
"$nesl" --vcode index_out_of_range.nesl -o "$work/p.vcode" --source-map "$work/p.map"
fail() { echo "FAILED: $*"; cat "$work/p.map"; exit 1; }
[ "$(head -n 1 "$work/p.map")" = "# nesl source map: VCODE_LINE NESL_LINE NESL_COLUMN NESL_FILE" ] ||
  fail "the first line is not the header"
lines=$(wc -l <"$work/p.vcode")
tail -n +2 "$work/p.map" | while read -r vcode_line nesl_line column file; do
  [ "$vcode_line" -ge 1 ] && [ "$vcode_line" -le "$lines" ] || fail "VCODE line $vcode_line out of range"
  [ "$file" = index_out_of_range.nesl ] || fail "an entry names $file"
  [ "$nesl_line" -ge 2 ] && [ "$nesl_line" -le 5 ] || fail "NESL line $nesl_line out of range"
done
call=$(grep -n '^CALL RUNTIME_ERROR_' "$work/p.vcode" | cut -d: -f1)
[ "$(echo "$call" | wc -l)" = 1 ] || fail "expected one call of a runtime error, found: $call"
[ "$(grep "^$call " "$work/p.map")" = "$call 2 24 index_out_of_range.nesl" ] ||
  fail "VCODE line $call (the runtime error's call) is not mapped to 2:24"
# vinterp needs nothing but the VCODE: it prints the classic's error message.
"$vinterp" --threads 1 "$work/p.vcode" >"$work/out" 2>&1 || true
grep -q 'RUNTIME ERROR: Sequence reference (a\[i\]) out of bounds.' "$work/out" || fail "no runtime error from vinterp"
echo "source map: $(($(wc -l <"$work/p.map") - 1)) entries; the runtime error's call at 2:24"
