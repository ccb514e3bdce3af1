#!/bin/sh
# usage: compile_dir.sh NESL WORK_DIR SOURCE_DIR
# Compiles every SOURCE_DIR/NAME.nesl with `nesl --vcode` (with `--arg-check off` where
# NAME.argcheck says so) into WORK_DIR (emptied first) beside a copy of its expected files, so that
# the corpus runner can run and compare them as it does the classic compiler's VCODE. Prints what
# did not compile and exits 1 if anything did not; exits 77 (skipped) when SOURCE_DIR is missing.
nesl=$1
work=$2
source=$3
[ -d "$source" ] || { echo "skipped: $source is missing"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
failed=0
for program in "$source"/*.nesl; do
  name=$(basename "$program" .nesl)
  check=on
  [ -f "$source/$name.argcheck" ] && check=$(tr -d ' \n' < "$source/$name.argcheck")
  if ! "$nesl" --vcode "$program" --arg-check "$check" -o "$work/$name.vcode" 2> "$work/$name.compile"; then
    echo "FAIL $name: nesl did not compile it:"
    cat "$work/$name.compile"
    failed=1
    continue
  fi
  rm -f "$work/$name.compile"
  for kind in expected stderr stderr_contains exitcode in; do
    [ -f "$source/$name.$kind" ] && cp "$source/$name.$kind" "$work/"
  done
done
exit $failed
