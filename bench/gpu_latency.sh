#!/usr/bin/env bash
# Host syncs, kernel launches and bytes moved of the neslgpu benchmarks on cuda-emulated (which
# counts them exactly as the real GPU build would), as VCODE and as FCODE, with a latency
# estimate from those counts, and the primitives whose device traffic passes 1.5x the least they
# need. See bench/README.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/gpu_latency.sh [BUILD_DIR] [options]

Runs `vinterp --backend cuda-emulated --profile` on the neslgpu-bench programs, each as VCODE and
as FCODE (made with BUILD_DIR/fcode-opt/fcode-opt into a temporary directory), and prints a
Markdown table with one row per program and form:

  IF executed      the count of the profile's IF row
  host syncs       the profile's syncs total: the program's own waits for the device (the
                   profiler's waits after every instruction and the final stack dump not counted)
  launches         the profile's kernel launches total
  bytes to dev/host  the profile's byte totals (final stack dump not counted)
  copies           the profile's copies total: host-to-device and device-to-device copies and
                   fills queued besides kernels (a synchronization's own reads not counted)
  est. latency us  ESTIMATE, not a measurement: launches x 3 us + host syncs x 10 us
  est. with copies the same plus copies x 2 us (also an estimate)
  top sync sources the opcodes with the most syncs (opcode:syncs)
  device bytes moved  the profile's device traffic total: what kernels, library calls, copies
                   and fills on the device read and write, by a formula per kernel
  bytes minimum    the least those instructions need: each operand element read once, each
                   result element written once
  moved/min        the two's ratio

Then a second table, from the same runs: per program and form, the opcodes whose bytes moved
pass --traffic-ratio times their minimum, most bytes first, each as
"OPCODE moved/min (share of the program's bytes moved)".

  BUILD_DIR             the CMake build directory (default: build)
  --shared DIR          the shared corpus (default: ../shared next to the repository)
  --programs "LIST"     program files without .vcode (default "qs.1000000 quickhull.1000000
                        bh.10000 black-scholes.1000000 dotp.1000000")
  --host-threshold N    passed to vinterp (default: the backend's own)
  --speculation         passed to vinterp (guessed lengths; cvl-cuda/README.md)
  --top N               sync sources to list per row (default 3)
  --traffic-ratio R     list the opcodes moving more than R times their minimum (default 1.5)
  --csv FILE            also write the rows as CSV
  -h, --help            this text
EOF
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=build
shared_dir="$repo_root/../shared"
programs="qs.1000000 quickhull.1000000 bh.10000 black-scholes.1000000 dotp.1000000"
threshold=""
speculation=""
top=3
csv=""
traffic_ratio=1.5

while [[ $# -gt 0 ]]; do
  case "$1" in
    --shared) shared_dir=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --host-threshold) threshold=$2; shift 2 ;;
    --speculation) speculation=1; shift ;;
    --top) top=$2; shift 2 ;;
    --traffic-ratio) traffic_ratio=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --*) echo "gpu_latency.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) build_dir=$1; shift ;;
  esac
done

