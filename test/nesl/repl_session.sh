#!/usr/bin/env bash
# Pipes repl/NAME.in into `nesl` (no file: the interactive loop, reading forms from a pipe)
# and compares everything it prints, stdout and stderr together, with repl/NAME.expected.
# usage: repl_session.sh NESL [NAME]   (NAME defaults to session)
set -euo pipefail
nesl=$1
name=${2:-session}
cd "$(dirname "$0")/repl"
found=$("$nesl" --threads 1 < "$name.in" 2>&1) || { echo "nesl exited with status $?"; exit 1; }
if [ "$found" != "$(cat "$name.expected")" ]; then
  echo "FAILED: the session's output differs from repl/$name.expected:"
  diff <(echo "$found") "$name.expected" || true
  exit 1
fi
echo "repl $name: $(wc -l < "$name.expected") lines match"
