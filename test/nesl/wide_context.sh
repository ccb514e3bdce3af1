#!/usr/bin/env bash
# A nested apply-to-each whose instances pass 2^31 - 1 (9,004,500,500 logarithms) runs streamed,
# at all threads (one takes minutes): its context is the generator's descriptor, with no 32-bit total
# counted, so the sum is the float64 reference's (fsum of lgamma(j*j+1), agreeing to 1.5e-14).
# usage: wide_context.sh NESL VINTERP
set -uo pipefail
nesl=$(realpath "$1")
vinterp=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >sls.nesl <<'EOF_NESL'
function logsum(n) = sum({ln(float(i)) : i in [1:n+1]});
function sumlogsum(n) = sum({logsum(j*j) : j in [1:n+1]});
sumlogsum(3000);
EOF_NESL
"$nesl" --vcode sls.nesl -o sls.vcode || { echo "FAILED: nesl --vcode"; exit 1; }
expected='( 1.29182205313215e+11 )'
found=$("$vinterp" sls.vcode 2>&1)
[ "$found" = "$expected" ] || { echo "FAILED: expected $expected, found:"; echo "$found" | head -5; exit 1; }
