#!/usr/bin/env bash
# CTest checks of the comparison scripts (bench/CMakeLists.txt):
#   test_bench_scripts.sh run BUILD_DIR SHARED_DIR
#     bench/run_benchmarks.sh on two reduced programs, one round: a CSV row per variant, every
#     output the classic's; bad options rejected. Exit 77 (skipped) without SHARED_DIR.
#   test_bench_scripts.sh mpi BUILD_DIR SHARED_DIR
#     bench/mpi_benchmarks.sh on a reduced program at 1 and 2 processes, one round: a ratio row and a
#     communication row per count, nothing sent at 1, something at 2. Exit 77 without SHARED_DIR.
#   test_bench_scripts.sh nesl BUILD_DIR SHARED_DIR
#     bench/nesl_compiler_bench.sh on two reduced programs, one round: two rows each, every
#     output the classic compiler's; an unknown program rejected. Exit 77 without SHARED_DIR.
#   test_bench_scripts.sh cost_model BUILD_DIR SHARED_DIR
#     bench/cost_model/run.sh at tiny sizes, one run: a row per program and size with its work,
#     every program within 8x of its cost model's work at its own sizes,
#     our output the classic's where SHARED_DIR has the classic interpreter; a run out of memory
#     is a row, another interpreter's output is DIFFERENT, an unknown program is rejected.
#   test_bench_scripts.sh streaming BUILD_DIR
#     bench/streaming/run.sh at tiny sizes, one run: a row per program, size and thread count,
#     streamed and materializing results the same and within the float64 references, and the
#     streamed peak memory below the materializing one at each program's largest size; the peak
#     check fails when the modes are swapped, a result that differs is DIFFERENT, a run out of
#     memory is a row, bad options are rejected; with --work the work per element stays the same
#     across sizes.
#   test_bench_scripts.sh gpu_latency BUILD_DIR SHARED_DIR
#     bench/gpu_latency.sh on the five reduced programs: a row per program and form, and each
#     one's kernel launches at most the count pinned here, so that a change adding launches
#     fails (lower a pin when a change saves some), and a device traffic row per program and
#     form. Exit 77 without SHARED_DIR or cuda-emulated.
#   test_bench_scripts.sh plot
#     bench/plot.py on a small made-up CSV (plus a GPU CSV): a PNG; bad CSVs rejected with a
#     message. Exit 77 (skipped) without matplotlib.
set -uo pipefail

bench=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/test_bench_scripts.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
check() {  # check DESCRIPTION COMMAND...: runs the command, reports, remembers a failure
  local description=$1
  shift
  if "$@"; then echo "ok: $description"; else echo "FAIL: $description"; status=1; fi
}

