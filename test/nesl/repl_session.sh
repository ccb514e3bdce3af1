#!/usr/bin/env bash
# Pipes repl/session.in into `nesl` (no file: the interactive loop, reading forms from a pipe)
# and compares everything it prints, stdout and stderr together, with repl/session.expected.
# usage: repl_session.sh NESL
set -euo pipefail
nesl=$1
cd "$(dirname "$0")/repl"
found=$("$nesl" --threads 1 < session.in 2>&1) || { echo "nesl exited with status $?"; exit 1; }
if [ "$found" != "$(cat session.expected)" ]; then
  echo "FAILED: the session's output differs from repl/session.expected:"
  diff <(echo "$found") session.expected || true
  exit 1
fi
echo "repl session: $(wc -l < session.expected) lines match"
