#!/usr/bin/env bash
# Runs on the GPU machine, in the repository root, with the kit bench/gpu/pack.sh made carried in
# device-run/: the CVL conformance suite, the corpus with --backend cuda, compute-sanitizer, the
# end-to-end benchmarks against --backend cpu, and the microbenchmarks. Logs go to $OUT (one file
# per stage plus summary.txt; the device tool brings $OUT back). See bench/README.md.
set -uo pipefail

usage() {
  cat <<'EOF'
usage: bench/gpu/run_all.sh [STAGE...]

Stages (default: all of them, in this order; each fits well inside 10 minutes on an H100):
  info         nvidia-smi, nvcc, compute-sanitizer versions, the kit's manifest
  conformance  the CVL conformance suite of $BACKEND
  corpus       corpus_runner over corpus, corpus-hand, regress, neslgpu-bench/reduced
  corpus-fused the same with every program through fcode-opt first (log: corpus.log)
  nesl         our NESL compiler's VCODE of the corpus and test/nesl/programs (pack.sh compiles
               them), plain and through fcode-opt (log: corpus.log)
  corpus-full  corpus_runner over neslgpu-bench at the original sizes (log: corpus.log)
  memcheck     compute-sanitizer --tool memcheck on neslgpu-bench/reduced programs (outputs
               checked too), then on the conformance suite
  racecheck    compute-sanitizer --tool racecheck on the conformance suite
  e2e          dotp 10M, black-scholes 10M, qs 1M, quickhull 5M, bh 75000: $BACKEND (and its
               fcode-opt version, when fcode-opt is in the kit) vs cpu
  micro        cvl_microbench over every case at 10^3..10^8, and the host-threshold crossover
  trace        vinterp -O --trace-json on TRACE_PROGRAMS (device timestamps on cuda): the
               output must match the classic's but for the timer; trace_<program>.json in $OUT, for
               bench/plot_trace.py on the way back

Environment:
  BACKEND      the backend under test (default cuda; cpu or cuda-emulated rehearse the script)
  KIT          the kit (default device-run/ in the repository)
  OUT          where logs go (default: $KIT/out)
  RUNS         runs per end-to-end measurement (default 3; the median is reported)
  MICRO_SIZES  sizes for cvl_microbench (default all = 1e3..1e8)
  MICRO_OPS    cases for cvl_microbench (default all)
  PEAK_GBPS    device memory bandwidth for the microbenchmark's % peak column (default 3000,
               an H100's device-to-device copy measured here; 0 leaves the column out)
  E2E_PROGRAMS programs for the e2e stage (default "dotp black-scholes qs quickhull bh")
  E2E_SIZES    sizes for the e2e stage instead of its own, e.g. "dotp=50000000 qs=10000000 bh=20000"
               (those of bench/run_benchmarks.sh, so bench/plot.py can draw the GPU beside them)
  SANITIZE_PROGRAMS  neslgpu-bench/reduced programs run under memcheck (default: the five of the
               e2e stage: "dotp.r100000 black-scholes.r50000 qs.r100000 quickhull.r50000 bh.r200")
  MEMCHECK_FILTER    Catch2 test filter for the suite under memcheck (default: every test)
  RACECHECK_FILTER   ... under racecheck (default "~[large]": racecheck is slow on 10^7 elements)
  TRACE_PROGRAMS     neslgpu-bench/reduced programs of the trace stage (default "qs.r100000 bh.r200")
  SANITIZER    the compute-sanitizer binary (default: found on PATH or under /usr/local/cuda)
  LIBRARY_SEARCH  folders searched for shared libraries the loader does not find (default: the
               CUDA toolkit, /usr/lib/x86_64-linux-gnu, /opt, /usr/local/lib, /usr/lib/python3*)
