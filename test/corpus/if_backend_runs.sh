#!/bin/sh
# Runs a command only where vinterp's backend BACKEND finds its device; where it reports a device
# failure on a small probe program (no GPU, say), exits 77, which CTest reports as skipped.
# Usage: if_backend_runs.sh VINTERP BACKEND PROBE.vcode COMMAND [ARG]...
vinterp=$1
backend=$2
probe=$3
shift 3
if "$vinterp" --backend "$backend" "$probe" 2>&1 >/dev/null | grep -q "device failure"; then
  echo "--backend $backend finds no device here: skipped"
  exit 77
fi
exec "$@"
