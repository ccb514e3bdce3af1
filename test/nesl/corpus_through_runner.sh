#!/bin/sh
# usage: corpus_through_runner.sh NESL CORPUS_RUNNER WORK_DIR SOURCE_DIR [CORPUS_RUNNER ARG...]
# Compiles every SOURCE_DIR/NAME.nesl into WORK_DIR (compile_dir.sh), then lets the corpus runner
# run and compare them as it does the classic compiler's VCODE, with the same rules (the corpus's
# unspecified FPERMUTE slots, exit 1 with "division by zero" for the classic's SIGFPE).
# Exits 77 (skipped) when SOURCE_DIR is missing.
nesl=$1
runner=$2
work=$3
source=$4
shift 4
failed=0
"$(dirname "$0")/compile_dir.sh" "$nesl" "$work" "$source"
case $? in
  0) ;;
  77) exit 77 ;;
  *) failed=1 ;;
esac
"$runner" --dir "$work" --suite corpus "$@" || failed=1
exit $failed
