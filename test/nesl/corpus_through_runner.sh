#!/bin/sh
# usage: corpus_through_runner.sh NESL CORPUS_RUNNER WORK_DIR SOURCE_DIR [CORPUS_RUNNER ARG...]
# Compiles every SOURCE_DIR/NAME.nesl with `nesl --vcode` (with `--arg-check off` where
# NAME.argcheck says so) into WORK_DIR beside a copy of its expected files, then lets the corpus
# runner run and compare them as it does the classic compiler's VCODE, with the same rules (the
# corpus's unspecified FPERMUTE slots, exit 1 with "division by zero" for the classic's SIGFPE).
# Exits 77 (skipped) when SOURCE_DIR is missing.
nesl=$1
runner=$2
work=$3
source=$4
shift 4
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
  for kind in expected stderr stderr_contains exitcode in; do
    [ -f "$source/$name.$kind" ] && cp "$source/$name.$kind" "$work/"
  done
done
"$runner" --dir "$work" --suite corpus "$@" || failed=1
exit $failed
