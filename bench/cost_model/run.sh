#!/usr/bin/env bash
# The cost-model benchmarks: work measured by vinterp --profile against the work NESL's cost model
# gives the source, for programs whose apply-to-each bodies read a free sequence (README.md).
usage() {
  cat << 'EOF'
usage: bench/cost_model/run.sh BUILD_DIR [options]
  BUILD_DIR          the CMake build directory: nesl/nesl and vinterp/vinterp
  --sizes "N ..."    the sizes of every program (default: each program's own `sizes:` line)
  --runs N           timed runs per program and size; the median is printed (default 3)
  --programs "P ..." the programs, by file name without .nesl (default: every .nesl here)
  --csv FILE         also write the rows as CSV to FILE
  --classic PATH     the classic interpreter, run on our VCODE at each program's smallest size
                     and compared with our output (default ../shared/classic/vinterp beside
                     the checkout; skipped where it is absent)
  --max-memory SIZE  vector memory and address space of each run (default 4G)
  --timeout S        seconds a run may take before it is reported as failed (default 60)
  --max-ratio R      exit 1 when some row's vm/model is above R (default: no limit)
Each program and size is compiled with nesl --vcode (the program's definitions and a call of
bench(N)), run once by vinterp --threads 1 --profile for its totals of elements and work, then
--runs times for the wall time and the peak resident memory (GNU time's %M). A run that fails
(out of memory, a length limit, the timeout) is a row with its error line, not a script failure.
The table's columns:
  wall_s     median wall seconds of the process at --threads 1
  peak_MiB   peak resident memory of the largest of those runs
  elements   the total of --profile's elements column (every operand's length summed)
  vm_work    the total of --profile's work column (each instruction's longest vector)
  model      the cost model's work for the source (the program's `work:` line, n = size)
  vm/model   vm_work / model; constant across sizes when the work grows as the model says
  growth     vm_work and model against the previous size (e.g. 16.0x/4.0x)
  classic    our output against the classic interpreter's on the same VCODE (same, DIFFERENT,
             classic failed), at the smallest size only
Exit status: 0 when every output that was compared is the classic's and every vm/model is within
--max-ratio, 1 otherwise, 2 on bad usage.
EOF
}
set -uo pipefail

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$bench_dir/../.." && pwd)
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h | --help) usage; exit 0 ;; esac
build_dir=$1
shift
sizes_option="" runs=3 csv="" max_memory=4G timeout_s=60 max_ratio="" 
classic="$root/../shared/classic/vinterp"
programs=$(cd "$bench_dir" && ls -- *.nesl | sed 's/\.nesl$//' | tr '\n' ' ')
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes_option=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --classic) classic=$2; shift 2 ;;
    --max-memory) max_memory=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --max-ratio) max_ratio=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --runs wants a positive count, not '$runs'" >&2; exit 2; }

nesl="$build_dir/nesl/nesl"
vinterp="$build_dir/vinterp/vinterp"
for tool in "$nesl" "$vinterp"; do
  [ -x "$tool" ] || { echo "run.sh: $tool is not built" >&2; exit 1; }
done
for program in $programs; do
  [ -f "$bench_dir/$program.nesl" ] || { echo "run.sh: unknown program '$program' (no $bench_dir/$program.nesl)" >&2; exit 2; }
done

work_dir_prefix=cost_model
source "$bench_dir/../lib/limited_runs.sh"

machine="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2> /dev/null | head -1), $(nproc) cores"
printf '# cost model: %s, %s; vinterp --threads 1, median of %s runs, --max-memory %s\n' \
  "$(date -u '+%Y-%m-%d')" "$machine" "$runs" "$max_memory"
format='%-14s %8s %9s %9s %14s %12s %12s %9s %15s  %s\n'
printf "$format" program size wall_s peak_MiB elements vm_work model vm/model growth classic
[ -z "$csv" ] || echo "program,size,status,wall_s,peak_rss_mib,elements,vm_work,model,vm_per_model,classic,error" > "$csv"

