#!/usr/bin/env bash
# Wall time and peak resident memory of vinterp beside N busy processes, against --threads 1 and
# the classic interpreter in the same run, alternating. See bench/README.md.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: bench/under_load.sh [BUILD_DIR] [options]

Runs each neslgpu-bench program (as VCODE and as fcode-opt's FCODE) with every configuration in
turn, round after round (alternating), while N busy processes hold cores, and prints per program,
form and configuration the median wall time and median peak RSS (/usr/bin/time -v), plus the
ratios default/threads-1 and peak/classic.

  BUILD_DIR          the CMake build directory (default: build); needs vinterp and fcode-opt
  --busy N           busy processes beside each run (default 2; 0: a quiet machine)
  --runs N           rounds (default 3); medians are reported
  --programs "LIST"  from qs black-scholes quickhull bh dotp (default: all five)
  --forms "LIST"     vcode and/or fcode (default "vcode fcode")
  --configs "LIST"   from classic, t1 (--threads 1), default (all cores), each may be
                     followed by more vinterp options after a colon, e.g. "t1 default:--threads 2"
                     (default "classic t1 default")
  --base DIR         another build to compare with (e.g. one from before a change): adds the
                     configurations base-t1 and base-default (its vinterp; every FCODE is made
                     by BUILD_DIR's fcode-opt); base-passive (its vinterp with
                     OMP_WAIT_POLICY=passive, for an OpenMP build) may be named in --configs
  --csv FILE         also write one CSV line per program, form and configuration
  --shared DIR       the shared corpus (default: ../shared next to the repository)
  -h, --help         this text
EOF
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=build
busy=2
runs=3
programs="qs black-scholes quickhull bh dotp"
forms="vcode fcode"
configs="classic t1 default"
base_dir=""
csv=""
shared_dir="$repo_root/../shared"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --busy) busy=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --programs) programs=$2; shift 2 ;;
    --forms) forms=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --base) base_dir=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --shared) shared_dir=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --*) echo "under_load.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) build_dir=$1; shift ;;
  esac
done

