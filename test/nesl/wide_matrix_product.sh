#!/usr/bin/env bash
# A matrix product written naturally at n = 2,000: 8 * 10^9 products, a nested level past
# 2^31 - 1 instances, made by groups (each row's copies one segment, the transposed matrix copied
# for each group of rows) and streamed into their sums in bounded memory (--max-memory). The
# matrices hold small integers, so the sum of the product's elements is exact whatever the order:
# sum_k (column k's sum of a) * (row k's sum of b) = 199,999,942,005.
# usage: wide_matrix_product.sh NESL VINTERP
set -uo pipefail
nesl=$(realpath "$1")
vinterp=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >mm.nesl <<'EOF_NESL'
function mm(a, b) = {{sum({x * y : x in r; y in c}) : c in transpose(b)} : r in a};
function mat(n) = {{float(rem(i * 7 + j * 3, 11)) : j in [0:n]} : i in [0:n]};
let n = 2000; c = mm(mat(n), mat(n)) in sum({sum(r) : r in c});
EOF_NESL
"$nesl" --vcode mm.nesl -o mm.vcode || { echo "FAILED: nesl --vcode"; exit 1; }
expected='( 1.99999942005000e+11 )'
found=$("$vinterp" --threads 1 --max-memory 450M mm.vcode 2>&1)
[ "$found" = "$expected" ] || { echo "FAILED: expected $expected, found:"; echo "$found" | head -5; exit 1; }
