#!/bin/sh
# usage: missing_wait_caught.sh CORPUS_RUNNER VINTERP DIR...
# Shows that `--emulate-async` catches a missing wait: with NESL_EMULATE_ASYNC_DROP_WAIT=riders,
# cuda-emulated reads the small vectors that ride back at a synchronization before their copy is
# waited for. Run as each operation is queued, the DIRs' programs must still all pass (the mistake
# cannot show there); run late on the device's own thread (two seeds), some program must print a
# wrong answer. Exits 77 (skipped) when a DIR is missing.
runner=$1
vinterp=$2
shift 2
for dir in "$@"; do
  [ -d "$dir" ] || { echo "skipped: $dir is missing"; exit 77; }
done
export NESL_EMULATE_ASYNC_DROP_WAIT=riders
run() {  # run DIR [vinterp args...]: the runner's summary; its status in $status
  dir=$1
  shift
  extra=""
  for word in --backend cuda-emulated "$@"; do extra="$extra --extra-arg $word"; done
  # A program that reads stale data may loop: each of these small programs runs in well under a
  # second, so a short timeout bounds what such a loop costs.
  # shellcheck disable=SC2086
  output=$("$runner" --vinterp "$vinterp" --dir "$dir" --timeout 20 $extra 2>&1)
  status=$?
}

for dir in "$@"; do
  run "$dir"
  if [ "$status" -ne 0 ]; then
    echo "FAIL: $dir fails with the hook at once, where the missing wait cannot show:"
    echo "$output"
    exit 1
  fi
done
echo "at once: every program passes with the missing wait"

wrong=0
for seed in 1 2; do
  for dir in "$@"; do
    run "$dir" --emulate-async "$seed"
    case $status in
      0) ;;
      1) echo "--emulate-async $seed, $dir:"
         echo "$output" | grep '^FAIL'
         # A wrong answer, not a crash of vinterp or of the runner.
         if echo "$output" | grep -q '^FAIL .*\(stdout line\|exit status 1, expected 0\)'; then
           wrong=1
         fi ;;
      *) echo "FAIL: the runner stopped with status $status on $dir:"
         echo "$output"
         exit 1 ;;
    esac
  done
done
if [ "$wrong" -eq 0 ]; then
  echo "FAIL: --emulate-async did not catch the missing wait"
  exit 1
fi
echo "--emulate-async caught the missing wait"
