#!/bin/bash
# run.sh [PATTERN...]: every scenario of suite/ (or those matching a PATTERN, in the patterns' order) with `nvemu scenario run --hw` on GPU 0;
# results and console output under $OUT/res, packed into $OUT/hw-results.tar.gz after each scenario.
# ARGS: more options for every run (e.g. ARGS=--csv for the raw trace, kept gzipped).
set -u
H=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$H/lib NVEMU_POLICY_DIR=$H/policies NVEMU_LOG_LEVEL=info
R=$OUT/res; mkdir -p $R
{ date -u; id; nvidia-smi --query-gpu=name,uuid,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,power.limit --format=csv; cat /sys/module/nvidia/version; } > $R/env.txt 2>&1
[ $# -gt 0 ] || set -- '*'
for pat in "$@"; do
for f in $H/suite/$pat.yaml; do
  [ -f "$f" ] || continue
  n=$(basename $f .yaml)
  t0=$SECONDS
  timeout 90 $H/nvemu scenario run $f --hw --no-color ${ARGS:-} --out $R/$n > $R/$n.txt 2>&1
  rc=$?
  [ ! -f $R/$n/trace.csv ] || gzip -f $R/$n/trace.csv
  echo "$n rc=$rc $((SECONDS - t0)) s"
  grep -E "^(lc|be)|run failed" $R/$n.txt | head -4
  tar czf $OUT/hw-results.tar.gz -C $OUT res
done
done
