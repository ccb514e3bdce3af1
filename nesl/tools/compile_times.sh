#!/usr/bin/env bash
# How long `nesl --vcode` takes to compile each corpus program and each neslgpu benchmark (the
# whole process: start, compile, write), the median of 5 runs, in milliseconds: the wall-clock
# time, which a busy machine stretches, and the CPU time (user + system), which it does not.
# One line per program, then the minimum, median and maximum of each over the corpus and over
# the benchmarks. A benchmark is a file of definitions: its driver expression is added to it.
# usage: nesl/tools/compile_times.sh NESL [SHARED_DIR]   (SHARED_DIR: default ../shared beside the checkout)
set -euo pipefail
nesl=${1:?usage: compile_times.sh NESL [SHARED_DIR]}
shared=${2:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}
runs=5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# "WALL CPU" of one compilation, in seconds (bash's `time`, to the millisecond).
one_run() {
  local TIMEFORMAT='%3R %3U %3S' timing
  timing=$( { time "$nesl" --vcode "$1" -o "$work/out.vcode" >/dev/null 2>"$work/err"; } 2>&1 ) ||
    { echo "compile failed: $1" >&2; cat "$work/err" >&2; exit 1; }
  awk '{ printf "%.0f %.0f\n", $1 * 1000, ($2 + $3) * 1000 }' <<<"$timing"
}

# The median wall and CPU milliseconds of `runs` compilations.
medians() {
  for ((i = 0; i < runs; i++)); do one_run "$1"; done >"$work/runs"
  echo "$(cut -d' ' -f1 "$work/runs" | sort -n | sed -n "$(((runs + 1) / 2))p")" \
       "$(cut -d' ' -f2 "$work/runs" | sort -n | sed -n "$(((runs + 1) / 2))p")"
}

# min / median / max of column $1 of standard input.
summary() {
  cut -d' ' -f"$1" | sort -n | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%d / %g / %d", v[1], m, v[NR] }'
}

report() {  # $1: title; then the programs
  local title=$1 program
  shift
  echo "== $title: wall ms, CPU ms (median of $runs)"
  : >"$work/all"
  for program in "$@"; do
    read -r wall cpu < <(medians "$program")
    printf '%6d %6d  %s\n' "$wall" "$cpu" "$(basename "$program")"
    echo "$wall $cpu" >>"$work/all"
  done
  echo "$# programs, min / median / max: wall $(summary 1 <"$work/all") ms, CPU $(summary 2 <"$work/all") ms"
}

report corpus "$shared"/corpus/*.nesl
# Each benchmark with its first expression of test/nesl/bench_drivers.txt appended.
drivers=$(dirname "$0")/../../test/nesl/bench_drivers.txt
benchmarks=()
while IFS='|' read -r name expression _; do
  name=$(echo "$name" | tr -d ' ')
  if [ -z "$name" ] || [ "${name:0:1}" = "#" ] || [ -e "$work/$name.nesl" ]; then continue; fi
  { cat "$shared/neslgpu-bench/nesl/$name.nesl"; echo; echo "$expression"; } >"$work/$name.nesl"
  benchmarks+=("$work/$name.nesl")
done <"$drivers"
report "neslgpu benchmarks" "${benchmarks[@]}"
