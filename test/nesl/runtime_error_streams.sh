#!/usr/bin/env bash
# Where a runtime error goes under `nesl FILE`: the classic REPL's own lines ("Error at top
# level.", "Error while running VCODE.", the SIGFPE it died of) on standard output, and every
# line that says what went wrong (RUNTIME ERROR, a program's own ERROR, our note) on standard error, never the VM's
# words. Run over runtime_errors/, whose NAME.expected files hold both streams together.
# usage: runtime_error_streams.sh NESL
set -uo pipefail
nesl=$1
cd "$(dirname "$0")/runtime_errors"
checked=0
for program in *.nesl; do
  name=${program%.nesl}
  arg_check=on
  [ -f "$name.argcheck" ] && arg_check=$(tr -d ' \n' <"$name.argcheck")
  out=$("$nesl" --threads 1 --arg-check "$arg_check" "$program" 2>/dev/null </dev/null)
  err=$("$nesl" --threads 1 --arg-check "$arg_check" "$program" 2>&1 >/dev/null </dev/null)
  if grep -q "RUNTIME ERROR\|vinterp\|note:" <<<"$out"; then
    echo "FAILED: $program: an error line on standard output:"; echo "$out"; exit 1
  fi
  if ! grep -q "^RUNTIME ERROR: \|^ERROR: \|^Floating point exception" <<<"$err$out"; then
    echo "FAILED: $program: no RUNTIME ERROR line on standard error:"; echo "$err"; exit 1
  fi
  if grep -q "vinterp" <<<"$err"; then
    echo "FAILED: $program: the VM's words on standard error:"; echo "$err"; exit 1
  fi
  checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || { echo "FAILED: no program in runtime_errors/"; exit 1; }
echo "runtime error streams: $checked programs, errors on standard error in NESL's words"
