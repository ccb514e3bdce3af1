#!/usr/bin/env bash
# Every NESL example compiled to VCODE (`nesl --vcode`) must print the same final stack on every
# way of running it: our vinterp at one thread (the reference), at all threads, with -O, on the
# emulated GPU with and without -O (where this build has it), and on the classic interpreter
# (where ../shared has it); and where a hand-written NAME.vcode has its NAME.expected, the compiled
# VCODE prints that too. `nesl NAME.nesl` itself is checked against NAME.out by nesl_example_NAME.
# usage: examples_on_backends.sh NESL VINTERP EXAMPLES_DIR SCRATCH_DIR [CLASSIC_VINTERP]
set -uo pipefail
nesl=$1 vinterp=$2 examples=$3 scratch=$4 classic=${5:-}
mkdir -p "$scratch"
runs=("--threads 1" "" "-O")
if "$vinterp" --version | grep -q cuda-emulated; then
  runs+=("--backend cuda-emulated" "--backend cuda-emulated -O")
else
  echo "skipped: this vinterp has no cuda-emulated backend"
fi
if [ -n "$classic" ] && [ -x "$classic" ]; then
  have_classic=1
else
  have_classic=0
  echo "skipped: no classic interpreter ('$classic')"
fi
failures=0 programs=0
for program in "$examples"/*.nesl; do
  name=$(basename "$program" .nesl)
  vcode=$scratch/$name.vcode
  if ! (cd "$examples" && "$nesl" --vcode "$name.nesl" -o "$vcode"); then
    echo "FAILED: nesl --vcode $name.nesl"; failures=$((failures + 1)); continue
  fi
  programs=$((programs + 1))
  # Programs run in the scratch folder, so that nothing they might write lands in the sources.
  reference=$(cd "$scratch" && "$vinterp" ${runs[0]} "$vcode" 2>&1)
  # An example with hand-written VCODE beside it: the compiler's VCODE prints its NAME.expected.
  if [ -f "$examples/$name.expected" ] && [ "$reference" != "$(cat "$examples/$name.expected")" ]; then
    echo "FAILED: $name: the compiled VCODE differs from $name.expected (< compiled):"
    diff <(echo "$reference") "$examples/$name.expected" | head -20
    failures=$((failures + 1))
  fi
  for run in "${runs[@]:1}"; do
    found=$(cd "$scratch" && "$vinterp" $run "$vcode" 2>&1)
    if [ "$found" != "$reference" ]; then
      echo "FAILED: $name: vinterp $run differs from vinterp ${runs[0]} (< $run):"
      diff <(echo "$found") <(echo "$reference") | head -20
      failures=$((failures + 1))
    fi
  done
  if [ $have_classic = 1 ]; then
    # -m: the classic's vector memory in 8-byte words (160 MB), more than any example needs.
    found=$(cd "$scratch" && "$classic" -m 20000000 "$vcode" 2>&1)
    if [ "$found" != "$reference" ]; then
      echo "FAILED: $name: the classic interpreter differs from vinterp ${runs[0]} (< classic):"
      diff <(echo "$found") <(echo "$reference") | head -20
      failures=$((failures + 1))
    fi
  fi
done
if [ $programs = 0 ]; then echo "FAILED: no example was compiled in $examples"; exit 1; fi
[ $failures = 0 ] || exit 1
echo "$programs examples print the same on ${#runs[@]} vinterp runs$([ $have_classic = 1 ] && echo ' and the classic')"
