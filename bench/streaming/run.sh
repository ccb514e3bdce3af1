#!/usr/bin/env bash
# The streaming benchmarks: time and peak memory of each program streamed (vinterp's default)
# against the materializing run (vinterp --eager), at several sizes (README.md).
usage() {
  cat << 'EOF'
usage: bench/streaming/run.sh BUILD_DIR [options]
  BUILD_DIR          the CMake build directory: nesl/nesl and vinterp/vinterp
  --runs N           timed runs per program, size, thread count and mode; the median time is
                     printed (default 3)
  --sizes SET        tiny, default or large: each program's sizes-tiny:, sizes: or sizes-large:
                     line (default: default)
  --cold S           sleep S seconds before every run (cold runs); default: back to back (warm)
  --programs "P ..." the programs, by file name without .nesl (default: every .nesl here)
  --threads "T ..."  the thread counts: numbers, or all (vinterp's default) (default "1 all")
  --csv FILE         also write one row per run configuration as CSV to FILE
  --plot PNG         also draw peak memory against problem size (plot.py; needs matplotlib)
  --max-memory SIZE  vector memory and address space of each run (default 8G)
  --timeout S        seconds a run may take before it is reported as failed (default 300)
  --work             also run each size once streamed with vinterp --threads 1 --profile and
                     print its work (the vm_work and work/el columns)
Each program and size is compiled with nesl --vcode (the program's definitions and a call of
bench(N)), then run --runs times streamed (vinterp --threads T) and --runs times materialized
(vinterp --threads T --eager), for the wall time and the peak resident memory (GNU time's %M).
A run that fails (out of memory, a length limit, the timeout) is FAILED in the table, its error
line below the row: it is a result, not a script failure.
The table's columns:
  elements     the problem's elements (the program's elements: line, e.g. n^3 for matmul)
  thr          the thread count
  stream_s     median wall seconds of the streamed runs; stream_MiB their largest peak
  eager_s      the same for the materializing runs; eager_MiB their largest peak
  peak_x       eager_MiB / stream_MiB: how much memory streaming saves
  output       same: both runs printed the same result (compared byte for byte); DIFFERENT
  reference    the result against the program's float64 reference (reference.py): ok and the
               relative error, or OFF; the worse of the two modes; - where there is none
With --work, two more columns after elements (the same on each thread count's row):
  vm_work      the total of --profile's work column (each instruction's longest vector, a
               streamed one counted at its length though it is never stored)
  work/el      vm_work / elements: constant across sizes when the work grows as the cost model
               says (a constant times the elements)
Exit status: 0 when every comparison agrees (streamed and materialized outputs, references),
1 otherwise, 2 on bad usage.
EOF
}
set -uo pipefail

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h | --help) usage; exit 0 ;; esac
build_dir=$1
shift
size_set=default runs=3 cold=0 csv="" plot="" max_memory=8G timeout_s=300 thread_counts="1 all"
with_work=0
programs=$(cd "$bench_dir" && ls -- *.nesl | sed 's/\.nesl$//' | tr '\n' ' ')
while [ $# -gt 0 ]; do
  if [ "$1" = --work ]; then with_work=1; shift; continue; fi
  [ $# -ge 2 ] || { echo "run.sh: $1 wants a value" >&2; exit 2; }
  case "$1" in
    --runs) runs=$2 ;;
    --sizes) size_set=$2 ;;
    --cold) cold=$2 ;;
    --programs) programs=$2 ;;
    --threads) thread_counts=$2 ;;
    --csv) csv=$2 ;;
    --plot) plot=$2 ;;
    --max-memory) max_memory=$2 ;;
    --timeout) timeout_s=$2 ;;
    *) echo "run.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift 2
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --runs wants a positive count, not '$runs'" >&2; exit 2; }
[[ "$cold" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "run.sh: --cold wants seconds, not '$cold'" >&2; exit 2; }
case "$size_set" in
  tiny) size_field=sizes-tiny ;;
  default) size_field=sizes ;;
  large) size_field=sizes-large ;;
  *) echo "run.sh: --sizes wants tiny, default or large, not '$size_set'" >&2; exit 2 ;;
