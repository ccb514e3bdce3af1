#!/bin/sh
# Optimizes every program of the given directories with fcode-opt --emit-cuda and compiles each
# generated .cu that defines a kernel with nvcc (compile only: no GPU needed), two at a time.
# Exit 77 (skipped) when none of the directories exists.
#   emit_cuda_compile.sh FCODE_OPT NVCC WORKDIR DIR...
set -eu
optimizer=$1 nvcc=$2 work=$3
shift 3
mkdir -p "$work"
found=0 programs=0
for dir in "$@"; do
  [ -d "$dir" ] || { echo "not found (skipped): $dir"; continue; }
  found=1
  prefix=$(basename "$dir")
  for vcode in "$dir"/*.vcode; do
    name=$prefix.$(basename "$vcode" .vcode)
    "$optimizer" "$vcode" -o "$work/$name.fcode" --emit-cuda "$work/$name.cu"
    programs=$((programs + 1))
  done
done
[ "$found" = 1 ] || exit 77
# Only sources with a kernel: a program without superoperators emits just the prelude.
grep -l "__global__" "$work"/*.cu > "$work/with_kernels.txt" || true
kernels=$(cat "$work"/*.cu | grep -c "__global__" || true)
xargs -P 2 -I{} "$nvcc" -c --fmad=false -arch=sm_90 {} -o {}.o < "$work/with_kernels.txt"
echo "$programs programs; $(wc -l < "$work/with_kernels.txt") with superoperators, $kernels kernels: the generated CUDA compiles"
