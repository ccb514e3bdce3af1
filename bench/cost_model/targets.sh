#!/usr/bin/env bash
# The large cases of the cost-model benchmarks: smvm with 1,000,000 rows x 16 nonzeros, and
# treelookup with a 1,000,000 table and 65,536 lookups, then with the table doubled, also with a
# table that is one primitive (README.md).
usage() {
  cat << 'EOF'
usage: bench/cost_model/targets.sh BUILD_DIR [--runs N]
  BUILD_DIR   the CMake build directory: nesl/nesl and vinterp/vinterp
  --runs N    timed runs per case; the median is printed (default 3)
Each case is smvm.nesl or treelookup.nesl with a driver of its own, compiled by nesl --vcode and
run by vinterp --threads 1: once with --profile for the work column's total, then N times for
the wall time and the peak resident memory (GNU time's %M). Columns: case, median wall seconds,
largest peak MiB, the VM's work.
EOF
}
set -euo pipefail
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in -h | --help) usage; exit 0 ;; esac
build_dir=$1
shift
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    *) echo "targets.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
nesl="$build_dir/nesl/nesl"
vinterp="$build_dir/vinterp/vinterp"
work=$(mktemp -d "${TMPDIR:-/tmp}/cost_targets.XXXXXX")
trap 'rm -rf "$work"' EXIT

# case NAME PROGRAM DRIVER: the program's definitions, the driver's definition and its call.
run_case() {
  local name=$1 program=$2 driver=$3 call=$4
  { cat "$bench_dir/$program.nesl"; printf '\n%s\n%s;\n' "$driver" "$call"; } > "$work/$name.nesl"
  "$nesl" --vcode "$work/$name.nesl" -o "$work/$name.vcode"
  local vm_work times=() peak=0
  # A row is opcode count time time% ns/op elements work, then the memory columns.
  vm_work=$("$vinterp" --threads 1 --profile "$work/$name.vcode" 2>&1 > /dev/null | awk '$1 == "total" { print $7; exit }')
  for ((run = 0; run < runs; run++)); do
    local start end rss
    start=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$work/rss" "$vinterp" --threads 1 "$work/$name.vcode" > "$work/$name.out"
    end=$(date +%s.%N)
    times+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')")
    rss=$(tail -1 "$work/rss")
    [ "$rss" -gt "$peak" ] && peak=$rss
  done
  local wall
  wall=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
  printf '%-36s %8s %9s %14s\n' "$name" "$wall" "$((peak / 1024))" "$vm_work"
}

printf '%-36s %8s %9s %14s\n' case wall_s peak_MiB vm_work
smvm_driver='function sbench(n, k) = let w = smvm(make_matrix(n, k), make_vector(n)) in (sum(w), w[0], w[n - 1]);'
run_case "smvm 1000000 rows x 16" smvm "$smvm_driver" "sbench(1000000, 16)"
tree_driver='function tbench(t, l) =
  let table = {rem(i * 13, 1009) : i in [0:t]};
      keys = {rem(i * 7919 + 11, t) : i in [0:l]};
      r = treelookup(table, keys)
  in (sum(r), r[0], r[l - 1]);'
run_case "treelookup table 1000000, 65536" treelookup "$tree_driver" "tbench(1000000, 65536)"
run_case "treelookup table 2000000, 65536" treelookup "$tree_driver" "tbench(2000000, 65536)"
# The table as one primitive ([0:t], t elements of work): doubling it adds exactly its own size
# when the lookups' work does not depend on it.
range_driver='function rbench(t, l) =
  let keys = {rem(i * 7919 + 11, t) : i in [0:l]};
      r = treelookup([0:t], keys)
  in (sum(r), r[0], r[l - 1]);'
run_case "treelookup table [0:1000000], 65536" treelookup "$range_driver" "rbench(1000000, 65536)"
run_case "treelookup table [0:2000000], 65536" treelookup "$range_driver" "rbench(2000000, 65536)"
