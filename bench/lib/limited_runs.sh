# Shared by the benchmark scripts that run NESL programs under a memory cap and a timeout
# (cost_model/run.sh, streaming/run.sh). Source it after setting:
#   bench_dir   the folder of the programs (NAME.nesl)
#   max_memory  the vector memory limit (bytes, or with K, M, G, T)
#   timeout_s   seconds a run may take
#   work_dir_prefix  the name of the scratch folder made in TMPDIR
# It sets memory_kib and work_dir (removed on exit) and defines the functions below.

# The address-space cap is the vector memory's plus room for the interpreter itself, so that a
# blow-up fails at once instead of swapping.
memory_kib=$(awk -v s="$max_memory" 'BEGIN {
  unit = substr(s, length(s)); n = s + 0
  f = unit == "K" ? 1 : unit == "M" ? 1024 : unit == "G" ? 1048576 : unit == "T" ? 1073741824 : 1 / 1024
  printf "%d", n * f + 1048576 }')

work_dir=$(mktemp -d "${TMPDIR:-/tmp}/$work_dir_prefix.XXXXXX")
trap 'rm -rf "$work_dir"' EXIT

# header_field PROGRAM NAME: the value of the `NAME:` line in the program's header comment.
header_field() {
  sed -n "s/^[ %]*$2:[[:space:]]*//p" "$bench_dir/$1.nesl" | sed 's/[[:space:]]*%[[:space:]]*$//' | head -1
}

# run_limited OUT ERR COMMAND...: runs the command under the memory cap and the timeout.
run_limited() {
  local out=$1 err=$2
  shift 2
  (ulimit -v "$memory_kib"; exec timeout "$timeout_s" "$@") > "$out" 2> "$err"
}

# error_line FILE RC: the line that says why a run failed.
error_line() {
  local line
  if [ "$2" -eq 124 ]; then echo "timed out after ${timeout_s} s"; return; fi
  line=$(grep -m1 -E 'vinterp:|ERROR|error|Error|terminate|Killed|bad_alloc' "$1")
  [ -n "$line" ] || line=$(grep -v '^Command ' "$1" | grep -v '^[[:space:]]*$' | tail -1)
  [ -n "$line" ] || line="exit status $2"
  echo "${line//$work_dir\//}" | tr ',' ';'
}

# profile_totals FILE: the elements and work totals of a `vinterp --profile` report (its table's
# total row: opcode count time time% ns/op elements work, then the memory columns).
profile_totals() {
  awk '/^opcode/ { table = 1; next } table && $1 == "total" { print $6, $7; exit }' "$1"
}
