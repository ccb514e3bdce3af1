#!/bin/sh
# Runs the libFuzzer target for a while from a fresh corpus seeded with VCODE programs.
#   run_libfuzzer.sh FUZZER FUZZGEN SECONDS WORKDIR [SEED_DIR]...
# SEED_DIRs that do not exist are skipped (../shared may be absent). Findings (crashes, leaks,
# timeouts) are written to WORKDIR/artifacts/ and make the exit status 1.
set -eu
fuzzer=$1 fuzzgen=$2 seconds=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"
for dir in "$@"; do
  [ -d "$dir" ] || continue
  for file in "$dir"/*.vcode "$dir"/*.fcode; do
    [ -f "$file" ] && cp "$file" "$work/seeds/$(basename "$dir")_$(basename "$file")"
  done
done
"$fuzzgen" --seed 1 --count 300 --out "$work/seeds"
"$fuzzgen" --dictionary > "$work/vcode.dict"
echo "run_libfuzzer: $(ls "$work/seeds" | wc -l) seed programs, $seconds s"
exec "$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=65536 \
  -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 -dict="$work/vcode.dict" \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$work/seeds"
