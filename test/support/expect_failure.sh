#!/bin/sh
# usage: expect_failure.sh STATUS TEXT COMMAND [ARG...]
# Runs COMMAND and passes when it exits with STATUS and prints TEXT (a fixed string, on stdout or
# stderr): for tests that show a tool refusing what it must refuse.
expected_status=$1
expected_text=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$expected_status" ]; then
  echo "expect_failure.sh: exit status $status, expected $expected_status"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -qF -- "$expected_text"; then
  echo "expect_failure.sh: the output lacks \"$expected_text\""
  exit 1
fi
