#!/usr/bin/env bash
# End-to-end timings of the neslgpu benchmark programs: the classic interpreter, vinterp (VCODE and
# fcode-opt's FCODE, one thread and all threads) and the hand-written baselines, alternating in one
# run; a table on stdout and a CSV for bench/plot.py. See bench/README.md.
set -euo pipefail

usage() {
  cat <<'EOF_USAGE'
usage: bench/run_benchmarks.sh [BUILD_DIR] [options]

Runs each benchmark program in every variant, one run of each variant per round (so the variants
alternate), and reports per variant the median wall time, timed region and peak memory of the
rounds, and the median of the per-round ratios to the classic interpreter.

  BUILD_DIR            the CMake build directory (default: build): vinterp/vinterp,
                       fcode-opt/fcode-opt, bench/baselines/baseline_*
  --runs N             rounds (default 3); medians over the rounds
  --variants "LIST"    what to run (default: all of them):
                         classic       ../shared/classic/vinterp -m 1000000000 FILE
                         vcode-1       vinterp --threads 1 FILE
                         vcode-all     vinterp FILE (the default thread count: all cores)
                         fcode-1       vinterp --threads 1 on fcode-opt's output
                         fcode-all     vinterp on fcode-opt's output
                         baseline-1    the hand-written baseline with --threads 1
                         baseline-all  the hand-written baseline, all cores
                       and, not in the default list (bench/mpi_benchmarks.sh runs them):
                         vcode-N       vinterp --threads N FILE (N = 2, 3 or 4)
                         mpi-N         mpirun -np N vinterp --backend mpi FILE (N = 1 to 4; one
                                       thread per process, oversubscribed past the cores)
  --programs "LIST"    program names (default "qs black-scholes quickhull bh dotp")
  --all                also bh 75000 and muladd 20M (muladd has no baseline)
  --reduced            smoke test: neslgpu-bench/reduced at their own sizes (--programs filters)
  --csv FILE           also write the results as CSV (columns: bench/README.md)
  --shared DIR         the shared corpus (default: ../shared next to the repository)
  --timeout SECONDS    give up on one run after this long (default: no limit)
  --idle SECONDS       sleep this long before every run: a cold start (default 0, back to back).
                       A VM that reports freed pages to its host gets them back only after a
                       few seconds, so that every run then faults in fresh memory, as a user's
                       first run after a pause does
  --dry-run            list programs, sizes, files and commands, and stop
  --files-dir DIR      write the resized program files there (kept) instead of a temporary
                       directory
  -h, --help           this text

Output column: same = every stdout line but the timer is the classic's (its .expected file where
the program has its original size, else the classic's output in this run), close = within 1e-9
relative, DIFFERS, or - (nothing to compare with). The exit status is non-zero when a run fails
or an output differs.
EOF_USAGE
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=build
runs=3
all_variants="classic vcode-1 vcode-all fcode-1 fcode-all baseline-1 baseline-all"
variants=$all_variants
programs="qs black-scholes quickhull bh dotp"
all=0
reduced=0
csv=""
shared_dir="$repo_root/../shared"
timeout_s=""
idle_s=0
dry_run=0
files_dir=""

while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --variants) variants=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --all) all=1; shift ;;
    --reduced) reduced=1; shift ;;
    --csv) csv=$2; shift 2 ;;
    --shared) shared_dir=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --idle) idle_s=$2; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    --files-dir) files_dir=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --*) echo "run_benchmarks.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) build_dir=$1; shift ;;
  esac
done