EOF
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BACKEND=${BACKEND:-cuda}
KIT=${KIT:-$repo_root/device-run}
OUT=${OUT:-$KIT/out}
RUNS=${RUNS:-3}
MICRO_SIZES=${MICRO_SIZES:-all}
MICRO_OPS=${MICRO_OPS:-all}
PEAK_GBPS=${PEAK_GBPS:-3000}
E2E_PROGRAMS=${E2E_PROGRAMS:-"dotp black-scholes qs quickhull bh"}
E2E_SIZES=${E2E_SIZES:-}
SANITIZE_PROGRAMS=${SANITIZE_PROGRAMS:-"dotp.r100000 black-scholes.r50000 qs.r100000 quickhull.r50000 bh.r200"}
MEMCHECK_FILTER=${MEMCHECK_FILTER:-}
RACECHECK_FILTER=${RACECHECK_FILTER-"~[large]"}
TRACE_PROGRAMS=${TRACE_PROGRAMS:-"qs.r100000 bh.r200"}

all_stages="info conformance corpus corpus-fused nesl corpus-full memcheck racecheck e2e micro trace"
stages=()
for arg in "$@"; do
  case "$arg" in
    -h|--help) usage; exit 0 ;;
    all) read -ra stages <<< "$all_stages" ;;
    *)
      [[ " $all_stages " == *" $arg "* ]] || { echo "run_all.sh: unknown stage '$arg'" >&2; usage >&2; exit 2; }
      stages+=("$arg") ;;
  esac
