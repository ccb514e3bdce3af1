#!/usr/bin/env bash
# cvl-mpi against cvl-cpu at the same total thread count: the benchmark programs at 1, 2 and 4
# processes (one thread each) and at 1, 2 and 4 threads, alternating (bench/run_benchmarks.sh),
# then the communication of each process count from --profile. See bench/README.md.
set -euo pipefail

usage() {
  cat <<'EOF_USAGE'
usage: bench/mpi_benchmarks.sh [BUILD_DIR] [--runs N] [--programs "LIST"] [--ranks "LIST"]
                               [--reduced] [--shared DIR] [--csv FILE] [--opcodes N]

  BUILD_DIR        the CMake build directory (default: build), built with MPI (cvl-mpi)
  --runs N         rounds for the timings (default 3); medians
  --programs LIST  default "qs black-scholes quickhull bh dotp"
  --ranks LIST     process counts (default "1 2 4"); cvl-cpu runs at the same thread counts
  --reduced        the reduced programs (a smoke test)
  --csv FILE       the timings' CSV (bench/run_benchmarks.sh's columns)
  --opcodes N      per-opcode communication tables at the largest process count, for the first
                   N programs (default: every program; 0: none)
Prints three tables: timings (from run_benchmarks.sh), mpi/cpu ratios per program and count, and
messages, bytes and collective calls per run; then the per-opcode table.
EOF_USAGE
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=build
runs=3
programs="qs black-scholes quickhull bh dotp"
ranks="1 2 4"
reduced=()
shared_args=()
csv=""
opcodes=99
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --reduced) reduced=(--reduced); shift ;;
    --shared) shared_args=(--shared "$2"); shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --opcodes) opcodes=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --*) echo "mpi_benchmarks.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) build_dir=$1; shift ;;
  esac
done
[[ "$build_dir" = /* ]] || build_dir="$PWD/$build_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[[ -n "$csv" ]] || csv="$work/timings.csv"

variants=""
for n in $ranks; do variants+="vcode-$n mpi-$n "; done
"$repo_root/bench/run_benchmarks.sh" "$build_dir" --runs "$runs" --variants "$variants" \
  --programs "$programs" "${reduced[@]}" "${shared_args[@]}" --csv "$csv"

echo
echo "# mpi-N / vcode-N (cvl-mpi at N processes against cvl-cpu at N threads): medians' ratios"
printf '%-14s %9s %6s %10s %10s %10s %10s %8s %8s\n' program size N "cpu wall" "mpi wall" \
  "cpu timed" "mpi timed" "wall x" "timed x"
awk -F, 'NR > 1 { key = $1 "," $2; wall[key "," $3] = $6; timed[key "," $3] = $9; keys[key] = 1 }
  END {
    n = split(RANKS, r, " ")
    for (key in keys) for (i = 1; i <= n; i++) {
      c = key ",vcode-" r[i]; m = key ",mpi-" r[i]
      if (!(c in wall) || !(m in wall)) continue
      split(key, kv, ",")
      wx = wall[c] > 0 ? sprintf("%.2f", wall[m] / wall[c]) : "-"
      tx = timed[c] > 0 ? sprintf("%.2f", timed[m] / timed[c]) : "-"
      printf "%-14s %9s %6s %10s %10s %10s %10s %8s %8s\n", kv[1], kv[2], r[i], wall[c], wall[m], timed[c], timed[m], wx, tx
    }
  }' RANKS="$ranks" "$csv" | sort -k1,1 -k3,3n

# Communication: one --profile run per program and process count, on the files a dry run makes.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
"$repo_root/bench/run_benchmarks.sh" "$build_dir" --variants "mpi-1" --programs "$programs" \
  "${reduced[@]}" "${shared_args[@]}" --dry-run --files-dir "$work/files" > "$work/jobs"
echo
echo "# communication per run (--profile: messages and payload bytes all processes sent; MPI collective"
echo "# calls, which every process makes)"
printf '%-14s %9s %6s %12s %14s %14s %12s\n' program size N messages bytes "bytes/element" collectives
shown=0
last_n=${ranks##* }
while read -r name _ size _; do
  file=$(awk -v n="$name" -v s="$size" '$1 == n && $3 == s {f = 1; next} f && /mpi-1:/ {print $NF; exit}' "$work/jobs")
  [[ -n "$file" ]] || continue
  for n in $ranks; do
    mpirun -q --oversubscribe -np "$n" "$build_dir/vinterp/vinterp" --backend mpi --profile "$file" \
      < /dev/null > /dev/null 2> "$work/profile.$n"
    # The per-process table's total row; none when nothing was sent (one process).
    total=$(awk '$1 == "total" && NF == 3 {print $2, $3}' "$work/profile.$n")
    read -r messages bytes <<< "${total:-0 0}"
    collectives=$(awk '/^collective calls in the whole run:/ {print $7}' "$work/profile.$n")
    printf '%-14s %9s %6s %12s %14s %14s %12s\n' "$name" "$size" "$n" "$messages" "$bytes" \
      "$(awk -v b="$bytes" -v s="$size" 'BEGIN { printf "%.1f", b / s }')" "${collectives:-0}"
  done
  if [[ $shown -lt $opcodes ]]; then
    cp "$work/profile.$last_n" "$work/opcodes.$name"
    shown=$((shown + 1))
  fi
done < <(grep -E '^[a-z-]+ size [0-9]+' "$work/jobs")
for f in "$work"/opcodes.*; do
  [[ -f "$f" ]] || continue
  echo
  echo "# per opcode at $last_n processes: ${f##*/opcodes.} (the opcodes that sent anything or made a collective call)"
  awk '/^opcode/ {print; on = 1; next} on && $1 == "total" {print; on = 0} on && ($(NF - 2) > 0 || $NF > 0)' "$f"
done