die() { echo "run_benchmarks.sh: $*" >&2; exit 1; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run_benchmarks.sh: --runs needs a positive integer" >&2; exit 2; }
known_variants="$all_variants vcode-2 vcode-3 vcode-4 mpi-1 mpi-2 mpi-3 mpi-4"
for variant in $variants; do
  [[ " $known_variants " == *" $variant "* ]] || { echo "run_benchmarks.sh: unknown variant '$variant'" >&2; exit 2; }
done
[[ "$build_dir" = /* ]] || build_dir="$PWD/$build_dir"
vinterp="$build_dir/vinterp/vinterp"
fcode_opt="$build_dir/fcode-opt/fcode-opt"
baselines="$build_dir/bench/baselines"
classic="$shared_dir/classic/vinterp"
bench_dir="$shared_dir/neslgpu-bench"
compare="$repo_root/bench/compare_output.sh"
[[ -d "$bench_dir" ]] || die "$bench_dir not found (use --shared DIR)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"
needs() { [[ " $variants " == *" $1"* ]]; }
if needs vcode || needs fcode || needs mpi; then
  [[ -x "$vinterp" ]] || die "$vinterp not found; build it first (cmake --build $build_dir --target vinterp)"
fi
if needs fcode; then [[ -x "$fcode_opt" ]] || die "$fcode_opt not found (cmake --build $build_dir --target fcode-opt)"; fi
if needs mpi; then
  mpirun=$(command -v mpirun) || die "mpirun not found (Debian: openmpi-bin)"
  # Open MPI refuses to run as root without these (CI containers).
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
if needs classic; then [[ -x "$classic" ]] || die "$classic not found (the classic interpreter, in the shared corpus)"; fi

# The benchmark rows: name, the neslgpu-bench file to start from, and the problem size (the sizes
# of the classic reference table in ../shared/README.md; --all adds the rows marked "all").
benchmark_table="
qs             qs.1000000.vcode               10000000  default
black-scholes  black-scholes.10000000.vcode   10000000  default
quickhull      quickhull.5000000.vcode        5000000   default
bh             bh.20000.vcode                 20000     default
bh             bh.75000.vcode                 75000     all
dotp           dotp.10000000.vcode            50000000  default
muladd         muladd.vcode                   20000000  all
"
# The hand-written baseline of each program (bench/baselines), by the program's name.
baseline_of() {
  case "$1" in
    qs) echo sort ;; black-scholes) echo black_scholes ;; quickhull) echo quickhull ;;
    bh) echo barnes_hut ;; dotp) echo dotp ;; *) echo "" ;;
  esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/nesl_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [[ -n "$files_dir" ]]; then mkdir -p "$files_dir"; else files_dir=$work; fi

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

# A number with $2 decimals, or "-".
fmt() { if [[ "$1" == - ]]; then echo -; else printf "%.${2}f" "$1"; fi; }

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# One job per (program, size): name|file|size|expected output file or -
jobs=()
if [[ $reduced -eq 1 ]]; then
  for f in "$bench_dir"/reduced/*.vcode; do
    name=$(basename "$f" .vcode)
    base=${name%%.*}
    [[ " $programs " == *" $base "* ]] || continue
    jobs+=("$base|$f|$(program_size "$f")|${f%.vcode}.expected")
  done
else
  for name in $programs; do
    found=0
    while read -r rname rfile rsize rset; do
      [[ -z "$rname" || "$rname" != "$name" ]] && continue
      [[ "$rset" == all && $all -eq 0 ]] && continue
      src="$bench_dir/$rfile"
      [[ -f "$src" ]] || die "missing $src"
      if [[ "$(program_size "$src")" == "$rsize" && -f "${src%.vcode}.expected" ]]; then
        jobs+=("$name|$src|$rsize|${src%.vcode}.expected")
      else
        file="$files_dir/$name.$rsize.vcode"
        with_size "$src" "$rsize" "$file"
        jobs+=("$name|$file|$rsize|-")
      fi
      found=1
    done <<< "$benchmark_table"
    [[ $found -eq 1 ]] || { echo "run_benchmarks.sh: no benchmark row for '$name'" >&2; exit 2; }
  done
  if [[ $all -eq 1 ]]; then  # the --all rows of programs not named in --programs
    while read -r rname rfile rsize rset; do
      [[ "$rset" != all || " $programs " == *" $rname "* ]] && continue
      file="$files_dir/$rname.$rsize.vcode"
      with_size "$bench_dir/$rfile" "$rsize" "$file"
      jobs+=("$rname|$file|$rsize|-")
    done <<< "$benchmark_table"
  fi
fi
[[ ${#jobs[@]} -gt 0 ]] || die "no programs selected"

cores=$(nproc)
# The command line of a variant for one job (FCODE is made before the first round), or nothing
# when the variant does not apply (a program without a baseline).
command_of() {
  local variant=$1 name=$2 file=$3 size=$4 baseline
  case "$variant" in
    classic) echo "$classic -m 1000000000 $file" ;;
    vcode-1) echo "$vinterp --threads 1 $file" ;;
    vcode-all) echo "$vinterp $file" ;;
    vcode-[0-9]) echo "$vinterp --threads ${variant#vcode-} $file" ;;
    mpi-[0-9]) echo "$mpirun -q --oversubscribe -np ${variant#mpi-} $vinterp --backend mpi $file" ;;
    fcode-1) echo "$vinterp --threads 1 $work/$name.$size.fcode" ;;
    fcode-all) echo "$vinterp $work/$name.$size.fcode" ;;
    baseline-*)
      # Huge pages for the baselines' large vectors (glibc's malloc asks for them, glibc 2.35 on),
      # as vinterp's arena asks for them: a baseline faulting a 4 KiB page at a time is no limit.
      baseline=$(baseline_of "$name")
      [[ -n "$baseline" ]] || return 0
      [[ -x "$baselines/baseline_$baseline" ]] || die "$baselines/baseline_$baseline not found (build the project)"
      if [[ "$variant" == baseline-1 ]]; then
        echo "env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 $baselines/baseline_$baseline --size $size --threads 1"
      else
        echo "env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 $baselines/baseline_$baseline --size $size"
      fi ;;
  esac
}
threads_of() {
  case "$1" in
    *-all) echo "$cores" ;;
    vcode-[0-9] | mpi-[0-9]) echo "${1##*-}" ;;
    *) echo 1 ;;
  esac
}

if [[ $dry_run -eq 1 ]]; then
  for job in "${jobs[@]}"; do
    IFS='|' read -r name file size expected <<< "$job"
    echo "$name size $size (the file's size: $(program_size "$file")); expected output: $expected"
    for variant in $variants; do
      cmd=$(command_of "$variant" "$name" "$file" "$size")
      [[ -n "$cmd" ]] && echo "  $variant: $cmd"
    done
  done
  exit 0
fi

cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
echo "# vinterp: $vinterp ($("$vinterp" --version 2>/dev/null | head -1 || echo "version unknown"))"
echo "# machine: ${cpu:-unknown cpu}, $cores cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); $runs rounds, the variants alternating within each round"
if [[ "$idle_s" != 0 ]]; then
  echo "# cold start: ${idle_s} s idle before every run"
else
  echo "# back to back: no pause between runs"
fi
echo "# wall s, timed s, user s, sys s: medians (timed = the program's own timer, its last line; user"
echo "# and sys = CPU seconds of the whole process); peak MiB: the largest maximum resident set size;"
echo "# x classic: median of the per-round ratios to the classic's run; x vcode (FCODE rows): median of"
echo "# the per-round ratios to VCODE at the same thread count (wall); won: the rounds FCODE was faster in"
printf '%-14s %9s %-13s %7s %8s %8s %9s %8s %8s %9s %10s %7s %6s %s\n' program size variant threads "wall s" "peak MiB" "timed s" \
  "user s" "sys s" "x classic" "timed x cl" "x vcode" won output
if [[ -n "$csv" ]]; then
  echo "program,size,variant,threads,runs,wall_s,wall_min_s,wall_max_s,timed_s,peak_rss_mib,wall_vs_classic,timed_vs_classic,output,user_s,sys_s,idle_s,wall_vs_vcode,rounds_won_vs_vcode" > "$csv"
fi

status=0
for job in "${jobs[@]}"; do
  IFS='|' read -r name file size expected <<< "$job"
  if needs fcode; then
    "$fcode_opt" "$file" -o "$work/$name.$size.fcode" 2> "$work/err" || die "fcode-opt failed on $file: $(head -c 300 "$work/err")"
  fi
  active=()
  for variant in $variants; do
    cmd=$(command_of "$variant" "$name" "$file" "$size")
    [[ -n "$cmd" ]] && active+=("$variant")
    # Per variant: .rows (round, wall, timed, peak KiB), .out (the first output), .failed
    rm -f "$work/$variant".*
  done
  # The rounds: each variant once per round, in the same order.
  for ((round = 1; round <= runs; round++)); do
    for variant in "${active[@]}"; do
      [[ -f "$work/$variant.failed" ]] && continue
      read -ra cmd <<< "$(command_of "$variant" "$name" "$file" "$size")"
      [[ -n "$timeout_s" ]] && cmd=(timeout "$timeout_s" "${cmd[@]}")
      rc=0
      [[ "$idle_s" != 0 ]] && sleep "$idle_s"
      start=$EPOCHREALTIME  # microseconds; /usr/bin/time's %e has only hundredths
      (cd "$work" && /usr/bin/time -f '%M %U %S' -o "$work/time" "${cmd[@]}" > "$work/out" 2> "$work/err") || rc=$?
      wall=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN {printf "%.4f", a - b}')
      if [[ $rc -ne 0 ]]; then
        echo "exit $rc: $(grep -v '^Command exited' "$work/err" | head -c 200 | head -1)" > "$work/$variant.failed"
        continue
      fi
      read -r rss_kb user_s sys_s < <(tail -1 "$work/time")
      timed=$(tail -1 "$work/out" | sed -n 's/^( \([-+0-9.e]*\) )$/\1/p')
      [[ -n "$timed" ]] && timed=$(awk -v t="$timed" 'BEGIN {printf "%.6g", t}')
      echo "$round $wall ${timed:--} $rss_kb $user_s $sys_s" >> "$work/$variant.rows"
      [[ -f "$work/$variant.out" ]] || cp "$work/out" "$work/$variant.out"
    done
  done
  # The per-round ratios need the classic's wall and timed region of the same round.
  for variant in "${active[@]}"; do
    # The output of the first run against the classic's: its .expected file, else this run's.
    check="-"
    reference=$expected
    [[ "$reference" == - && "$variant" != classic && -f "$work/classic.out" ]] && reference="$work/classic.out"
    if [[ "$reference" != - && -f "$work/$variant.out" ]]; then
      check=$("$compare" "$reference" "$work/$variant.out") || true
    fi
    threads=$(threads_of "$variant")
    label=$threads
    [[ "$variant" == *-all ]] && label="all($cores)"
    if [[ -f "$work/$variant.failed" ]]; then
      printf '%-14s %9s %-13s %7s  FAILED (%s)\n' "$name" "$size" "$variant" "$label" "$(cat "$work/$variant.failed")"
      [[ -n "$csv" ]] && echo "$name,$size,$variant,$threads,0,,,,,,,,FAILED,,,$idle_s" >> "$csv"
      status=1
      continue
    fi
    rows="$work/$variant.rows"
    wall=$(awk '{print $2}' "$rows" | median)
    wall_min=$(awk '{print $2}' "$rows" | sort -g | head -1)
    wall_max=$(awk '{print $2}' "$rows" | sort -g | tail -1)
    timed=$(awk '$3 != "-" {print $3}' "$rows" | median)
    peak=$(awk '$4 > m {m = $4} END {printf "%.0f", m / 1024}' "$rows")
    user=$(awk '{print $5}' "$rows" | median)
    sys=$(awk '{print $6}' "$rows" | median)
    wall_ratio="-" timed_ratio="-"
    if [[ -f "$work/classic.rows" ]]; then
      wall_ratio=$(awk 'NR == FNR {c[$1] = $2; next} ($1 in c) && c[$1] > 0 {print $2 / c[$1]}' \
        "$work/classic.rows" "$rows" | median)
      timed_ratio=$(awk 'NR == FNR {c[$1] = $3; next} ($1 in c) && c[$1] != "-" && c[$1] > 0 && $3 != "-" {print $3 / c[$1]}' \
        "$work/classic.rows" "$rows" | median)
    fi
    # FCODE against VCODE run next to it in the same round: the host's slow stretches hit both.
    # With a ratio near 1 its median flips with the noise; how many rounds each side won says
    # whether the two differ at all (a sign test).
    vcode_ratio="-" vcode_won="-"
    if [[ "$variant" == fcode-* && -f "$work/vcode-${variant#fcode-}.rows" ]]; then
      # Per round: the ratio, and 1 where FCODE was faster.
      awk 'NR == FNR {c[$1] = $2; next} ($1 in c) && c[$1] > 0 {print $2 / c[$1], ($2 < c[$1])}' \
        "$work/vcode-${variant#fcode-}.rows" "$rows" > "$work/vs_vcode"
      vcode_ratio=$(awk '{print $1}' "$work/vs_vcode" | median)
      vcode_won=$(awk '{k += $2} END {printf "%d/%d", k, NR}' "$work/vs_vcode")
    fi
    [[ "$check" == DIFFERS* ]] && status=1
    printf '%-14s %9s %-13s %7s %8s %8s %9s %8s %8s %9s %10s %7s %6s %s\n' "$name" "$size" "$variant" "$label" "$(fmt "$wall" 2)" \
      "$peak" "$(fmt "$timed" 4)" "$(fmt "$user" 2)" "$(fmt "$sys" 2)" "$(fmt "$wall_ratio" 3)" "$(fmt "$timed_ratio" 3)" \
      "$(fmt "$vcode_ratio" 3)" "$vcode_won" "$check"
    if [[ -n "$csv" ]]; then
      csv_check=${check%%:*}
      [[ "$vcode_ratio" == - ]] && vcode_ratio=""
      [[ "$vcode_won" == - ]] && vcode_won=""
      echo "$name,$size,$variant,$threads,$(wc -l < "$rows"),$wall,$wall_min,$wall_max,$timed,$peak,$wall_ratio,$timed_ratio,$csv_check,$user,$sys,$idle_s,$vcode_ratio,${vcode_won%/*}" >> "$csv"
    fi
  done
done
[[ -n "$csv" ]] && echo "# CSV: $csv"
exit $status
