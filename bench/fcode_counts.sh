#!/usr/bin/env bash
# Executed instructions and vector operations of the neslgpu benchmarks: the compiler's VCODE,
# the 2012 optimizer's .ucode, and our FCODE (fcode-opt), all run by vinterp --threads 1 --profile.
# A vector operation is any executed instruction that is not a stack move, control, CONST, timer
# or I/O instruction (FUSED counts one).
#
#   bench/fcode_counts.sh [BUILD_DIR] [SHARED_DIR]     (defaults: build, ../shared)
#   PROGRAMS="qs.1000000 ..." picks the programs; WALL=1 adds wall seconds (median of 3 runs,
#   --threads 1 and all threads) of the .ucode and the FCODE.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shared=${2:-$root/../shared}
vinterp=$build/vinterp/vinterp
optimizer=$build/fcode-opt/fcode-opt
bench=$shared/neslgpu-bench
programs=${PROGRAMS:-"dotp.100000 qs.100000 black-scholes.100000 quickhull.100000 bh.1000"}
[ -d "$bench" ] || { echo "no $bench"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints "instructions vector_ops" for one run's --profile table.
counts() {
  "$vinterp" --threads 1 --profile "$1" 2>&1 >/dev/null | awk '
    /^opcode/ { table = 1; next }
    table && $1 == "total" { exit }
    table && NF >= 2 && $2 ~ /^[0-9]+$/ {
      total += $2
      if ($1 !~ /^(COPY|POP|CPOP|PAIR|UNPAIR|CALL|RET|IF|ELSE|ENDIF|CONST|EXIT|START_TIMER|STOP_TIMER|READ|WRITE|FOPEN|FCLOSE|FREAD|FREAD_CHAR|FWRITE|SPAWN|SRAND)$/)
        vector += $2
    }
    END { print total + 0, vector + 0 }'
}

# Median wall seconds of three runs of `vinterp ARGS... FILE`.
wall() {
  local times=()
  for _ in 1 2 3; do
    local start end
    start=$(date +%s.%N)
    "$vinterp" "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}

if [ "${WALL:-0}" = 1 ]; then
  printf '| program | .ucode s (1 thread) | FCODE s (1 thread) | .ucode s (all threads) | FCODE s (all threads) |\n'
  printf '|---|---:|---:|---:|---:|\n'
  for p in $programs; do
    "$optimizer" "$bench/$p.vcode" -o "$work/$p.fcode"
    printf '| %s | %.3f | %.3f | %.3f | %.3f |\n' "$p" "$(wall --threads 1 "$bench/$p.ucode")" \
      "$(wall --threads 1 "$work/$p.fcode")" "$(wall "$bench/$p.ucode")" "$(wall "$work/$p.fcode")"
  done
  exit 0
fi

printf '| program | VCODE instr | VCODE vector ops | .ucode instr | .ucode vector ops | FCODE instr | FCODE vector ops | vector ops vs .ucode | vs VCODE |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for p in $programs; do
  "$optimizer" "$bench/$p.vcode" -o "$work/$p.fcode"
  read -r vi vv < <(counts "$bench/$p.vcode")
  read -r ui uv < <(counts "$bench/$p.ucode")
  read -r fi fv < <(counts "$work/$p.fcode")
  awk -v p="$p" -v vi="$vi" -v vv="$vv" -v ui="$ui" -v uv="$uv" -v fi="$fi" -v fv="$fv" 'BEGIN {
    printf "| %s | %d | %d | %d | %d | %d | %d | %.2fx fewer | %.2fx fewer |\n", p, vi, vv, ui, uv, fi, fv, uv / fv, vv / fv }'
done
