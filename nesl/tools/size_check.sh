#!/usr/bin/env bash
# The compiler's size limits: no source file over 800 lines and no function over 150 lines under
# the given folders (functions found by their layout: a signature at indentation 0 or 2 ending in
# `{`, ended by `}` at the same indentation). Prints each one over and exits 1 if any.
# usage: nesl/tools/size_check.sh DIR...
set -euo pipefail
status=0
while IFS= read -r file; do
  lines=$(wc -l <"$file")
  if [ "$lines" -gt 800 ]; then
    echo "$file: $lines lines (at most 800)"
    status=1
  fi
  awk -v file="$file" '
    start == 0 && match($0, /^ ?( ?)[^ \/#}].*\)( const)?( override)? \{$/) {
      indent = substr($0, 1, match($0, /[^ ]/) - 1); start = NR; name = $0; next
    }
    start != 0 && $0 == indent "}" {
      if (NR - start - 1 > 150) { printf "%s:%d: a function of %d lines (at most 150): %s\n", file, start, NR - start - 1, name; bad = 1 }
      start = 0
    }
    END { exit bad }' "$file" || status=1
done < <(find "$@" -name '*.cpp' -o -name '*.hpp' | sort)
exit $status
