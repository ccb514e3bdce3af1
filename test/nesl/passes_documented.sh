#!/usr/bin/env bash
# The compiler's passes are listed once, in the pipeline: `nesl --help`, the man page's
# --dump-after and --time-passes entries, and --time-passes' own lines must name the same
# passes in the same order as the pipeline (which a bad --dump-after prints).
# usage: passes_documented.sh NESL MAN_PAGE
set -uo pipefail
nesl=$1 man_page=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$nesl" --dump-after no-such-pass x.nesl 2>"$work/err" && fail "a bad --dump-after was accepted"
passes=$(sed -n "s/^nesl: --dump-after expects one of \(.*\), not 'no-such-pass'$/\1/p" "$work/err")
[ -n "$passes" ] || fail "no pass list in: $(cat "$work/err")"
# The pass names a man page entry lists (.B/.BR lines up to the next .TP or .SH), in order.
man_entry() {
  awk -v start="$1" '$0 == start { on = 1; next } on && /^\.(TP|SH)/ { exit } on && /^\.BR? [a-z]/ { print $2 }' \
    "$man_page" | sed 's/\\-/-/g' | tr '\n' ' ' | sed 's/ $//'
}
[ "$(man_entry '.BI \-\-dump\-after " pass"')" = "$passes" ] || fail "man page --dump-after lists '$(man_entry '.BI \-\-dump\-after " pass"')', the pipeline '$passes'"
[ "$(man_entry '.B \-\-time\-passes')" = "$passes" ] || fail "man page --time-passes lists '$(man_entry '.B \-\-time\-passes')', the pipeline '$passes'"
help=$("$nesl" --help | sed -n 's/^  --dump-after PASS  print the program after PASS: //p' | sed 's/,//g; s/ or / /')
[ "$help" = "$passes" ] || fail "--help lists '$help', the pipeline '$passes'"
echo 'x = 1; x + 1;' >"$work/p.nesl"
timed=$("$nesl" --vcode --time-passes "$work/p.nesl" 2>&1 >/dev/null | sed -n 's/^pass \([^:]*\): .*/\1/p' | tr '\n' ' ' | sed 's/ $//')
[ "$timed" = "$passes" ] || fail "--time-passes printed '$timed', the pipeline '$passes'"
echo "passes documented: $passes"
