#!/usr/bin/env bash
# Ctrl-C in a session: `nesl` reads from a pipe, a form that recurses for minutes starts, SIGINT
# comes until it reports `Interrupted.`, and the forms after it must still run. Then `nesl FILE`
# with the same form: SIGINT ends it with status 130.
# usage: repl_interrupt.sh NESL
set -uo pipefail
nesl=$1
work=$(mktemp -d)
pid=
trap 'exec 3>&- 2>/dev/null; [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; echo "--- output:"; cat "$work/out"; exit 1; }
# Job control: a background job keeps SIGINT (a shell without it ignores SIGINT in its jobs).
set -m

long_form='function fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2);'
mkfifo "$work/in"
"$nesl" --threads 1 <"$work/in" >"$work/out" 2>&1 &
pid=$!
exec 3>"$work/in"
echo "$long_form" >&3
echo 'fib(60);' >&3
# SIGINT once a second until the form reports it stopped (a signal that comes while the line is
# still being read only stops the next form, so one may not be enough).
for ((i = 0; i < 30; i++)); do
  sleep 1
  kill -INT "$pid" 2>/dev/null || fail "nesl ended at the interrupt"
  grep -q '^Interrupted\.$' "$work/out" && break
done
grep -q '^Interrupted\.$' "$work/out" || fail "no 'Interrupted.' after 30 s of SIGINTs"
echo 'fib(10) + 1;' >&3
echo 'exit;' >&3
exec 3>&-
timeout 30 tail --pid="$pid" -f /dev/null || fail "nesl did not leave after exit;"
wait "$pid"
status=$?
[ "$status" = 0 ] || fail "the session ended with status $status, expected 0"
expected="fib = fn : int -> int
Interrupted.
it = 56 : int"
[ "$(cat "$work/out")" = "$expected" ] || { echo "expected:"; echo "$expected"; fail "the session printed otherwise"; }

# nesl FILE: Ctrl-C ends the process, as for any program.
printf '%s\nfib(60);\n' "$long_form" >"$work/long.nesl"
"$nesl" --threads 1 "$work/long.nesl" >"$work/out" 2>&1 &
pid=$!
sleep 2
kill -INT "$pid"
timeout 30 tail --pid="$pid" -f /dev/null || fail "nesl FILE did not end at SIGINT"
wait "$pid"
status=$?
[ "$status" = 130 ] || fail "nesl FILE ended with status $status at SIGINT, expected 130"
echo "interrupt: the session went on after Ctrl-C; nesl FILE ended with 130"
