#!/usr/bin/env bash
# The CTest checks of a hand-written baseline (bench/baselines/CMakeLists.txt):
#   check_baseline.sh classic BASELINE BENCH_DIR PROGRAM SIZE...
#     runs BASELINE --size SIZE for each SIZE and compares its stdout with
#     BENCH_DIR/PROGRAM.SIZE.expected, the classic interpreter's output (bench/compare_output.sh:
#     the timer line aside, integers exactly, floats within 1e-9 relative). Exit 77 (skipped)
#     without BENCH_DIR.
#   check_baseline.sh errors BASELINE
#     bad arguments must each give exit status 2 and a message naming the program.
set -uo pipefail

mode=${1:-}
baseline=${2:-}
[[ -x "$baseline" ]] || { echo "check_baseline.sh: no baseline program '$baseline'" >&2; exit 1; }
name=$(basename "$baseline")
compare="$(dirname "${BASH_SOURCE[0]}")/../compare_output.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/check_baseline.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0

case "$mode" in
  classic)
    bench_dir=$3 program=$4
    shift 4
    if [[ ! -d "$bench_dir" ]]; then
      echo "skipped: $bench_dir not found (the shared corpus)"
      exit 77
    fi
    for size in "$@"; do
      expected="$bench_dir/$program.$size.expected"
      [[ -f "$expected" ]] || { echo "FAIL: $expected not found"; status=1; continue; }
      if ! out=$("$baseline" --size "$size"); then
        echo "FAIL: $name --size $size exited with an error"
        status=1
        continue
      fi
      printf '%s\n' "$out" > "$work/out"
      if verdict=$("$compare" "$expected" "$work/out"); then
        echo "ok ($verdict): $program $size: $(sed '$d' "$work/out" | tr '\n' ' ')"
      else
        echo "FAIL: $program $size: $verdict; the baseline printed"
        printf '%s\n' "$out" | sed 's/^/  /'
        echo "  the classic printed"
        sed 's/^/  /' "$expected"
        status=1
      fi
    done
    ;;
  errors)
    for args in "--size -1" "--size 0" "--size 12x" "--size" "--threads -2" "--bogus"; do
      # shellcheck disable=SC2086  # the arguments are meant to split
      err=$("$baseline" $args 2>&1 >/dev/null)
      rc=$?
      if [[ $rc -eq 2 && "$err" == "$name:"* ]]; then
        echo "ok: $name $args -> exit 2: $err"
      else
        echo "FAIL: $name $args -> exit $rc, message '$err' (expected exit 2 and a message naming $name)"
        status=1
      fi
    done
    ;;
  *)
    echo "usage: check_baseline.sh classic BASELINE BENCH_DIR PROGRAM SIZE... | errors BASELINE" >&2
    exit 2
    ;;
esac
exit $status
