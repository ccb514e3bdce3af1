#!/bin/sh
# Optimizes every program of DIR with fcode-opt --emit-cuda and compiles each generated .cu with
# nvcc (compile only: no GPU needed). Exit 77 (skipped) when DIR does not exist.
#   emit_cuda_compile.sh FCODE_OPT NVCC DIR WORKDIR
set -eu
optimizer=$1 nvcc=$2 dir=$3 work=$4
[ -d "$dir" ] || { echo "skipped: $dir not found"; exit 77; }
mkdir -p "$work"
count=0
for vcode in "$dir"/*.vcode; do
  name=$(basename "$vcode" .vcode)
  "$optimizer" "$vcode" -o "$work/$name.fcode" --emit-cuda "$work/$name.cu"
  "$nvcc" -c --fmad=false -arch=sm_90 "$work/$name.cu" -o "$work/$name.o"
  count=$((count + 1))
done
echo "$count programs: generated CUDA compiles"
