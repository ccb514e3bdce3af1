#!/usr/bin/env bash
# compare_output.sh EXPECTED ACTUAL: compares two outputs of a benchmark program (vinterp's stack
# dump, or a hand-written baseline's imitation of it), every line but the last (the timer).
# Prints `same` (byte for byte), `close` (same shape; every float within 1e-9 relative, the corpus
# tolerance; integers equal) or `DIFFERS: line N: ...`; exit status 0 for same and close, 1 else.
set -uo pipefail
[[ $# -eq 2 && -f "$1" && -f "$2" ]] || { echo "usage: compare_output.sh EXPECTED_FILE ACTUAL_FILE" >&2; exit 2; }
if cmp -s <(sed '$d' "$1") <(sed '$d' "$2"); then
  echo same
  exit 0
fi
expected_lines=$(sed '$d' "$1" | wc -l)
actual_lines=$(sed '$d' "$2" | wc -l)
if [[ "$expected_lines" -ne "$actual_lines" ]]; then
  echo "DIFFERS: $actual_lines lines before the timer, expected $expected_lines"
  exit 1
fi
paste -d'|' <(sed '$d' "$1") <(sed '$d' "$2") | awk -F'|' '
  # Splits "( a b c )" into the array v; returns the count.
  function fields(line, v) { gsub(/^[([] *| *[])]$/, "", line); return split(line, v, " ") }
  {
    ne = fields($1, e); na = fields($2, a)
    if (ne != na) { printf "DIFFERS: line %d: %d values, expected %d\n", NR, na, ne; bad = 1; exit 1 }
    for (i = 1; i <= ne; i++) {
      if (e[i] == a[i]) continue
      if (e[i] !~ /[.eEn]/ || a[i] !~ /[.eEn]/) { bad = 1 }  # integers, booleans: exact
      else {
        d = e[i] - a[i]; if (d < 0) d = -d
        s = e[i] < 0 ? -e[i] : e[i]
        if (d > 1e-9 * s) bad = 1
      }
      if (bad) { printf "DIFFERS: line %d: %s, expected %s\n", NR, a[i], e[i]; exit 1 }
    }
  }
  END { if (!bad) print "close"; exit bad }'