die() { echo "under_load.sh: $*" >&2; exit 1; }
[[ "$build_dir" = /* ]] || build_dir="$PWD/$build_dir"
vinterp="$build_dir/vinterp/vinterp"
fcode_opt="$build_dir/fcode-opt/fcode-opt"
classic="$shared_dir/classic/vinterp"
bench_dir="$shared_dir/neslgpu-bench"
[[ -x "$vinterp" ]] || die "$vinterp not found; build it first"
[[ -d "$bench_dir" ]] || die "$bench_dir not found (use --shared DIR)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian package 'time')"
[[ "$busy" =~ ^[0-9]+$ ]] || die "--busy needs a count"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs needs a positive count"
if [[ -n "$base_dir" ]]; then
  [[ "$base_dir" = /* ]] || base_dir="$PWD/$base_dir"
  [[ -x "$base_dir/vinterp/vinterp" ]] || die "$base_dir/vinterp/vinterp not found"
  [[ "$configs" == *base-* ]] || configs="$configs base-t1 base-default"
fi
for form in $forms; do
  [[ "$form" == vcode || "$form" == fcode ]] || die "unknown form $form"
  [[ "$form" == vcode || -x "$fcode_opt" ]] || die "$fcode_opt not found (needed for fcode)"
done

# name, source file in neslgpu-bench/, size: the issue's benchmark sizes.
source_of() {
  case "$1" in
    qs) echo "qs.1000000.vcode 10000000" ;;
    black-scholes) echo "black-scholes.10000000.vcode 10000000" ;;
    quickhull) echo "quickhull.5000000.vcode 5000000" ;;
    bh) echo "bh.20000.vcode 20000" ;;
    dotp) echo "dotp.10000000.vcode 50000000" ;;
    *) die "unknown program $1" ;;
  esac
}

work=$(mktemp -d /tmp/under_load.XXXXXX)
busy_pids=()
cleanup() {
  for pid in "${busy_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The command of configuration $1 on file $2 (a name relative to the work directory, the same
# for every configuration: with the C library's allocator, peak RSS depends on the length of the
# command line, so every configuration gets the same file argument).
command_of() {
  local config=${1%%:*} extra="" file=$2
  [[ "$1" == *:* ]] && extra=${1#*:}
  case "$config" in
    classic) echo "$classic -m 1000000000 $file" ;;
    t1) echo "$vinterp --threads 1 $extra $file" ;;
    default) echo "$vinterp $extra $file" ;;
    base-t1) echo "$base_dir/vinterp/vinterp --threads 1 $extra $file" ;;
    base-default) echo "$base_dir/vinterp/vinterp $extra $file" ;;
    base-passive) echo "env OMP_WAIT_POLICY=passive $base_dir/vinterp/vinterp $extra $file" ;;
    *) die "unknown configuration $1" ;;
  esac
}

median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) exit; if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

for ((i = 0; i < busy; ++i)); do
  bash -c 'while :; do :; done' &
  busy_pids+=($!)
done

echo "# $(date -u +%FT%TZ) $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), busy processes: $busy, rounds: $runs"
echo "# vinterp: $vinterp${base_dir:+; base: $base_dir/vinterp/vinterp}; classic: $classic"
[[ -n "$csv" ]] && echo "program,size,form,config,busy,runs,wall_median_s,peak_rss_median_kib,output" > "$csv"
printf '%-14s %-6s %-24s %8s %10s %9s %11s  %s\n' program form config "wall s" "peak MiB" "vs t1" "vs classic" output
status=0
for name in $programs; do
  read -r source size <<< "$(source_of "$name")"
  [[ -f "$bench_dir/$source" ]] || die "$bench_dir/$source not found"
  # The first CONST INT of the entry function is the problem size (../shared/README.md).
  awk -v size="$size" '/^FUNC /{f++} f==1 && !done && /^CONST INT -?[0-9]+$/ {print "CONST INT " size; done=1; next} {print}' \
    "$bench_dir/$source" > "$work/p.vcode"
  [[ " $forms " == *" fcode "* ]] && "$fcode_opt" "$work/p.vcode" -o "$work/p.fcode"
  rm -f "$work"/out.*.txt
  classic_peak=""
  for form in $forms; do
    declare -A walls=() peaks=() outputs=()
    for ((r = 0; r < runs; ++r)); do
      for config in $configs; do
        # The classic runs VCODE only (FCODE is ours), once per program.
        file="p.$form"
        if [[ "$config" == classic ]]; then
          [[ -z "$classic_peak" ]] || continue
          file=p.vcode
        fi
        read -ra cmd <<< "$(command_of "$config" "$file")"
        if ! (cd "$work" && /usr/bin/time -f '%e %M' -o time.txt "${cmd[@]}" > "out.$config.txt" 2> err.txt); then
          echo "under_load.sh: $name $form $config failed: $(tail -2 "$work/err.txt")" >&2
          status=1
          continue
        fi
        read -r wall peak < "$work/time.txt"
        walls[$config]+="$wall "
        peaks[$config]+="$peak "
        # Every stdout line but the timer's (the last) against the classic's, at one thread.
        if [[ -f "$work/out.classic.txt" && "$config" == *t1* ]]; then
          if cmp -s <(sed '$d' "$work/out.classic.txt") <(sed '$d' "$work/out.$config.txt"); then
            outputs[$config]=same
          else
            outputs[$config]=DIFFERS; status=1
          fi
        fi
      done
    done
    t1_wall=$(tr ' ' '\n' <<< "${walls[t1]:-}" | grep . | median || true)
    [[ -n "$classic_peak" ]] || classic_peak=$(tr ' ' '\n' <<< "${peaks[classic]:-}" | grep . | median || true)
    for config in $configs; do
      [[ -n "${walls[$config]:-}" ]] || continue
      wall=$(tr ' ' '\n' <<< "${walls[$config]}" | grep . | median)
      peak=$(tr ' ' '\n' <<< "${peaks[$config]}" | grep . | median)
      vs_t1=$([[ -n "$t1_wall" ]] && awk -v a="$wall" -v b="$t1_wall" 'BEGIN {printf "%.2f", a / b}' || echo -)
      vs_classic=$([[ -n "$classic_peak" ]] && awk -v a="$peak" -v b="$classic_peak" 'BEGIN {printf "%.2f", a / b}' || echo -)
      shown_form=$form; [[ "$config" == classic ]] && shown_form=vcode
      printf '%-14s %-6s %-24s %8.2f %10.0f %9s %11s  %s\n' "$name" "$shown_form" "$config" "$wall" \
        "$(awk -v k="$peak" 'BEGIN {print k / 1024}')" "$vs_t1" "$vs_classic" "${outputs[$config]:--}"
      [[ -n "$csv" ]] && echo "$name,$size,$shown_form,$config,$busy,$runs,$wall,$peak,${outputs[$config]:--}" >> "$csv"
    done
    unset walls peaks outputs
  done
done
exit $status