done
[[ ${#stages[@]} -gt 0 ]] || read -ra stages <<< "$all_stages"

KIT=$(cd "$KIT" 2>/dev/null && pwd) || { echo "run_all.sh: no kit folder" >&2; exit 1; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
bin="$KIT/bin"
shared="$KIT/shared"
[[ -x "$bin/vinterp" ]] || { echo "run_all.sh: no kit at $KIT (run bench/gpu/pack.sh here first and carry device-run)" >&2; exit 1; }
export LD_LIBRARY_PATH="$KIT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# Libraries the kit leaves to the device (the CUDA toolkit's libnvrtc, ...): where the loader does
# not find one, look in the CUDA toolkit and in Python's nvidia-* wheels and add that folder.
# vinterp opens NVRTC itself at the first FUSED compile (dlopen by soname, which ldd does not
# list): it counts as missing unless the loader finds it unaided.
loader_finds() {
  local d
  ldconfig -p 2>/dev/null | grep -qF "$1 " && return 0
  for d in ${LD_LIBRARY_PATH//:/ }; do [[ -e "$d/$1" ]] && return 0; done
  return 1
}
find_missing_libraries() {
  local missing name dir nvrtc
  missing=$(for b in "$bin"/*; do ldd "$b" 2>/dev/null; done | awk '/not found/ {print $1}' | sort -u)
  nvrtc=$(grep -aoE 'libnvrtc\.so\.[0-9]+' "$bin/vinterp" | head -1 || true)
  [[ -n "$nvrtc" ]] && ! loader_finds "$nvrtc" && missing="$missing $nvrtc"
  for name in $missing; do
    # shellcheck disable=SC2086  # a list of folders and patterns
    dir=$(find ${LIBRARY_SEARCH:-/usr/local/cuda*/lib* /usr/local/cuda*/targets/*/lib /usr/lib/x86_64-linux-gnu \
            /opt /usr/local/lib /usr/lib/python3*/} -name "$name" -print -quit 2>/dev/null | head -1)
    if [[ -n "$dir" ]]; then
      export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$dir")"
      echo "run_all.sh: $name from $(dirname "$dir")"
    else
      echo "run_all.sh: $name is needed and not found on this machine" >&2
    fi
  done
}
summary="$OUT/summary.txt"
work=$(mktemp -d "${TMPDIR:-/tmp}/nesl_gpu_run.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0

note() { echo "$*" | tee -a "$summary"; }
# result STAGE RC TEXT: one summary line; a non-zero RC makes the script's exit status 1
result() {
  if [[ $2 -eq 0 ]]; then note "$1: ok: $3"
  elif [[ $2 -eq 77 ]]; then note "$1: SKIPPED (exit 77: it found no usable GPU): $3"; status=1
  else note "$1: FAILED (exit $2): $3"; status=1; fi
}

sanitizer=${SANITIZER:-$(command -v compute-sanitizer || true)}
[[ -n "$sanitizer" ]] || for candidate in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [[ -x "$candidate" ]] && sanitizer=$candidate && break
done

# The conformance binaries that test $BACKEND.
conformance_suites() {
  local suite name
  for suite in "$bin"/cvl_conformance*; do
    [[ -x "$suite" ]] || continue
    name=$(basename "$suite")
    case "$BACKEND" in
      cpu) [[ "$name" == cvl_conformance ]] && echo "$suite" ;;
      cuda-emulated) [[ "$name" == *emulat* ]] && echo "$suite" ;;
      *) [[ "$name" == *"$BACKEND"* && "$name" != *emulat* ]] && echo "$suite" ;;
    esac
  done
}

# The problem size of a program: the first `CONST INT` of its entry function.
program_size() { awk '/^FUNC /{f++} f==1 && /^CONST INT -?[0-9]+$/ {print $3; exit}' "$1"; }
# Copies $1 to $3 with that first `CONST INT` set to $2 (never the originals).
with_size() {
  awk -v size="$2" '/^FUNC /{f++}
    f==1 && !done && /^CONST INT -?[0-9]+$/ {print "CONST INT " size; done=1; next} {print}' "$1" > "$3"
}
median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
now() { date +%s.%N; }

stage_info() {
  local log="$OUT/info.log"
  {
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores"
    nvidia-smi 2>&1 || echo "nvidia-smi: not available"
    nvcc --version 2>&1 | tail -2 || true
    echo "compute-sanitizer: ${sanitizer:-not found}"
    [[ -n "$sanitizer" ]] && "$sanitizer" --version 2>&1 | tail -1
    "$bin/vinterp" --version
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    echo "ldd vinterp:"; ldd "$bin/vinterp"
    cat "$KIT/MANIFEST.txt" 2>/dev/null | head -20
  } > "$log" 2>&1
  note "info: $(grep -m1 -o 'NVIDIA [A-Z0-9][^|]*' "$log" | sed 's/ *$//' || echo 'no GPU seen'); $("$bin/vinterp" --version)"
}

stage_conformance() {
  local log="$OUT/conformance.log" suites rc=0 any=0 suite
  : > "$log"
  while read -r suite; do
    [[ -n "$suite" ]] || continue
    any=1
    echo "== $(basename "$suite")" >> "$log"
    local start=$(now)
    "$suite" --reporter compact >> "$log" 2>&1 || rc=$?
    local line
    line=$(grep -E '^(Passed|Failed|All tests passed|test cases)' "$log" | tail -1)
    result "conformance $(basename "$suite")" "$rc" "${line:-see conformance.log} ($(awk -v a="$(now)" -v b="$start" 'BEGIN {printf "%.0f", a - b}') s)"
  done < <(conformance_suites)
  [[ $any -eq 1 ]] || result conformance 1 "no conformance suite for backend $BACKEND in $bin"
}

run_corpus() {  # run_corpus STAGE DIR...: DIRs under $CORPUS_ROOT (default the kit's shared/); appends to corpus.log
  local stage=$1; shift
  local log="$OUT/corpus.log" dir rc line root=${CORPUS_ROOT:-$shared}
  for dir in "$@"; do
    if [[ ! -d "$root/$dir" ]]; then
      note "$stage $dir: skipped (not in the kit)"
      continue
    fi
    echo "== $dir" >> "$log"
    rc=0
    # shellcheck disable=SC2086  # CORPUS_ARGS holds words
    "$bin/corpus_runner" --vinterp "$bin/vinterp" --dir "$root/$dir" --extra-arg="--backend=$BACKEND" \
      --timeout 900 ${CORPUS_ARGS:-} >> "$log" 2>&1 || rc=$?
    line=$(tail -1 "$log")
    result "$stage $dir" "$rc" "$line"
  done
}
stage_corpus() { : > "$OUT/corpus.log"; run_corpus corpus corpus-hand corpus regress neslgpu-bench/reduced; }
stage_corpus-full() { run_corpus corpus-full neslgpu-bench; }
stage_nesl() {  # our compiler's VCODE (pack.sh compiled it into nesl/), on $BACKEND and fused
  [[ -d "$KIT/nesl" ]] || { result nesl 1 "no nesl/ in the kit (pack.sh compiles it when nesl is built)"; return; }
  CORPUS_ROOT="$KIT/nesl" run_corpus nesl corpus programs
  [[ -x "$bin/fcode-opt" ]] && CORPUS_ROOT="$KIT/nesl" CORPUS_ARGS="--optimizer $bin/fcode-opt" \
    run_corpus nesl-fused corpus programs
}
stage_corpus-fused() {  # every program through fcode-opt first, then $BACKEND
  if [[ ! -x "$bin/fcode-opt" ]]; then result corpus-fused 1 "fcode-opt not in the kit"; return; fi
  CORPUS_ARGS="--optimizer $bin/fcode-opt" run_corpus corpus-fused corpus-hand corpus regress \
    neslgpu-bench/reduced
}

have_sanitizer() {  # have_sanitizer STAGE
  [[ -n "$sanitizer" ]] && return 0
  if [[ "$BACKEND" == cpu ]]; then note "$1: skipped (no compute-sanitizer; backend cpu)"
  else result "$1" 1 "compute-sanitizer not found"; fi
  return 1
}

# sanitize_suites TOOL FILTER LOG: every conformance suite of $BACKEND under TOOL.
sanitize_suites() {
  local tool=$1 filter=() log=$3 suite rc any=0
  [[ -n "$2" ]] && filter=("$2")
  while read -r suite; do
    [[ -n "$suite" ]] || continue
    any=1
    echo "== $tool $(basename "$suite") ${filter[*]}" >> "$log"
    rc=0
    "$sanitizer" --tool "$tool" --error-exitcode 99 "$suite" "${filter[@]}" --reporter compact >> "$log" 2>&1 || rc=$?
    result "$tool $(basename "$suite") ${filter[*]}" "$rc" "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^(Passed|Failed)' "$log" | tail -2 | tr '\n' ' ')"
  done < <(conformance_suites)
  [[ $any -eq 1 ]] || result "$tool" 1 "no conformance suite for backend $BACKEND in $bin"
}

stage_memcheck() {
  local log="$OUT/memcheck.log" rc program
  : > "$log"
  have_sanitizer memcheck || return
  for program in $SANITIZE_PROGRAMS; do
    program="$shared/neslgpu-bench/reduced/$program.vcode"
    [[ -f "$program" ]] || { result "memcheck $(basename "$program")" 1 "not in the kit"; continue; }
    echo "== memcheck $(basename "$program")" >> "$log"
    rc=0
    # The sanitizer writes its report to stdout unless told otherwise: to its own file here, so
    # that stdout is the program's alone.
    (cd "$work" && "$sanitizer" --tool memcheck --error-exitcode 99 --log-file "$work/sanitizer.txt" \
       "$bin/vinterp" --backend "$BACKEND" "$program" > "$work/sanitized.out" 2>> "$log") || rc=$?
    cat "$work/sanitizer.txt" >> "$log" 2>/dev/null
    # the output must also be right: every stdout line but the timer
    if [[ $rc -eq 0 ]] && ! cmp -s <(sed '$d' "${program%.vcode}.expected") <(sed '$d' "$work/sanitized.out"); then
      echo "output differs from ${program%.vcode}.expected" >> "$log"
      rc=98
    fi
    result "memcheck $(basename "$program")" "$rc" "$(grep -E 'ERROR SUMMARY' "$log" | tail -1)"
  done
  sanitize_suites memcheck "$MEMCHECK_FILTER" "$log"
}

stage_racecheck() {
  local log="$OUT/racecheck.log"
  : > "$log"
  have_sanitizer racecheck || return
  sanitize_suites racecheck "$RACECHECK_FILTER" "$log"
}

# name, the neslgpu-bench file to start from, and the size the issue asks for
e2e_table="
dotp           dotp.10000000.vcode            10000000
black-scholes  black-scholes.10000000.vcode   10000000
qs             qs.1000000.vcode               1000000
quickhull      quickhull.5000000.vcode        5000000
bh             bh.75000.vcode                 75000
"

stage_e2e() {
  local log="$OUT/e2e.log" csv="$OUT/e2e.csv" name file size src expected backend run entry
  : > "$log"
  # The same columns as bench/run_benchmarks.sh --csv (bench/plot.py reads both).
  echo "program,size,variant,threads,runs,wall_s,wall_min_s,wall_max_s,timed_s,peak_rss_mib,wall_vs_classic,timed_vs_classic,output" > "$csv"
  {
    echo "# end-to-end: median of $RUNS runs; wall s = the whole process, timed ms = the program's own"
    echo "# timer (its last stdout line); output ok = every other stdout line equals the classic's"
    printf '%-14s %9s %-14s %9s %10s %8s\n' program size backend "wall s" "timed ms" output
  } | tee -a "$summary"
  for name in $E2E_PROGRAMS; do
    read -r _ file size <<< "$(awk -v n="$name" '$1 == n' <<< "$e2e_table")"
    [[ -n "${file:-}" ]] || { result "e2e $name" 1 "unknown program"; continue; }
    for entry in $E2E_SIZES; do [[ "${entry%%=*}" == "$name" ]] && size=${entry#*=}; done
    src="$shared/neslgpu-bench/$file"
    [[ -f "$shared/neslgpu-bench/$name.$size.vcode" ]] && src="$shared/neslgpu-bench/$name.$size.vcode"
    [[ -f "$src" ]] || { result "e2e $name" 1 "$src not in the kit"; continue; }
    expected="-"
    if [[ "$(program_size "$src")" == "$size" && -f "${src%.vcode}.expected" ]]; then
      expected="${src%.vcode}.expected"
    else
      with_size "$src" "$size" "$work/$name.$size.vcode"
      src="$work/$name.$size.vcode"
    fi
    # Variants: label|backend|program. With fcode-opt in the kit, also its FCODE (fused) version.
    local variants=("$BACKEND|$BACKEND|$src") variant label backend program
    if [[ -x "$bin/fcode-opt" ]]; then
      if "$bin/fcode-opt" "$src" -o "$work/$name.fcode" 2> "$work/err"; then
        variants+=("$BACKEND+fused|$BACKEND|$work/$name.fcode")
      else
        result "e2e $name fcode-opt" 1 "$(head -c 300 "$work/err")"
      fi
    fi
    [[ "$BACKEND" != cpu ]] && variants+=("cpu|cpu|$src")
    for variant in "${variants[@]}"; do
      IFS='|' read -r label backend program <<< "$variant"
      local walls=() timeds=() check="-" failed=""
      for ((run = 1; run <= RUNS; run++)); do
        local start=$(now) rc=0
        (cd "$work" && "$bin/vinterp" --backend "$backend" "$program" > "$work/out" 2> "$work/err") || rc=$?
        local wall=$(awk -v a="$(now)" -v b="$start" 'BEGIN {print a - b}')
        if [[ $rc -ne 0 ]]; then failed="exit $rc: $(head -c 300 "$work/err")"; break; fi
        walls+=("$wall")
        timeds+=("$(tail -1 "$work/out" | sed -n 's/^( \([-+0-9.e]*\) )$/\1/p')")
        if [[ "$expected" != "-" ]]; then
          if cmp -s <(sed '$d' "$expected") <(sed '$d' "$work/out"); then check=ok; else check=DIFFERS; fi
        fi
      done
      if [[ -n "$failed" ]]; then
        result "e2e $name $label" 1 "$failed"
        continue
      fi
      [[ "$check" == DIFFERS ]] && status=1
      local wall_median timed_median threads=""
      wall_median=$(printf '%s\n' "${walls[@]}" | median)
      timed_median=$(printf '%s\n' "${timeds[@]}" | grep -v '^$' | median)
      printf '%-14s %9s %-14s %9.3f %10.3f %8s\n' "$name" "$size" "$label" "$wall_median" \
        "$(awk -v t="$timed_median" 'BEGIN {print t * 1000}')" "$check" | tee -a "$summary"
      [[ "$backend" == cpu ]] && threads=$(nproc)
      echo "$name,$size,$label,$threads,${#walls[@]},$wall_median,$(printf '%s\n' "${walls[@]}" | sort -g | head -1),$(printf '%s\n' "${walls[@]}" | sort -g | tail -1),$timed_median,,,,$check" >> "$csv"
      if [[ "$backend" != cpu ]]; then  # where the time goes, once per program
        echo "== --profile $name $size $label" >> "$log"
        (cd "$work" && "$bin/vinterp" --backend "$backend" --profile "$program" > /dev/null 2>> "$log") || true
      fi
    done
  done
}

stage_micro() {
  local log="$OUT/micro.log" rc=0 peak=()
  [[ -x "$bin/cvl_microbench" ]] || { result micro 1 "cvl_microbench not in the kit"; return; }
  [[ "$BACKEND" != cpu && "$PEAK_GBPS" != 0 ]] && peak=(--peak-gbps "$PEAK_GBPS")
  "$bin/cvl_microbench" --backend "$BACKEND" --ops "$MICRO_OPS" --sizes "$MICRO_SIZES" "${peak[@]}" > "$log" 2>&1 || rc=$?
  result "micro table" "$rc" "$(grep -c . "$log") lines in micro.log; last: $(tail -1 "$log")"
  rc=0
  "$bin/cvl_microbench" --backend "$BACKEND" --threshold >> "$log" 2>&1 || rc=$?
  result "micro threshold" "$rc" "$(grep 'suggested --host-threshold' "$log" | tail -1)"
}

stage_trace() {
  local name program rc
  for name in $TRACE_PROGRAMS; do
    program="$shared/neslgpu-bench/reduced/$name.vcode"
    [[ -f "$program" ]] || { note "trace $name: skipped (not in the kit)"; continue; }
    rc=0
    # traced, the output must still be right: every stdout line but the timer
    (cd "$work" && "$bin/vinterp" --backend "$BACKEND" -O --trace-json "$OUT/trace_$name.json" \
       "$program" > "$work/traced.out" &&
       cmp -s <(sed '$d' "${program%.vcode}.expected") <(sed '$d' "$work/traced.out")) || rc=$?
    result "trace $name" "$rc" "$(du -k "$OUT/trace_$name.json" 2>/dev/null | cut -f1) KiB"
  done
}

note "# run_all.sh $(date -u +%Y-%m-%dT%H:%M:%SZ): backend $BACKEND, stages ${stages[*]}"
find_missing_libraries > "$work/libraries.txt" 2>&1  # not in a pipeline: it exports
tee -a "$summary" < "$work/libraries.txt"
for stage in "${stages[@]}"; do
  start=$(now)
  "stage_$stage"
  note "# stage $stage took $(awk -v a="$(now)" -v b="$start" 'BEGIN {printf "%.0f", a - b}') s"
done
exit $status
