#!/usr/bin/env bash
# `vinterp --print-nesl`: each program of print_nesl/ compiled by `nesl --vcode` and run by vinterp
# prints its expressions' values as `nesl FILE` prints them (the `it = ...` lines, a long value's
# lines after them included), and the classic interpreter, where there is one, runs the same VCODE
# (whose comment of result types it skips) with our stack's output. Refused with status 1: VCODE
# without the comment, a comment the stack does not fit, a run stopped by a NESL runtime error.
# usage: print_nesl.sh NESL VINTERP CLASSIC_VINTERP
set -uo pipefail
nesl=$1 vinterp=$2 classic=$3
programs=$(cd "$(dirname "$0")/print_nesl" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# The value lines of nesl's output: `it = ...` and the indented lines a long value goes on.
value_lines() { awk '/^it = /{on = 1; print; next} on && /^ /{print; next} {on = 0}'; }

[ -x "$classic" ] || echo "no classic interpreter at $classic: the classic's runs are left out"
for program in "$programs"/*.nesl; do
  name=$(basename "$program" .nesl)
  if ! "$nesl" "$program" >"$name.nesl_out" 2>&1; then fail "$name: nesl FILE failed: $(cat "$name.nesl_out")"; continue; fi
  value_lines <"$name.nesl_out" >"$name.expected"
  if ! "$nesl" --vcode "$program" -o "$name.vcode" 2>"$name.err"; then fail "$name: nesl --vcode failed: $(cat "$name.err")"; continue; fi
  expressions=$(grep -c '^it = ' "$name.expected")
  [ "$expressions" -gt 0 ] || fail "$name: nesl printed no value"
  [ "$(grep -c '^  it : ' "$name.vcode")" = "$expressions" ] || fail "$name: the VCODE's comment has not one type per expression"
  if ! "$vinterp" --print-nesl "$name.vcode" >"$name.out" 2>"$name.err"; then
    fail "$name: vinterp --print-nesl failed: $(cat "$name.err")"
  elif ! cmp -s "$name.out" "$name.expected"; then
    fail "$name: vinterp --print-nesl printed"$'\n'"$(cat "$name.out")"$'\n'"where nesl printed"$'\n'"$(cat "$name.expected")"
  fi
  if [ -x "$classic" ]; then
    "$vinterp" --threads 1 "$name.vcode" >"$name.stack" || fail "$name: vinterp failed"
    if ! "$classic" "$name.vcode" >"$name.classic" 2>&1; then
      fail "$name: the classic interpreter failed: $(cat "$name.classic")"
    elif ! cmp -s "$name.classic" "$name.stack"; then
      fail "$name: the classic interpreter printed another stack: $(diff "$name.stack" "$name.classic")"
    fi
  fi
done

# Without the comment: refused before running, saying where the types come from.
sed '/^{ NESL result types/,$d' ints.vcode >bare.vcode
"$vinterp" bare.vcode >/dev/null || fail "vinterp did not run the VCODE without its comment"
"$vinterp" --print-nesl bare.vcode >out 2>err
status=$?
[ "$status" = 1 ] && [ ! -s out ] &&
  grep -qx 'vinterp: --print-nesl: bare.vcode carries no NESL types for its results: compile it with nesl --vcode, which writes them at the end of the VCODE' err ||
  fail "VCODE without result types: status $status, stdout $(cat out), stderr $(cat err)"

# A comment whose types the stack does not fit (ints.nesl's first result is an int).
sed '0,/^  it : int$/s//  it : [int]/' ints.vcode >misfit.vcode
"$vinterp" --print-nesl misfit.vcode >out 2>err
status=$?
[ "$status" = 1 ] && grep -q '^vinterp: --print-nesl: misfit.vcode: the final stack cannot be read as the NESL values its types describe' err ||
  fail "a comment the stack does not fit: status $status, stderr $(cat err)"

# A NESL runtime error: its message on stderr, no value, status 1 (as nesl's).
printf '1 + 2;\n[1, 2, 3][5];\n' >stops.nesl
"$nesl" --vcode stops.nesl -o stops.vcode || fail "nesl --vcode stops.nesl failed"
"$vinterp" --print-nesl stops.vcode >out 2>err
status=$?
[ "$status" = 1 ] && [ ! -s out ] && grep -q '^RUNTIME ERROR: Sequence reference (a\[i\]) out of bounds.$' err ||
  fail "a runtime error: status $status, stdout $(cat out), stderr $(cat err)"

[ "$failures" = 0 ] || exit 1
echo "vinterp --print-nesl printed nesl's values for $(ls "$programs"/*.nesl | wc -l) programs"