case "${1:-}" in
  run)
    build_dir=$2 shared_dir=$3
    if [[ ! -d "$shared_dir/neslgpu-bench/reduced" || ! -x "$shared_dir/classic/vinterp" ]]; then
      echo "skipped: no $shared_dir/neslgpu-bench/reduced or classic interpreter (the shared corpus)"
      exit 77
    fi
    "$bench/run_benchmarks.sh" "$build_dir" --shared "$shared_dir" --reduced --programs "dotp bh" --runs 1 \
      --csv "$work/results.csv" > "$work/stdout" 2>&1
    rc=$?
    cat "$work/stdout"
    check "run_benchmarks.sh exits 0" test $rc -eq 0
    check "a header and 14 rows (2 programs x 7 variants)" test "$(wc -l < "$work/results.csv")" -eq 15
    check "every row has a wall time and its output is the classic's" \
      awk -F, 'NR > 1 && !($6 > 0 && ($13 == "same" || $13 == "close")) {bad = 1; print "  bad row: " $0} END {exit bad}' \
      "$work/results.csv"
    check "FCODE rows have their ratio to VCODE and the rounds they won (of one), the other rows none" \
      awk -F, 'NR == 1 && !($17 == "wall_vs_vcode" && $18 == "rounds_won_vs_vcode") {bad = 1}
               NR > 1 && ($3 ~ /^fcode-/) != ($17 > 0) {bad = 1; print "  bad row: " $0}
               NR > 1 && ($3 ~ /^fcode-/) != ($18 == "0" || $18 == "1") {bad = 1; print "  bad row: " $0}
               NR > 1 && ($3 ~ /^fcode-/) && ($18 == "1") != ($17 < 1) {bad = 1; print "  bad row: " $0}
               END {exit bad}' "$work/results.csv"
    check "every variant of bh is there" \
      test "$(awk -F, '$1 == "bh" {printf "%s ", $3}' "$work/results.csv")" == \
      "classic vcode-1 vcode-all fcode-1 fcode-all baseline-1 baseline-all "
    "$bench/run_benchmarks.sh" "$build_dir" --shared "$shared_dir" --reduced --programs dotp --runs 1 \
      --variants "classic vcode-1" --idle 0.2 --csv "$work/cold.csv" > "$work/cold" 2>&1
    check "a cold run (--idle): exit 0 and it says so" test $? -eq 0 -a -n "$(grep -F "0.2 s idle before every run" "$work/cold")"
    check "a cold run's rows have user and system seconds and the idle time" \
      awk -F, 'NR == 1 && !($14 == "user_s" && $15 == "sys_s" && $16 == "idle_s") {bad = 1}
               NR > 1 && !($14 >= 0 && $14 != "" && $15 >= 0 && $15 != "" && $16 == 0.2) {bad = 1; print "  bad row: " $0}
               END {exit bad}' "$work/cold.csv"
    "$bench/run_benchmarks.sh" "$build_dir" --variants "classic nonsense" > "$work/out" 2>&1
    check "an unknown variant: exit 2 and its name" test $? -eq 2 -a -n "$(grep -F "unknown variant 'nonsense'" "$work/out")"
    "$bench/run_benchmarks.sh" "$build_dir" --shared "$work/nowhere" > "$work/out" 2>&1
    check "a missing shared corpus: exit 1 and its path" test $? -eq 1 -a -n "$(grep -F "$work/nowhere" "$work/out")"
    ;;
  mpi)
    build_dir=$2 shared_dir=$3
    if [[ ! -d "$shared_dir/neslgpu-bench/reduced" ]]; then
      echo "skipped: no $shared_dir/neslgpu-bench/reduced (the shared corpus)"
      exit 77
    fi
    "$bench/mpi_benchmarks.sh" "$build_dir" --shared "$shared_dir" --reduced --programs qs --runs 1 \
      --ranks "1 2" --csv "$work/results.csv" > "$work/stdout" 2>&1
    rc=$?
    cat "$work/stdout"
    check "mpi_benchmarks.sh exits 0" test $rc -eq 0
    check "4 timing rows (vcode-1 mpi-1 vcode-2 mpi-2), every output the same" \
      test "$(awk -F, 'NR > 1 && $6 > 0 && $13 == "same"' "$work/results.csv" | wc -l)" -eq 4
    check "a ratio row per process count" \
      test "$(sed -n '/mpi-N \/ vcode-N/,/^$/p' "$work/stdout" | grep -c '^qs ')" -eq 2
    check "nothing sent by one process, something by two" \
      awk '/^# communication per run/ {on = 1; next} on && $1 == "qs" {m[$3] = $4} END {exit !(m[1] == 0 && m[2] > 0)}' \
      "$work/stdout"
    check "a per-opcode table at 2 processes" grep -q "^# per opcode at 2 processes: qs" "$work/stdout"
    ;;
  nesl)
    build_dir=$2 shared_dir=$3
    if [[ ! -d "$shared_dir/neslgpu-bench/nesl" ]]; then
      echo "skipped: no $shared_dir/neslgpu-bench/nesl (the shared corpus)"
      exit 77
    fi
    "$bench/nesl_compiler_bench.sh" "$build_dir" --shared "$shared_dir" --reduced --runs 1 \
      --programs "dotp bh" > "$work/stdout" 2>&1
    rc=$?
    cat "$work/stdout"
    check "nesl_compiler_bench.sh exits 0 (every output the classic compiler's)" test $rc -eq 0
    check "a header and 4 rows (2 programs x VCODE, FCODE)" \
      test "$(grep -cE ' (VCODE|FCODE) ' "$work/stdout")" -eq 4
    check "every row has positive wall times" \
      awk 'NR > 1 && !($3 > 0 && $4 > 0 && $5 > 0) {bad = 1; print "  bad row: " $0} END {exit bad}' \
      "$work/stdout"
    "$bench/nesl_compiler_bench.sh" "$build_dir" --shared "$shared_dir" --programs nosuch \
      > "$work/bad" 2>&1
    rc=$?
    check "an unknown program: exit 2 and its name" \
      bash -c "test $rc -eq 2 && grep -q nosuch '$work/bad'"
    ;;
  cost_model)
    build_dir=$2 shared_dir=$3
    classic="$shared_dir/classic/vinterp"
    programs="bfs bsearch dense_mxv gather nested_lookup smvm treelookup"
    "$bench/cost_model/run.sh" "$build_dir" --sizes "8 16" --runs 1 --classic "$classic" \
      --csv "$work/results.csv" > "$work/stdout" 2>&1
    rc=$?
    cat "$work/stdout"
    check "run.sh exits 0" test $rc -eq 0
    check "a table row per program and size" \
      test "$(for p in $programs; do for n in 8 16; do grep -cE "^$p +$n +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ " "$work/stdout"; done; done | tr -d '\n')" == 11111111111111
    check "every CSV row ran, with elements, the VM's and the model's work and their ratio" \
      awk -F, 'NR > 1 && !($3 == "ok" && $4 > 0 && $5 > 0 && $6 > 0 && $7 > 0 && $8 > 0 && $9 > 0) {bad = 1; print "  bad row: " $0}
               END {exit bad || NR != 15}' "$work/results.csv"
    if [ -x "$classic" ]; then
      check "at the smallest size every output is the classic's" \
        test "$(awk -F, '$2 == 8 && $10 == "same"' "$work/results.csv" | wc -l)" -eq 7
    else
      echo "note: no $classic; outputs not compared"
    fi
    # The work the VM does stays within 8x of the cost model's at each program's own sizes.
    "$bench/cost_model/run.sh" "$build_dir" --runs 1 --max-ratio 8 --classic "$work/none" > "$work/out" 2>&1
    rc=$?
    cat "$work/out"
    check "at the default sizes every vm/model is at most 8" test $rc -eq 0
    "$bench/cost_model/run.sh" "$build_dir" --programs gather --sizes 8 --runs 1 --max-ratio 0.5 \
      --classic "$work/none" > "$work/out" 2>&1
    check "a ratio above --max-ratio: exit 1 and the row says so" \
      test $? -eq 1 -a -n "$(grep -E '^gather +8 .*>0\.5' "$work/out")"
    "$bench/cost_model/run.sh" "$build_dir" --programs gather --sizes "8 4000000" --runs 1 --max-memory 16M \
      --classic "$work/none" > "$work/out" 2>&1
    rc=$?
    check "a run out of memory: exit 0 and a row with the interpreter's error" \
      test $rc -eq 0 -a -n "$(grep -E '^gather +4000000 +FAILED: vinterp: .*out of vector memory' "$work/out")"
    printf '#!/bin/sh\necho "( 0 )"\n' > "$work/other"
    chmod +x "$work/other"
    "$bench/cost_model/run.sh" "$build_dir" --programs gather --sizes 8 --runs 1 --classic "$work/other" \
      > "$work/out" 2>&1
    rc=$?
    check "another output than the classic's: exit 1 and DIFFERENT" \
      test $rc -eq 1 -a -n "$(grep -E '^gather +8 .* DIFFERENT$' "$work/out")"
    "$bench/cost_model/run.sh" "$build_dir" --programs nosuch > "$work/out" 2>&1
    check "an unknown program: exit 2 and its name" test $? -eq 2 -a -n "$(grep -F "'nosuch'" "$work/out")"
    ;;
  streaming)
    build_dir=$2
    # streamed_below CSV: at each program's largest size and each thread count, the streamed run's
    # peak is below the materializing run's.
    streamed_below() {
      awk -F, 'NR > 1 { if ($2 + 0 > largest[$1]) largest[$1] = $2 + 0; peak[$1, $2, $4, $5] = $8; threads[$4] = 1 }
               END { for (p in largest) for (t in threads) {
                       s = peak[p, largest[p], t, "stream"]; e = peak[p, largest[p], t, "eager"]
                       if (!(s != "" && e != "" && s + 0 < e + 0)) {
                         bad = 1; printf "  %s %s, threads %s: streamed %s MiB, materializing %s MiB\n", p, largest[p], t, s, e } }
                     exit bad }' "$1"
    }
    "$bench/streaming/run.sh" "$build_dir" --sizes tiny --runs 1 --csv "$work/results.csv" > "$work/stdout" 2>&1
    rc=$?
    cat "$work/stdout"
    check "run.sh exits 0" test $rc -eq 0
    check "a row per program, size and thread count, both modes' results the same" \
      test "$(grep -cE '^[a-z]+ +[0-9]+ +[0-9]+ +(1|all) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ same ' "$work/stdout")" -eq 16
    check "every result with a reference is within it" \
      test "$(grep -cE ' same +ok [0-9.e+-]+ <= ' "$work/stdout")" -eq 12
    check "every CSV row ran, with its time, peak and result" \
      awk -F, 'NR > 1 && !($6 == "ok" && $7 > 0 && $8 > 0 && $9 != "") {bad = 1; print "  bad row: " $0} END {exit bad || NR != 33}' \
      "$work/results.csv"
    check "at each program's largest tiny size the streamed peak is below the materializing one" \
      streamed_below "$work/results.csv"
    if /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
      /usr/bin/python3 "$bench/streaming/plot.py" "$work/results.csv" -o "$work/peak.png" > "$work/out" 2>&1
      check "plot.py draws the peaks: exit 0 and a PNG" \
        test $? -eq 0 -a "$(head -c 8 "$work/peak.png" 2> /dev/null | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a
    else
      echo "note: /usr/bin/python3 has no matplotlib; plot.py not run"
    fi
    # A vinterp that materializes when asked to stream and streams when asked to materialize:
    # the peak check must catch it.
    mkdir -p "$work/swapped/nesl" "$work/swapped/vinterp"
    ln -s "$(cd "$build_dir" && pwd)/nesl/nesl" "$work/swapped/nesl/nesl"
    real_vinterp="$(cd "$build_dir" && pwd)/vinterp/vinterp"
    printf '#!/usr/bin/env bash\nargs=()\neager=--eager\nfor a in "$@"; do if [ "$a" = --eager ]; then eager=""; else args+=("$a"); fi; done\nexec "%s" $eager "${args[@]}"\n' \
      "$real_vinterp" > "$work/swapped/vinterp/vinterp"
    chmod +x "$work/swapped/vinterp/vinterp"
    "$bench/streaming/run.sh" "$work/swapped" --sizes tiny --runs 1 --csv "$work/swapped.csv" > "$work/out" 2>&1
    check "modes swapped: the results still agree (exit 0)" test $? -eq 0
    streamed_below "$work/swapped.csv" > "$work/below" 2>&1
    rc=$?
    cat "$work/below"
    check "modes swapped: the peak check fails, for every program" \
      test $rc -ne 0 -a "$(grep -cE '^  (logsum|matmul|potential|sumlogsum) ' "$work/below")" -ge 4
    # A materializing run that prints another result: DIFFERENT, OFF and exit 1.
    printf '#!/usr/bin/env bash\nfor a in "$@"; do if [ "$a" = --eager ]; then echo "( 1.00000000000000e+00 )"; exit 0; fi; done\nexec "%s" "$@"\n' \
      "$real_vinterp" > "$work/swapped/vinterp/vinterp"
    "$bench/streaming/run.sh" "$work/swapped" --sizes tiny --runs 1 --programs sumlogsum --threads 1 > "$work/out" 2>&1
    rc=$?
    cat "$work/out"
    check "another result when materialized: exit 1, DIFFERENT and the reference OFF" \
      test $rc -eq 1 -a "$(grep -cE '^sumlogsum .* DIFFERENT +OFF ' "$work/out")" -eq 2
    "$bench/streaming/run.sh" "$build_dir" --sizes tiny --runs 1 --programs logsum --threads 1 --max-memory 10M \
      > "$work/out" 2>&1
    rc=$?
    cat "$work/out"
    check "a run out of memory: exit 0, FAILED in its cells and its error line below" \
      test $rc -eq 0 -a -n "$(grep -E '^logsum +1048576 .* FAILED +FAILED ' "$work/out")" \
      -a -n "$(grep -E '^    eager, threads 1: vinterp: .*out of vector memory' "$work/out")"
    "$bench/streaming/run.sh" "$build_dir" --sizes tiny --runs 1 --programs sumlogsum --threads 1 --work \
      > "$work/out" 2>&1
    rc=$?
    cat "$work/out"
    check "--work: each row its profiled work, the work per element the same at both sizes" \
      awk -v rc=$rc '$1 == "sumlogsum" && $4 ~ /^[0-9]+$/ && $5 ~ /^[0-9.]+$/ { w[++n] = $5 }
        END { exit !(rc == 0 && n == 2 && w[1] > 1 && w[2] / w[1] > 0.95 && w[2] / w[1] < 1.05) }' "$work/out"
    "$bench/streaming/run.sh" "$build_dir" --sizes huge > "$work/out" 2>&1
    check "an unknown size set: exit 2 and its name" test $? -eq 2 -a -n "$(grep -F "'huge'" "$work/out")"
    "$bench/streaming/run.sh" "$build_dir" --programs nosuch > "$work/out" 2>&1
    check "an unknown program: exit 2 and its name" test $? -eq 2 -a -n "$(grep -F "'nosuch'" "$work/out")"
    ;;
  plot)
    if ! /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
      echo "skipped: /usr/bin/python3 has no matplotlib (Debian: python3-matplotlib)"
      exit 77
    fi
    header="program,size,variant,threads,runs,wall_s,wall_min_s,wall_max_s,timed_s,peak_rss_mib,wall_vs_classic,timed_vs_classic,output"
    {
      echo "$header"
      for variant in classic vcode-1 vcode-all fcode-1 fcode-all baseline-1 baseline-all; do
        echo "qs,1000,$variant,1,3,0.5,0.4,0.6,0.25,40,,,same"
        echo "dotp,2000,$variant,1,3,2.0,1.9,2.1,0.001,40,,,same"
      done
    } > "$work/cpu.csv"
    printf '%s\n%s\n%s\n' "$header" "qs,1000,cuda,,3,0.3,0.3,0.3,0.002,,,,ok" "dotp,999,cuda,,3,0.3,0.3,0.3,0.002,,,,ok" \
      > "$work/gpu.csv"
    /usr/bin/python3 "$bench/plot.py" "$work/cpu.csv" --gpu "$work/gpu.csv" -o "$work/figure.png" --title test > "$work/out" 2>&1
    rc=$?
    cat "$work/out"
    check "plot.py exits 0" test $rc -eq 0
    check "it wrote a PNG" test "$(head -c 8 "$work/figure.png" 2> /dev/null | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a
    check "the GPU row of another size is named as left out" grep -q "no CPU row for dotp 999" "$work/out"
    echo "not,a,results,file" > "$work/bad.csv"
    /usr/bin/python3 "$bench/plot.py" "$work/bad.csv" -o "$work/bad.png" > "$work/out" 2>&1
    check "a CSV without the columns: exit 1 and its name" test $? -eq 1 -a -n "$(grep -F "$work/bad.csv: not a results CSV" "$work/out")"
    /usr/bin/python3 "$bench/plot.py" "$work/missing.csv" -o "$work/bad.png" > "$work/out" 2>&1
    check "a missing CSV: exit 1 and its name" test $? -eq 1 -a -n "$(grep -F "cannot read $work/missing.csv" "$work/out")"
    ;;
  gpu_latency)
    build_dir=$2 shared_dir=$3
    if [[ ! -d "$shared_dir/neslgpu-bench/reduced" ]]; then
      echo "skipped: no $shared_dir/neslgpu-bench/reduced (the shared corpus)"
      exit 77
    fi
    if ! "$build_dir/vinterp/vinterp" --version 2>&1 | grep -q 'backends:.*cuda-emulated'; then
      echo "skipped: this build has no cuda-emulated backend"
      exit 77
    fi
    # The most launches each program may make, as VCODE and as FCODE.
    pins="reduced/qs.r100000 681 660