[[ "$top" =~ ^[0-9]+$ ]] || { echo "gpu_latency.sh: --top needs a number" >&2; exit 2; }
[[ "$traffic_ratio" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
  { echo "gpu_latency.sh: --traffic-ratio needs a number" >&2; exit 2; }
[[ -z "$threshold" || "$threshold" =~ ^-?[0-9]+$ ]] ||
  { echo "gpu_latency.sh: --host-threshold needs an integer" >&2; exit 2; }
[[ "$build_dir" = /* ]] || build_dir="$PWD/$build_dir"
vinterp="$build_dir/vinterp/vinterp"
optimizer="$build_dir/fcode-opt/fcode-opt"
bench_dir="$shared_dir/neslgpu-bench"
for tool in "$vinterp" "$optimizer"; do
  if [[ ! -x "$tool" ]]; then
    echo "gpu_latency.sh: $tool not found; build it first (cmake --build $build_dir --target vinterp fcode-opt)" >&2
    exit 1
  fi
done
if ! "$vinterp" --version 2>&1 | grep -q 'backends:.*cuda-emulated'; then
  echo "gpu_latency.sh: $vinterp has no cuda-emulated backend ($("$vinterp" --version 2>&1 | head -1))" >&2
  exit 1
fi
for p in $programs; do
  [[ -f "$bench_dir/$p.vcode" ]] || { echo "gpu_latency.sh: missing program $bench_dir/$p.vcode" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/nesl_gpu_latency.XXXXXX")
trap 'rm -rf "$work"' EXIT

vargs=(--backend cuda-emulated --profile)
[[ -n "$threshold" ]] && vargs+=(--host-threshold "$threshold")
[[ -n "$speculation" ]] && vargs+=(--speculation)

# Prints "if syncs launches bytes_to_dev bytes_to_host copies top moved minimum over" for one
# profile (stderr of a run); `over` lists the opcodes above the traffic ratio
# (OPCODE:ratio:percent of the bytes moved, comma-separated, most bytes first; "-" for none).
# The backend columns appear only when some row is non-zero, so their order is read from the
# header; every data row is opcode count time time% ns/op elements work, peak bytes and peak
# added where the backend counts its vector memory, then those columns.
parse() {
  awk -v top="$top" -v ratio="$traffic_ratio" '
    /^opcode / {
      table = 1; n = 0
      first = index($0, " peak added") ? 10 : 8
      if (index($0, " launches")) col[++n] = "launches"
      if (index($0, " syncs")) col[++n] = "syncs"
      if (index($0, " bytes to dev")) col[++n] = "dev"
      if (index($0, " bytes to host")) col[++n] = "host"
      if (index($0, " copies")) col[++n] = "copies"
      if (index($0, " bytes moved")) col[++n] = "moved"
      if (index($0, " bytes minimum")) col[++n] = "minimum"
      next
    }
    !table { next }
    {
      delete v
      for (i = 1; i <= n; i++) v[col[i]] = $(first - 1 + i) + 0
    }
    $1 == "total" {
      launches = v["launches"]; syncs = v["syncs"]; dev = v["dev"]; host = v["host"]
      copies = v["copies"]; moved = v["moved"]; minimum = v["minimum"]; done = 1
      exit
    }
    $1 == "IF" { ifs = $2 + 0 }
    v["syncs"] > 0 { op[++m] = $1; s[m] = v["syncs"] }
    v["minimum"] > 0 && v["moved"] > ratio * v["minimum"] {
      hot[++h] = $1; hot_moved[h] = v["moved"]; hot_ratio[h] = v["moved"] / v["minimum"]
    }
    END {
      if (!done) { print "no profile table"; exit 1 }
      out = ""
      for (k = 1; k <= top && k <= m; k++) {       # selection of the largest, ties by name
        best = 0
        for (j = 1; j <= m; j++)
          if (!(j in used) && (best == 0 || s[j] > s[best] || (s[j] == s[best] && op[j] < op[best]))) best = j
        used[best] = 1
        out = out (out == "" ? "" : ",") op[best] ":" s[best]
      }
      if (out == "") out = "-"
      over = ""
      for (k = 1; k <= h; k++) {                   # most bytes moved first, ties by name
        best = 0
        for (j = 1; j <= h; j++)
          if (!(j in taken) && (best == 0 || hot_moved[j] > hot_moved[best] ||
                                (hot_moved[j] == hot_moved[best] && hot[j] < hot[best]))) best = j
        taken[best] = 1
        over = over (over == "" ? "" : ",") sprintf("%s:%.2f:%.1f", hot[best], hot_ratio[best],
                                                    moved > 0 ? 100 * hot_moved[best] / moved : 0)
      }
      if (over == "") over = "-"
      printf "%d %d %d %d %d %d %s %.0f %.0f %s\n", ifs, syncs, launches, dev, host, copies, out,
             moved, minimum, over
    }'
}

# 12345678 -> 12,345,678
commas() { printf '%s' "$1" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta'; }

echo "# vinterp ${vargs[*]} on $(basename "$bench_dir") ($("$vinterp" --version 2>&1 | head -1))"
echo "# est. latency = launches x 3 us + host syncs x 10 us: an ESTIMATE from the counts, not a measurement"
echo "# est. with copies = that + copies x 2 us (copies and fills queued besides kernels): also an ESTIMATE"
echo
printf '| program | form | IF executed | host syncs | kernel launches | bytes to device | bytes to host | copies | est. latency µs (estimate, not measured) | est. with copies µs | top sync sources (opcode:syncs) | device bytes moved | bytes minimum | moved/min |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n'
[[ -n "$csv" ]] && echo "program,form,if_executed,host_syncs,kernel_launches,bytes_to_device,bytes_to_host,copies,est_latency_us,est_with_copies_us,top_sync_sources,device_bytes_moved,bytes_minimum,moved_over_minimum,above_traffic_ratio" >"$csv"
traffic_rows=()

failed=0
for p in $programs; do
  mkdir -p "$(dirname "$work/$p.fcode")"  # a program in a subdirectory (reduced/qs.r100000)
  if ! "$optimizer" "$bench_dir/$p.vcode" -o "$work/$p.fcode" 2>"$work/opt.err"; then
    echo "gpu_latency.sh: fcode-opt failed on $p: $(head -1 "$work/opt.err")" >&2
    failed=1
  fi
  for form in VCODE FCODE; do
    if [[ $form = VCODE ]]; then file="$bench_dir/$p.vcode"; else file="$work/$p.fcode"; fi
    [[ -f "$file" ]] || continue
    if ! "$vinterp" "${vargs[@]}" "$file" >/dev/null 2>"$work/profile.err"; then
      echo "gpu_latency.sh: vinterp failed on $p ($form): $(grep -v '^ ' "$work/profile.err" | tail -1)" >&2
      failed=1
      continue
    fi
    if ! row=$(parse <"$work/profile.err"); then
      echo "gpu_latency.sh: no profile table for $p ($form)" >&2
      failed=1
      continue
    fi
    read -r ifs syncs launches dev host copies srcs moved minimum over <<<"$row"
    est=$((launches * 3 + syncs * 10))
    est_copies=$((est + copies * 2))
    traffic=$(awk -v a="$moved" -v b="$minimum" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$p" "$form" \
      "$(commas "$ifs")" "$(commas "$syncs")" "$(commas "$launches")" "$(commas "$dev")" \
      "$(commas "$host")" "$(commas "$copies")" "$(commas "$est")" "$(commas "$est_copies")" \
      "${srcs//,/, }" "$(commas "$moved")" "$(commas "$minimum")" "$traffic"
    [[ -n "$csv" ]] && echo "$p,$form,$ifs,$syncs,$launches,$dev,$host,$copies,$est,$est_copies,\"$srcs\",$moved,$minimum,$traffic,\"$over\"" >>"$csv"
    listed=$(awk -v list="$over" 'BEGIN {
      if (list == "-") { print "none"; exit }
      n = split(list, item, ",")
      for (i = 1; i <= n; i++) {
        split(item[i], f, ":")
        printf "%s%s %s (%s%%)", (i > 1 ? ", " : ""), f[1], f[2], f[3]
      }
    }')
    traffic_rows+=("| $p | $form | $(commas "$moved") | $(commas "$minimum") | $traffic | $listed |")
  done
done
echo
echo "# device traffic: bytes moved are counted from a formula per kernel (what it reads and writes),"
echo "# not measured; the minimum reads each operand element once and writes each result element once"
echo
printf '| program | form | device bytes moved | bytes minimum | moved/min | above %sx the minimum (opcode moved/min (share of the bytes moved)) |\n' "$traffic_ratio"
printf '|---|---|---:|---:|---:|---|\n'
for row in "${traffic_rows[@]}"; do echo "$row"; done
exit $failed
