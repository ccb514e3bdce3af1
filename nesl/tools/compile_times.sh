#!/usr/bin/env bash
# How long `nesl --vcode` takes to compile each corpus program and each neslgpu benchmark: the
# median of 5 runs of the whole process (start, compile, write), in milliseconds, one line per
# program, then the minimum, median and maximum over the corpus and over the benchmarks.
# usage: nesl/tools/compile_times.sh NESL [SHARED_DIR]   (SHARED_DIR: default /work/shared)
set -euo pipefail
nesl=${1:?usage: compile_times.sh NESL [SHARED_DIR]}
shared=${2:-/work/shared}
runs=5
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# The median of `runs` timings of one compilation, in milliseconds with one decimal.
median_ms() {
  local times=() start end
  for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$nesl" --vcode "$1" -o "$out" >/dev/null 2>&1 || { echo "compile failed: $1" >&2; exit 1; }
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p" |
    awk '{ printf "%.1f\n", $1 / 1000 }'
}

# min, median and max of the numbers on standard input.
summary() {
  sort -n | awk '{ v[NR] = $1 } END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%d programs: min %.1f ms, median %.1f ms, max %.1f ms\n", NR, v[1], m, v[NR] }'
}

for set in corpus neslgpu-bench/nesl; do
  echo "== $set (ms, median of $runs)"
  times=()
  for program in "$shared/$set"/*.nesl; do
    ms=$(median_ms "$program")
    times+=("$ms")
    printf '%8s  %s\n' "$ms" "$(basename "$program")"
  done
  printf '%s\n' "${times[@]}" | summary
done
