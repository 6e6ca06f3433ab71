#!/bin/bash
# run-rounds.sh LIMIT_S: on a GPU machine, in a folder made by prepare.sh: r1 = every scenario of suite/ in file
# order with --csv (request marks), then r2 = the same in reverse order without, while fewer than LIMIT_S seconds
# have passed; each round packed into $OUT/rN.tar.gz after each scenario, the run log in $OUT/log.txt.
set -u
H=$(cd "$(dirname "$0")" && pwd); O=$OUT; lim=${1:-270}
export LD_LIBRARY_PATH=$H/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} NVEMU_POLICY_DIR=$H/policies NVEMU_LOG_LEVEL=info
{ date -u; nvidia-smi --query-gpu=name,uuid,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,power.limit --format=csv; cat /sys/module/nvidia/version; } > $O/env.txt 2>&1
one() { # ROUND NAME ARGS...
  local r=$1 n=$2; shift 2; local t0=$SECONDS
  mkdir -p /tmp/gd/$r
  timeout 60 $H/nvemu scenario run $H/suite/$n.yaml --hw --no-color "$@" --out /tmp/gd/$r/$n > /tmp/gd/$r/$n.txt 2>&1
  local rc=$?
  [ ! -f /tmp/gd/$r/$n/trace.csv ] || gzip -f /tmp/gd/$r/$n/trace.csv
  echo "$r $n rc=$rc $((SECONDS - t0)) s $(date -u +%T)" | tee -a $O/log.txt
  tar czf $O/$r.tar.gz -C /tmp/gd $r
}
for f in $(ls $H/suite/*.yaml); do one r1 $(basename $f .yaml) --csv; done
for f in $(ls $H/suite/*.yaml | sort -r); do
  [ $SECONDS -lt $lim ] || break
  one r2 $(basename $f .yaml)
done
echo "end $SECONDS s" >> $O/log.txt
