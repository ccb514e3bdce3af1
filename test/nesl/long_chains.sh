#!/usr/bin/env bash
# A chain of operators is not nesting: 10,000 terms of `1 + 1 + ...` compile and run, at the top
# level, in a function (whose body every pass goes through) and in an apply-to-each, while 1,001 levels of real
# nesting, and more operators in a chain than the parser allows, end in a located error.
# usage: long_chains.sh NESL
set -uo pipefail
nesl=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
terms() {  # terms N TERM OP: TERM OP TERM OP ... TERM, N terms
  local n=$1 term=$2 op=$3
  printf '%s' "$term"
  for ((i = 1; i < n; i++)); do printf ' %s %s' "$op" "$term"; done
}
{
  echo "x = $(terms 10000 1 +);"
  echo "function g(y) = $(terms 10000 y +);"
  echo "g(2);"
  echo "function h(z) = $(terms 10000 '(z * 2.0)' -);"
  echo "{h(a) : a in [1.0, 0.5]};"
  echo "function k(n) = $(terms 10000 '(n == 1)' or);"
  echo "k(1);"
} >chains.nesl
expected='x = 10000 : int
g = fn : a -> a :: (a in number)
it = 20000 : int
h = fn : float -> float
it = [-19996.0, -9998.0] : [float]
k = fn : int -> bool
it = T : bool'
found=$(timeout 120 "$nesl" --threads 1 chains.nesl 2>&1)
[ "$found" = "$expected" ] || { echo "FAILED: 10,000-term chains:"; diff <(echo "$found") <(echo "$expected") | cut -c1-200; exit 1; }

# Inside an apply-to-each, where flatten hoists what the elements share (n * 2) and keeps the
# rest (n * x): each chain is one let per term, and compiling stays linear in them.
{
  echo "function m(n) = {x + $(terms 10000 '(n * 2)' +) : x in [1, 2]};"
  echo "m(3);"
  echo "function q(n) = {$(terms 10000 '(n * x)' +) : x in [1, 2]};"
  echo "q(3);"
} >bodies.nesl
expected='m = fn : int -> [int]
it = [60001, 60002] : [int]
q = fn : int -> [int]
it = [30000, 60000] : [int]'
found=$(timeout 60 "$nesl" --threads 1 bodies.nesl 2>&1)
[ "$found" = "$expected" ] || { echo "FAILED: 10,000-term chains in an apply-to-each:"; diff <(echo "$found") <(echo "$expected") | cut -c1-200; exit 1; }

# errors: the located diagnostic's first line.
first_error() { "$nesl" --check "$1" 2>&1 >/dev/null | head -1 | cut -c1-200; }
printf 'x = %s1%s;\n' "$(printf '(%.0s' $(seq 1001))" "$(printf ')%.0s' $(seq 1001))" >nested.nesl
want='nested.nesl:1:1005: error: expected at most 1000 levels of nesting, found more'
[ "$(first_error nested.nesl)" = "$want" ] || { echo "FAILED: 1,001 levels: $(first_error nested.nesl)"; exit 1; }
echo "x = $(terms 100002 1 +);" >too_long.nesl
want='too_long.nesl:1:400007: error: expected at most 100000 operators in a chain, found more'
[ "$(first_error too_long.nesl)" = "$want" ] || { echo "FAILED: 100,001 operators: $(first_error too_long.nesl)"; exit 1; }
echo "long chains: 10,000 terms compile and run (in an apply-to-each too); 1,001 levels and 100,001 operators are refused"
