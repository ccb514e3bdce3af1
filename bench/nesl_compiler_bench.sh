#!/usr/bin/env bash
# Our NESL compiler's VCODE against the classic compiler's, for the five neslgpu benchmark sources
# at the sizes of ../shared/neslgpu-bench: both run by our vinterp at one thread, as VCODE and as
# FCODE (-O), alternating in each round; medians of the rounds and of the per-round ratios.
set -euo pipefail

usage() {
  cat <<'EOF_USAGE'
usage: bench/nesl_compiler_bench.sh [BUILD_DIR] [options]

  BUILD_DIR          the CMake build directory (default: build): nesl/nesl, vinterp/vinterp
  --runs N           rounds (default 3)
  --programs "LIST"  any of qs black-scholes quickhull bh dotp (default: all five)
  --reduced          the sizes of neslgpu-bench/reduced instead (a smoke test)
  --shared DIR       the shared material (default: ../shared next to the repository)
  -h, --help         this text

For each program, its NESL source plus the call that the classic compiler's .vcode was made from
is compiled by `nesl --vcode`, with `--arg-check off` where the classic's file holds no runtime
error message (it was compiled with `set arg_check off`: qs, quickhull, bh and dotp), so that both
check the same; both programs must print the same lines (all but the last, the timed region's
seconds). Columns: the medians of whole-process wall seconds and of the timed
region, classic compiler's VCODE then ours, and the median per-round ratio ours/classic's.
EOF_USAGE
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=build
runs=3
programs="qs black-scholes quickhull bh dotp"
reduced=0
shared_dir="$repo_root/../shared"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --reduced) reduced=1; shift ;;
    --shared) shared_dir=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "nesl_compiler_bench.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) build_dir=$1; shift ;;
  esac
done
case "$build_dir" in /*) ;; *) build_dir="$repo_root/$build_dir" ;; esac
nesl="$build_dir/nesl/nesl"
vinterp="$build_dir/vinterp/vinterp"
bench_dir="$shared_dir/neslgpu-bench"
for tool in "$nesl" "$vinterp"; do
  [ -x "$tool" ] || { echo "nesl_compiler_bench.sh: $tool is not built" >&2; exit 1; }
done
[ -d "$bench_dir/nesl" ] || { echo "nesl_compiler_bench.sh: no $bench_dir/nesl" >&2; exit 1; }

# The classic compiler's file for each program and the call it holds.
program_row() {
  if [ "$reduced" = 1 ]; then
    case "$1" in
      qs) echo "reduced/qs.r100000.vcode qs(100000)" ;;
      black-scholes) echo "reduced/black-scholes.r50000.vcode bench(50000)" ;;
      quickhull) echo "reduced/quickhull.r50000.vcode hull_demo(50000)" ;;
      bh) echo "reduced/bh.r200.vcode bh(200,200)" ;;
      dotp) echo "reduced/dotp.r100000.vcode run_dotprod(100000)" ;;
      *) return 1 ;;
    esac
  else
    case "$1" in
      qs) echo "qs.1000000.vcode qs(1000000)" ;;
      black-scholes) echo "black-scholes.10000000.vcode bench(10000000)" ;;
      quickhull) echo "quickhull.5000000.vcode hull_demo(5000000)" ;;
      bh) echo "bh.20000.vcode bh(20000,11000)" ;;
      dotp) echo "dotp.10000000.vcode run_dotprod(10000000)" ;;
      *) return 1 ;;
    esac
  fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run: prints "WALL TIMED" and keeps the output (all but the timer line) in $2.
run_once() {
  local file=$1 out=$2 extra=$3
  local start end
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$vinterp" --threads 1 $extra "$file" > "$out.full"
  end=$(date +%s.%N)
  head -n -1 "$out.full" > "$out"
  echo "$(echo "$end - $start" | bc -l) $(tail -n 1 "$out.full" | tr -d "() ")"
}

median() { sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-14s %-6s %10s %10s %7s %10s %10s %7s\n' program form "wall-cl" "wall-ours" ratio \
  "timed-cl" "timed-ours" ratio
status=0
for program in $programs; do
  read -r classic_file call < <(program_row "$program") || {
    echo "nesl_compiler_bench.sh: unknown program $program" >&2; exit 2; }
  cp "$bench_dir/nesl/$program.nesl" "$work/$program.nesl"
  printf '\n%s;\n' "$call" >> "$work/$program.nesl"
  checks=()
  grep -q 'RUNTIME ERROR' "$bench_dir/$classic_file" || checks=(--arg-check off)
  "$nesl" --vcode "${checks[@]}" "$work/$program.nesl" -o "$work/$program.ours.vcode"
  for form in VCODE FCODE; do
    extra=""
    [ "$form" = FCODE ] && extra="-O"
    : > "$work/rows"
    for _ in $(seq "$runs"); do
      read -r cw ct < <(run_once "$bench_dir/$classic_file" "$work/classic.out" "$extra")
      read -r ow ot < <(run_once "$work/$program.ours.vcode" "$work/ours.out" "$extra")
      if ! cmp -s "$work/classic.out" "$work/ours.out"; then
        echo "nesl_compiler_bench.sh: $program ($form): our VCODE prints something else" >&2
        diff "$work/classic.out" "$work/ours.out" | head -5 >&2
        status=1
      fi
      echo "$cw $ow $ct $ot" >> "$work/rows"
    done
    cw=$(awk '{print $1}' "$work/rows" | median)
    ow=$(awk '{print $2}' "$work/rows" | median)
    ct=$(awk '{print $3}' "$work/rows" | median)
    ot=$(awk '{print $4}' "$work/rows" | median)
    rw=$(awk '{print $2 / $1}' "$work/rows" | median)
    rt=$(awk '{print ($3 > 0) ? $4 / $3 : 0}' "$work/rows" | median)
    printf '%-14s %-6s %10.3f %10.3f %7.3f %10.3f %10.3f %7.3f\n' "$program" "$form" "$cw" "$ow" \
      "$rw" "$ct" "$ot" "$rt"
  done
done
exit $status
