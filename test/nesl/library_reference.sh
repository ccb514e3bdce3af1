#!/usr/bin/env bash
# doc/library.md must be what `nesl --library-reference` prints from the built-ins'
# documentation strings (cmake --build build --target library_reference writes it again), and
# `nesl --describe` prints one entry (a keyword's too); an unknown name exits with 1 and the
# closest names.
# usage: library_reference.sh NESL SOURCE_DIR
set -uo pipefail
nesl=$1 page=$2/doc/library.md
fail() { echo "FAIL: $*"; exit 1; }
generated=$("$nesl" --library-reference) || fail "nesl --library-reference exited with status $?"
if [ "$generated" != "$(cat "$page")" ]; then
  echo "FAIL: doc/library.md is stale; write it again with: cmake --build build --target library_reference"
  diff <(echo "$generated") "$page" | head -20
  exit 1
fi
entries=$(grep -c '^- `' "$page")
[ "$entries" -gt 200 ] || fail "doc/library.md has only $entries entries"
expected='plus_scan(v) : [a] -> [a] :: (a in number)'
[ "$("$nesl" --describe plus_scan | head -1)" = "$expected" ] || fail "--describe plus_scan: $("$nesl" --describe plus_scan)"
[ "$("$nesl" --describe if | head -1)" = "if COND then EXP1 else EXP2 (syntax)" ] || fail "--describe if: $("$nesl" --describe if 2>&1)"
out=$("$nesl" --describe lenght 2>&1 >/dev/null)
status=$?
[ $status -eq 1 ] || fail "--describe of an unknown name exited with $status"
[ "$out" = "nesl: describe: no function, operator, constant or variable is named 'lenght' (did you mean 'length'?)" ] ||
  fail "--describe lenght said: $out"
echo "library reference: doc/library.md is current ($entries entries); --describe works"
