#!/usr/bin/env bash
# End-to-end timings of vinterp on the neslgpu benchmark programs, against the classic
# interpreter's reference timings. See bench/README.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/run_benchmarks.sh [BUILD_DIR] [options]

Times `vinterp --backend cpu` on the neslgpu-bench programs at the sizes of the reference table
in ../shared/README.md, with --threads 1 and with all threads, and prints a table.

  BUILD_DIR            the CMake build directory holding vinterp/vinterp (default: build)
  --runs N             runs per program and thread count (default 3); the median is reported
  --threads "LIST"     thread counts to use; 0 means all cores (default "1 0")
  --programs "LIST"    program names to run (default "qs black-scholes quickhull bh dotp")
  --all                also the remaining rows of the reference table (bh 75000, muladd 20M)
  --reduced            smoke test: the programs of neslgpu-bench/reduced at their own sizes
                       (fractions of a second; no reference times)
  --shared DIR         the shared corpus (default: ../shared next to the repository)
  --timeout SECONDS    give up on one run after this long (default: no limit)
  --dry-run            list what would run (program, size, file) and stop
  -h, --help           this text
EOF
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=build
runs=3
thread_list="1 0"
programs="qs black-scholes quickhull bh dotp"
all=0
reduced=0
shared_dir="$repo_root/../shared"
timeout_s=""
dry_run=0

while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --threads) thread_list=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --all) all=1; shift ;;
    --reduced) reduced=1; shift ;;
    --shared) shared_dir=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --*) echo "run_benchmarks.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) build_dir=$1; shift ;;
  esac
done

