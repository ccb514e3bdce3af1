#!/usr/bin/env bash
# Runs the examples of a Markdown document as a reader would type them and compares the output.
#   ```nesl-session   lines starting with `<Nesl> ` are typed at nesl's prompt (`> ` starts a
#                     line that goes on with the same form), all other lines are what nesl prints
#                     (stdout and stderr together). All such blocks of one document are one
#                     session, in order, so later blocks may use what earlier ones defined.
#   ```console        lines starting with `$ ` are shell commands, each followed by what it prints
#                     (stdout and stderr together); they run in order in one scratch folder that
#                     has nesl-examples/ in it, with nesl and vinterp on the PATH. A command that
#                     names cuda-emulated is skipped where this vinterp has no such backend.
# Other code blocks are not run. A document with nothing to run fails, so does any difference.
# usage: doc_sessions.sh NESL VINTERP SOURCE_ROOT DOC SCRATCH_DIR
set -uo pipefail
nesl=$1 vinterp=$2 root=$3 doc=$4 scratch=$5
rm -rf "$scratch" && mkdir -p "$scratch" || exit 1
ln -s "$root/nesl-examples" "$scratch/nesl-examples"
bin=$scratch/bin
mkdir -p "$bin" && ln -s "$nesl" "$bin/nesl" && ln -s "$vinterp" "$bin/vinterp"
has_emulated=0
"$vinterp" --version | grep -q cuda-emulated && has_emulated=1

failures=0 commands=0 skipped=0
session_in=$scratch/session.in session_expected=$scratch/session.expected
: > "$session_in"; : > "$session_expected"
command="" command_line=0 expected=""

# Runs the command read last and compares what it printed with the lines that followed it.
finish_command() {
  [ -z "$command" ] && return
  if [ $has_emulated = 0 ] && [[ $command == *cuda-emulated* ]]; then
    echo "skipped (no cuda-emulated here): $command"
    skipped=$((skipped + 1))
  else
    commands=$((commands + 1))
    local found
    found=$(cd "$scratch" && PATH="$bin:$PATH" bash -c "$command" 2>&1)
    if [ "$found" != "$expected" ]; then
      echo "FAILED: $doc:$command_line: \$ $command (< printed, > in the document):"
      diff <(echo "$found") <(echo "$expected")
      failures=$((failures + 1))
    fi
  fi
  command="" expected=""
}

block="" line_number=0
while IFS= read -r line || [ -n "$line" ]; do
  line_number=$((line_number + 1))
  if [ -z "$block" ]; then
    case "$line" in
      '```nesl-session') block=nesl ;;
      '```console') block=console ;;
      '```'*) block=other ;;
    esac
    continue
  fi
  if [ "$line" = '```' ]; then
    [ "$block" = console ] && finish_command
    block=""
    continue
  fi
  case "$block" in
    nesl)
      case "$line" in
        '<Nesl> '*) printf '%s\n' "${line#<Nesl> }" >> "$session_in" ;;
        '> '*) printf '%s\n' "${line#> }" >> "$session_in" ;;
        *) printf '%s\n' "$line" >> "$session_expected" ;;
      esac ;;
    console)
      if [[ $line == '$ '* ]]; then
        finish_command
        command=${line#\$ } command_line=$line_number
      elif [ -n "$command" ]; then
        expected+="${expected:+$'\n'}$line"
      else
        echo "FAILED: $doc:$line_number: output before any \$ command in a console block"
        failures=$((failures + 1))
      fi ;;
  esac
done < "$doc"
if [ -n "$block" ]; then
  echo "FAILED: $doc: a code block is not closed"; failures=$((failures + 1))
fi

forms=$(wc -l < "$session_in")
if [ "$forms" -gt 0 ]; then
  found=$(cd "$scratch" && "$nesl" --threads 1 < "$session_in" 2>&1)
  if [ "$found" != "$(cat "$session_expected")" ]; then
    echo "FAILED: $doc: the nesl-session blocks, run as one session, print otherwise"
    echo "(< printed, > in the document; the input is $session_in):"
    diff <(echo "$found") "$session_expected"
    failures=$((failures + 1))
  fi
fi
if [ "$forms" -eq 0 ] && [ $commands -eq 0 ]; then
  echo "FAILED: $doc has no nesl-session or console block to run"; exit 1
fi
[ $failures = 0 ] || exit 1
echo "$doc: $forms lines typed at nesl's prompt and $commands commands print what the document says ($skipped skipped)"