esac
for t in $thread_counts; do
  [[ "$t" == all || "$t" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --threads wants counts or all, not '$t'" >&2; exit 2; }
done

nesl="$build_dir/nesl/nesl"
vinterp="$build_dir/vinterp/vinterp"
for tool in "$nesl" "$vinterp"; do
  [ -x "$tool" ] || { echo "run.sh: $tool is not built" >&2; exit 1; }
done
for program in $programs; do
  [ -f "$bench_dir/$program.nesl" ] || { echo "run.sh: unknown program '$program' (no $bench_dir/$program.nesl)" >&2; exit 2; }
done

work_dir_prefix=streaming
source "$bench_dir/../lib/limited_runs.sh"
[ -n "$csv" ] || [ -z "$plot" ] || csv="$work_dir/results.csv"

# measure BASE TAG ARGS...: `runs` runs of vinterp ARGS on BASE.vcode; sets status (ok or
# failed), wall (the median seconds), peak (the largest MiB), error; the output is BASE.TAG.out.
measure() {
  local base=$1 tag=$2 run rc start end
  shift 2
  local times=()
  status=ok wall="" peak="" error=""
  for ((run = 0; run < runs; run++)); do
    [ "$cold" = 0 ] || sleep "$cold"
    start=$(date +%s.%N)
    run_limited "$base.$tag.out" "$base.$tag.err" /usr/bin/time -f '%M' -o "$base.$tag.rss.$run" \
      "$vinterp" "$@" --max-memory "$max_memory" "$base.vcode"
    rc=$?
    end=$(date +%s.%N)
    if [ $rc -ne 0 ] || grep -q 'RUNTIME ERROR' "$base.$tag.out"; then
      status=failed error=$(error_line <(cat "$base.$tag.out" "$base.$tag.err") $rc)
      return
    fi
    times+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')")
  done
  wall=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
  peak=$(cat "$base.$tag".rss.* | awk '$1 + 0 > m { m = $1 + 0 } END { printf "%.1f", m / 1024 }')
}

# The result a run printed: the one value of its final stack.
result_of() { tr -d '()' < "$1" | awk 'NF { print $1; exit }'; }

# relative_error VALUE REFERENCE
relative_error() {
  awk -v v="$1" -v r="$2" 'BEGIN { d = v - r; if (d < 0) d = -d; m = r < 0 ? -r : r; printf "%.2g", (m > 0 ? d / m : d) }'
}

machine="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2> /dev/null | head -1), $(nproc) cores"
if [ "$cold" = 0 ]; then temperature="warm (runs back to back)"; else temperature="cold ($cold s idle before every run)"; fi
printf '# streaming: %s, %s; median of %s runs, %s; --max-memory %s; sizes %s\n' \
  "$(date -u '+%Y-%m-%d')" "$machine" "$runs" "$temperature" "$max_memory" "$size_set"
format='%-10s %10s %13s %4s %9s %11s %9s %10s %7s %-9s %s\n'
work_format='%-10s %10s %13s %14s %8s %4s %9s %11s %9s %10s %7s %-9s %s\n'
if [ "$with_work" = 1 ]; then
  printf "$work_format" program size elements vm_work work/el thr stream_s stream_MiB eager_s eager_MiB peak_x output reference
else
  printf "$format" program size elements thr stream_s stream_MiB eager_s eager_MiB peak_x output reference
fi
[ -z "$csv" ] || echo "program,size,elements,threads,mode,status,wall_s,peak_mib,result,relative_error,tolerance,cold_s,error,vm_work" > "$csv"

exit_status=0
for program in $programs; do
  formula=$(header_field "$program" elements)
  sizes=$(header_field "$program" "$size_field")
  [ -n "$formula" ] && [ -n "$sizes" ] || { echo "run.sh: $program.nesl has no elements: or $size_field: line" >&2; exit 1; }
  for size in $sizes; do
    base="$work_dir/$program.$size"
    { cat "$bench_dir/$program.nesl"; printf '\nbench(%s);\n' "$size"; } > "$base.nesl"
    elements=$(awk -v n="$size" "BEGIN { printf \"%.0f\", $formula }")
    if ! "$nesl" --vcode "$base.nesl" -o "$base.vcode" > "$base.compile" 2>&1; then
      printf '%-10s %10s  FAILED to compile: %s\n' "$program" "$size" "$(head -1 "$base.compile")"
      exit_status=1
      continue
    fi
    read -r reference tolerance < <("$bench_dir/reference.py" "$program" "$size")
    vm_work="" work_per_element=""
    if [ "$with_work" = 1 ]; then
      run_limited "$base.profile.out" "$base.profile" "$vinterp" --threads 1 --profile \
        --max-memory "$max_memory" "$base.vcode"
      rc=$?
      if [ $rc -eq 0 ]; then
        read -r _ vm_work < <(profile_totals "$base.profile")
        work_per_element=$(awk -v w="$vm_work" -v e="$elements" 'BEGIN { printf "%.2f", w / e }')
      else
        vm_work=FAILED work_per_element=-
        printf '    profile run: %s\n' "$(error_line <(cat "$base.profile.out" "$base.profile") $rc)"
        exit_status=1
      fi
    fi
    for threads in $thread_counts; do
      thread_args=()
      [ "$threads" = all ] || thread_args=(--threads "$threads")
      failures=()
      declare -A wall_of=() peak_of=() status_of=()
      worst="" reference_verdict="-"
      for mode in stream eager; do
        mode_args=()
        [ "$mode" = stream ] || mode_args=(--eager)
        measure "$base" "$mode.$threads" "${thread_args[@]}" "${mode_args[@]}"
        status_of[$mode]=$status wall_of[$mode]=$wall peak_of[$mode]=$peak
        result="" rel=""
        if [ "$status" = ok ]; then
          result=$(result_of "$base.$mode.$threads.out")
          if [ "$reference" != none ]; then
            rel=$(relative_error "$result" "$reference")
            if awk -v e="$rel" -v t="$tolerance" 'BEGIN { exit !(e > t) }'; then
              reference_verdict="OFF $rel > $tolerance"
              exit_status=1
            elif [ "${reference_verdict%% *}" != OFF ] &&
              { [ -z "$worst" ] || awk -v e="$rel" -v w="$worst" 'BEGIN { exit !(e > w) }'; }; then
              worst=$rel reference_verdict="ok $rel <= $tolerance"
            fi
          fi
        else
          failures+=("$mode, threads $threads: $error")
        fi
        [ -z "$csv" ] || echo "$program,$size,$elements,$threads,$mode,$status,$wall,$peak,$result,$rel,${tolerance:-},$cold,$error,$vm_work" >> "$csv"
      done
      output="-"
      if [ "${status_of[stream]}" = ok ] && [ "${status_of[eager]}" = ok ]; then
        if cmp -s "$base.stream.$threads.out" "$base.eager.$threads.out"; then output=same
        else output=DIFFERENT exit_status=1
        fi
      fi
      ratio="-"
      [ "$output" = "-" ] || ratio=$(awk -v e="${peak_of[eager]}" -v s="${peak_of[stream]}" 'BEGIN { printf "%.1f", e / s }')
      cell() { if [ "${status_of[$1]}" = ok ]; then echo "$2"; else echo FAILED; fi; }
      cells=("$threads" "$(cell stream "${wall_of[stream]}")" "$(cell stream "${peak_of[stream]}")"
        "$(cell eager "${wall_of[eager]}")" "$(cell eager "${peak_of[eager]}")" "$ratio" "$output"
        "$reference_verdict")
      if [ "$with_work" = 1 ]; then
        printf "$work_format" "$program" "$size" "$elements" "$vm_work" "$work_per_element" "${cells[@]}"
      else
        printf "$format" "$program" "$size" "$elements" "${cells[@]}"
      fi
      for failure in "${failures[@]}"; do printf '    %s\n' "$failure"; done
      unset wall_of peak_of status_of
    done
  done
done

if [ -n "$plot" ]; then
  /usr/bin/python3 "$bench_dir/plot.py" "$csv" -o "$plot" || exit_status=1
fi
exit $exit_status
