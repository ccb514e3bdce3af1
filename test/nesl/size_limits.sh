#!/usr/bin/env bash
# The compiler's size limits (nesl/tools/size_check.sh): nesl/ keeps them, and a function of 151
# lines or a file of 801 lines is reported.
# usage: size_limits.sh SOURCE_DIR
set -uo pipefail
source_dir=$1
check=$source_dir/nesl/tools/size_check.sh
"$check" "$source_dir/nesl" || { echo "FAIL: nesl/ is over the limits"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{ echo "int long_one(int x) {"; for i in $(seq 151); do echo "  x += $i;"; done; echo "  return x;"; echo "}"; } >"$work/long_function.cpp"
out=$("$check" "$work" 2>&1) && { echo "FAIL: a function of 152 lines passed"; exit 1; }
grep -q "long_function.cpp:1: a function of 152 lines" <<<"$out" || { echo "FAIL: $out"; exit 1; }
rm "$work/long_function.cpp"
for i in $(seq 801); do echo "// line $i"; done >"$work/long_file.hpp"
out=$("$check" "$work" 2>&1) && { echo "FAIL: a file of 801 lines passed"; exit 1; }
grep -q "long_file.hpp: 801 lines" <<<"$out" || { echo "FAIL: $out"; exit 1; }
echo "size limits: nesl/ keeps them; a long function and a long file are reported"
