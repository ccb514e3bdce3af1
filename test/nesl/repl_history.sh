#!/usr/bin/env bash
# The REPL at a terminal (nesl in tmux, HOME in a scratch folder) keeps a form typed over three
# lines as one history entry: ~/.nesl_history holds two entries after the function and `exit;`,
# and in a new session one up-arrow past `exit;` brings the whole function back, which runs again
# as it was typed. Skipped (77) without tmux.
# usage: repl_history.sh NESL
set -uo pipefail
nesl=$1
command -v tmux >/dev/null || { echo "skipped: no tmux"; exit 77; }
work=$(mktemp -d)
socket=$work/tmux.socket
trap 'tmux -S "$socket" kill-server 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; echo "--- the screen:"; cat "$work/screen"; exit 1; }

# A session of nesl at a terminal; `ended` appears when it exits.
start() {
  rm -f "$work/ended"
  tmux -f /dev/null -S "$socket" new-session -d -s repl -x 120 -y 50 \
    "env HOME='$work' '$nesl' --threads 1; touch '$work/ended'" || fail "tmux did not start"
}
wait_for() {  # TEXT: until the screen shows it (at most 20 s)
  for _ in $(seq 200); do
    tmux -S "$socket" capture-pane -p -t repl >"$work/screen" 2>/dev/null
    grep -qF -- "$1" "$work/screen" && return 0
    sleep 0.1
  done
  fail "the screen never showed '$1'"
}
# The continuation prompt on the last line: nesl waits for the form's next line.
wait_for_continuation() {
  for _ in $(seq 200); do
    tmux -S "$socket" capture-pane -p -t repl >"$work/screen" 2>/dev/null
    [ "$(grep -v '^$' "$work/screen" | tail -n 1)" = ">" ] && return 0
    sleep 0.1
  done
  fail "no continuation prompt"
}
keys() { tmux -S "$socket" send-keys -t repl "$@"; }
# A line typed, then Enter (tmux takes a `;` that ends an argument for its own separator: `\;`).
typed() {
  local text=$1
  [[ $text == *\; ]] && text="${text%;}\\;"
  keys -l -- "$text"
  keys Enter
}
wait_ended() {
  for _ in $(seq 200); do [ -e "$work/ended" ] && return 0; sleep 0.1; done
  fail "nesl did not exit"
}

start
wait_for "<Nesl>"
typed "function sq(x) ="
wait_for_continuation
typed "  x *"
wait_for_continuation
typed "  x;"
wait_for "sq = fn : a -> a :: (a in number)"
typed "exit;"
wait_ended

# libedit's file: a first line of its own, then an entry a line, a newline written \012.
history=$work/.nesl_history
[ -f "$history" ] || fail "no ~/.nesl_history"
entries=$(tail -n +2 "$history")
[ "$(echo "$entries" | wc -l)" = 2 ] || fail "the history holds $(echo "$entries" | wc -l) entries, not 2:"$'\n'"$(cat "$history")"
first=$(echo "$entries" | head -n 1)
[[ $first == *sq\(x\)*'\012'*x*'\012'*x\;* ]] || fail "the first entry is not the function's three lines: $first"

start
wait_for "<Nesl>"
keys Up Up
wait_for "  x;"
keys Enter
wait_for "sq = fn : a -> a :: (a in number)"
typed "sq(3);"
wait_for "it = 9 : int"
typed "exit;"
wait_ended
echo "a three-line form is one history entry, recalled and run again whole"