status=0
for program in $programs; do
  formula=$(header_field "$program" work)
  sizes=${sizes_option:-$(header_field "$program" sizes)}
  [ -n "$formula" ] && [ -n "$sizes" ] || { echo "run.sh: $program.nesl has no work: or sizes: line" >&2; exit 1; }
  first_size=${sizes%% *}
  previous_elements="" previous_work=""
  for size in $sizes; do
    base="$work_dir/$program.$size"
    { cat "$bench_dir/$program.nesl"; printf '\nbench(%s);\n' "$size"; } > "$base.nesl"
    work=$(awk -v n="$size" "BEGIN { printf \"%.0f\", $formula }")
    row_status=ok wall="" peak="" elements="" vm_work="" ratio="" growth="" verdict="" error=""
    if ! "$nesl" --vcode "$base.nesl" -o "$base.vcode" > "$base.compile" 2>&1; then
      row_status=failed error=$(head -1 "$base.compile" | tr ',' ';')
    else
      run_limited "$base.out" "$base.profile" "$vinterp" --threads 1 --max-memory "$max_memory" --profile "$base.vcode"
      rc=$?
      if [ $rc -ne 0 ] || grep -q 'RUNTIME ERROR' "$base.out" "$base.profile"; then
        row_status=failed error=$(error_line <(cat "$base.out" "$base.profile") $rc)
      else
        read -r elements vm_work < <(profile_totals "$base.profile")
        times=()
        for ((run = 0; run < runs; run++)); do
          start=$(date +%s.%N)
          run_limited /dev/null "$base.time" /usr/bin/time -f '%M' -o "$base.rss.$run" \
            "$vinterp" --threads 1 --max-memory "$max_memory" "$base.vcode"
          rc=$?
          end=$(date +%s.%N)
          if [ $rc -ne 0 ]; then row_status=failed error=$(error_line "$base.time" $rc); break; fi
          times+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')")
        done
        if [ "$row_status" = ok ]; then
          wall=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
          peak=$(cat "$base".rss.* | awk '$1 + 0 > m { m = $1 + 0 } END { printf "%.0f", m / 1024 }')
          ratio=$(awk -v e="$vm_work" -v w="$work" 'BEGIN { printf "%.1f", e / w }')
          if [ -n "$max_ratio" ] && awk -v r="$ratio" -v m="$max_ratio" 'BEGIN { exit !(r > m) }'; then
            status=1
            ratio="$ratio>$max_ratio"
          fi
          if [ -n "$previous_elements" ]; then
            growth=$(awk -v e="$vm_work" -v pe="$previous_elements" -v w="$work" -v pw="$previous_work" \
              'BEGIN { printf "%.1fx/%.1fx", e / pe, w / pw }')
          fi
          previous_elements=$vm_work previous_work=$work
        fi
      fi
      if [ "$size" = "$first_size" ] && [ -x "$classic" ]; then
        if run_limited "$base.classic" "$base.classic_err" "$classic" "$base.vcode" \
          && ! grep -q 'RUNTIME ERROR' "$base.classic" "$base.classic_err"; then
          if [ "$row_status" != ok ]; then verdict="ours failed" status=1
          elif cmp -s "$base.out" "$base.classic"; then verdict=same
          else verdict=DIFFERENT status=1
          fi
        else
          verdict="classic failed"
        fi
      fi
    fi
    [ "$row_status" = ok ] || previous_elements=""
    if [ "$row_status" = ok ]; then
      printf "$format" "$program" "$size" "$wall" "$peak" "$elements" "$vm_work" "$work" "$ratio" "$growth" "$verdict"
    else
      [ "$verdict" = "ours failed" ] && error="$error (the classic's run completes)"
      printf '%-14s %8s  FAILED: %s\n' "$program" "$size" "$error"
    fi
    [ -z "$csv" ] || echo "$program,$size,$row_status,$wall,$peak,$elements,$vm_work,$work,$ratio,$verdict,$error" >> "$csv"
  done
done
exit $status