reduced/quickhull.r50000 351 278
reduced/bh.r200 812 567
reduced/black-scholes.r50000 250 67
reduced/dotp.r100000 6 5"
    "$bench/gpu_latency.sh" "$build_dir" --shared "$shared_dir" \
      --programs "$(awk '{printf "%s ", $1}' <<<"$pins")" --csv "$work/latency.csv" > "$work/stdout" 2>&1
    rc=$?
    cat "$work/stdout"
    check "gpu_latency.sh exits 0" test $rc -eq 0
    check "a header and 10 rows (5 programs x 2 forms)" test "$(wc -l < "$work/latency.csv")" -eq 11
    check "every program's kernel launches at most its pin" \
      awk -F, 'NR == FNR {vcode[$1] = $2; fcode[$1] = $3; next}
               FNR == 1 {next}
               {pin = ($2 == "VCODE") ? vcode[$1] : fcode[$1]}
               pin == "" || $5 <= 0 || $5 > pin {bad = 1; print "  " $1 " " $2 ": " $5 " launches, pinned at most " pin}
               pin != "" && $5 < pin {print "  " $1 " " $2 ": " $5 " launches, below its pin " pin " (lower it)"}
               END {exit bad}' <(tr ' ' , <<<"$pins") "$work/latency.csv"
    check "a device traffic row per program and form, each with bytes moved, a minimum and their ratio" \
      awk -F'|' '/^\| program \| form \| device bytes moved \| bytes minimum \| moved\/min \| above / {table = 1; next}
                 table && /^\|---/ {next}
                 table && /^\|/ {
                   rows++; moved = $4; minimum = $5; gsub(/[ ,]/, "", moved); gsub(/[ ,]/, "", minimum)
                   if (!(moved > 0 && minimum > 0 && $6 + 0 > 0)) {bad = 1; print "  bad row: " $0}
                 }
                 END {exit bad || rows != 10}' "$work/stdout"
    ;;
  *)
    echo "usage: test_bench_scripts.sh run|mpi|nesl|cost_model|gpu_latency BUILD_DIR SHARED_DIR | plot" >&2
    exit 2
    ;;
esac
exit $status
