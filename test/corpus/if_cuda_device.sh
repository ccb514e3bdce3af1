#!/bin/sh
# Runs a command only where vinterp's "cuda" backend finds a usable GPU; elsewhere exits 77, which
# CTest reports as skipped. Usage: if_cuda_device.sh VINTERP PROBE.vcode COMMAND [ARG]...
vinterp=$1
probe=$2
shift 2
if "$vinterp" --backend cuda "$probe" 2>&1 >/dev/null | grep -q "no CUDA device"; then
  echo "no CUDA device here: skipped"
  exit 77
fi
exec "$@"