[[ "$build_dir" = /* ]] || build_dir="$PWD/$build_dir"
vinterp="$build_dir/vinterp/vinterp"
bench_dir="$shared_dir/neslgpu-bench"
if [[ ! -x "$vinterp" ]]; then
  echo "run_benchmarks.sh: $vinterp not found; build it first (cmake --build $build_dir --target vinterp)" >&2
  exit 1
fi
if [[ ! -d "$bench_dir" ]]; then
  echo "run_benchmarks.sh: $bench_dir not found (use --shared DIR)" >&2
  exit 1
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "run_benchmarks.sh: /usr/bin/time is missing (Debian package 'time')" >&2
  exit 1
fi
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run_benchmarks.sh: --runs needs a positive integer" >&2; exit 2; }

# The classic interpreter's reference timings, from ../shared/README.md, "Reference timings
# (classic interpreter, serial CVL, gcc -O2; 2-core Xeon like ours)": wall seconds, median of 3,
# `vinterp -m 1000000000 FILE`, and the program's own timer (the timed region only).
#   name           source file (in neslgpu-bench/)   size       wall s  timed region s
reference_table="
qs             qs.1000000.vcode                  10000000   2.11    1.867
black-scholes  black-scholes.10000000.vcode      10000000   5.82    2.950
quickhull      quickhull.5000000.vcode           5000000    1.25    0.793
bh             bh.20000.vcode                    20000      3.07    2.771
bh             bh.75000.vcode                    75000      14.96   14.02
dotp           dotp.vcode                        50000000   2.74    0.086
muladd         muladd.vcode                      20000000   0.96    0.025
"
# Rows that --all adds to the default selection (name size).
extra_rows="bh:75000 muladd:20000000"
default_rows="bh:20000"

work=$(mktemp -d "${TMPDIR:-/tmp}/nesl_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The problem size of a program: the first `CONST INT` of its entry function (the first FUNC).
program_size() {
  awk '/^FUNC /{f++} f==1 && /^CONST INT -?[0-9]+$/ {print $3; exit}' "$1"
}

# Copies $1 to $3 with that first `CONST INT` set to $2.
with_size() {
  awk -v size="$2" '
    /^FUNC /{f++}
    f==1 && !done && /^CONST INT -?[0-9]+$/ {print "CONST INT " size; done=1; next}
    {print}' "$1" > "$3"
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }

# One line per (program, size) to run: name|file|size|reference wall|reference timed|expected
jobs=()
if [[ $reduced -eq 1 ]]; then
  for f in "$bench_dir"/reduced/*.vcode; do
    name=$(basename "$f" .vcode)
    expected="${f%.vcode}.expected"
    jobs+=("$name|$f|$(program_size "$f")|-|-|$expected")
  done
else
  for name in $programs; do
    found=0
    while read -r rname rfile rsize rwall rtimed; do
      [[ -z "$rname" || "$rname" != "$name" ]] && continue
      key="$rname:$rsize"
      # bh has two rows; only 20000 is in the default set, 75000 with --all.
      if [[ " $extra_rows " == *" $key "* && $all -eq 0 ]]; then continue; fi
      src="$bench_dir/$rfile"
      [[ -f "$src" ]] || { echo "run_benchmarks.sh: missing $src" >&2; exit 1; }
      expected="-"
      if [[ "$(program_size "$src")" == "$rsize" && -f "${src%.vcode}.expected" ]]; then
        expected="${src%.vcode}.expected"
        file="$src"
      else
        file="$work/$name.$rsize.vcode"
        with_size "$src" "$rsize" "$file"
      fi
      jobs+=("$name|$file|$rsize|$rwall|$rtimed|$expected")
      found=1
    done <<< "$reference_table"
    [[ $found -eq 1 ]] || { echo "run_benchmarks.sh: no reference row for '$name'" >&2; exit 2; }
  done
  if [[ $all -eq 1 ]]; then
    for key in $extra_rows; do
      name=${key%%:*}
      [[ " $programs " == *" $name "* ]] && continue  # already added above
      while read -r rname rfile rsize rwall rtimed; do
        [[ "$rname:$rsize" != "$key" ]] && continue
        src="$bench_dir/$rfile"
        file="$work/$name.$rsize.vcode"
        with_size "$src" "$rsize" "$file"
        jobs+=("$name|$file|$rsize|$rwall|$rtimed|-")
      done <<< "$reference_table"
    done
  fi
fi

if [[ $dry_run -eq 1 ]]; then
  for job in "${jobs[@]}"; do
    IFS='|' read -r name file size ref_wall ref_timed expected <<< "$job"
    echo "$name size $size (file's size $(program_size "$file")): $file; classic $ref_wall s; expected output: $expected"
  done
  exit 0
fi

cores=$(nproc)
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
echo "# vinterp: $vinterp ($("$vinterp" --version 2>/dev/null | head -1 || echo "version unknown"))"
echo "# machine: ${cpu:-unknown cpu}, $cores cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); runs per row: $runs (median wall and timed region, max RSS)"
echo "# classic s, cl. timed: the classic interpreter's reference wall time and timed region (../shared/README.md)"
echo "# wall/classic = our median wall time / the classic reference wall time (lower is faster)"
printf '%-22s %10s %8s %9s %9s %9s %10s %10s %13s %8s\n' program size threads "wall s" "peak MiB" "timed s" \
  "classic s" "cl. timed" "wall/classic" output
status=0
for job in "${jobs[@]}"; do
  IFS='|' read -r name file size ref_wall ref_timed expected <<< "$job"
  for threads in $thread_list; do
    walls=() timeds=() peak_kb=0 check="-" failed=""
    for ((run = 1; run <= runs; run++)); do
      out="$work/out" err="$work/err" tfile="$work/time"
      cmd=("$vinterp" --backend cpu --threads "$threads" "$file")
      [[ -n "$timeout_s" ]] && cmd=(timeout "$timeout_s" "${cmd[@]}")
      rc=0
      /usr/bin/time -f '%e %M' -o "$tfile" "${cmd[@]}" > "$out" 2> "$err" || rc=$?
      if [[ $rc -ne 0 ]]; then
        failed="exit $rc: $(head -c 200 "$err" | head -1)"
        break
      fi
      read -r wall rss_kb < <(tail -1 "$tfile")
      walls+=("$wall")
      (( rss_kb > peak_kb )) && peak_kb=$rss_kb
      timed=$(tail -1 "$out" | sed -n 's/^( \([-+0-9.e]*\) )$/\1/p')
      timeds+=("${timed:--}")
      if [[ "$expected" != "-" ]]; then
        # Every line but the last (the timer) must be the classic interpreter's output.
        if cmp -s <(sed '$d' "$expected") <(sed '$d' "$out"); then check=ok; else check=DIFFERS; status=1; fi
      fi
    done
    label=$threads
    [[ "$threads" == 0 ]] && label="all($cores)"
    if [[ -n "$failed" ]]; then
      printf '%-22s %10s %8s  FAILED (%s)\n' "$name" "$size" "$label" "$failed"
      status=1
      continue
    fi
    wall_med=$(printf '%s\n' "${walls[@]}" | median)
    timed_med=$(printf '%s\n' "${timeds[@]}" | grep -v '^-$' | median)
    [[ "$timed_med" != "-" ]] && timed_med=$(printf '%.3f' "$timed_med")
    ratio="-"
    [[ "$ref_wall" != "-" ]] && ratio=$(awk -v a="$wall_med" -v b="$ref_wall" 'BEGIN {printf "%.2f", a / b}')
    printf '%-22s %10s %8s %9.2f %9.0f %9s %10s %10s %13s %8s\n' "$name" "$size" "$label" "$wall_med" \
      "$(awk -v k="$peak_kb" 'BEGIN {print k / 1024}')" "$timed_med" "$ref_wall" "$ref_timed" "$ratio" "$check"
  done
done
exit $status
