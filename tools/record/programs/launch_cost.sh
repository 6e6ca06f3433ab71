#!/bin/sh
# launch_cost.sh OUTDIR LAUNCH_COST LIBTIMESLICE [ROUNDS] [SECONDS]: launch_cost's LC (launch_cost.c; 50
# requests/s of 108 launches, four kernel/gap variants) in six configurations, ROUNDS rounds (default 4), each
# round running every configuration once in an order rotated by one per round, so the host's drift over
# minutes falls on every configuration alike. SECONDS (default 4) measured per run after 0.5 s of warm-up.
#   alone         the LC alone, libcuda's own timeslice
#   lc1s          the LC alone, its group's timeslice 1 s (LIBTIMESLICE, LD_PRELOAD)
#   native        next to a GPU-busy process (2 ms kernels, its CPU asleep), both on libcuda's timeslices
#   gpreempt      the same, LC 1 s / busy process 1 us (GPreempt's slices)
#   lcbe200       the same, LC 1 s / busy process 200 us (gpu_ext's)
#   gpreempt-idle LC 1 s next to a 1 us group that exists and never runs
# OUTDIR receives CONFIG.rK.tsv (one line per request), CONFIG.rK.log, tsg.log (every timeslice decision and
# the driver's status) and env.txt. LAUNCH_COST_CONFIGS overrides the list, LAUNCH_COST_N the launches per request.
set -u
out=$1 bin=$2 lib=$3 rounds=${4:-4} secs=${5:-4}
configs=${LAUNCH_COST_CONFIGS:-alone gpreempt native lcbe200 lc1s gpreempt-idle} nlaunch=${LAUNCH_COST_N:-108}
mkdir -p "$out"
{ date -u; uname -a; nvidia-smi 2>&1; nvidia-smi -q -d CLOCK 2>&1 | head -40; lscpu 2>&1 | head -20; } >"$out/env.txt"

# one NAME LC_US BG BG_US: LC_US/BG_US empty = libcuda's own timeslice; BG none, busy or idle
one() {
  name=$1 lc_us=$2 bg=$3 bg_us=$4
  ready=$(mktemp -u) bgpid=
  if [ "$bg" != none ]; then
    if [ "$bg" = busy ]; then set -- be 2000 "$((secs + 30))" "$ready"; else set -- idle "$((secs + 30))" "$ready"; fi
    if [ -n "$bg_us" ]; then
      LD_PRELOAD=$lib NVEMU_TSG_TIMESLICE_US=$bg_us NVEMU_TSG_LOG="$out/tsg.log" "$bin" "$@" >"$out/$name.bg.log" 2>&1 &
    else
      "$bin" "$@" >"$out/$name.bg.log" 2>&1 &
    fi
    bgpid=$!
    n=0
    while [ ! -f "$ready" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
  fi
  set -- lc 50 "$secs" 0.5 "$nlaunch" "$out/$name.tsv"
  if [ -n "$lc_us" ]; then
    LD_PRELOAD=$lib NVEMU_TSG_TIMESLICE_US=$lc_us NVEMU_TSG_LOG="$out/tsg.log" "$bin" "$@" >"$out/$name.log" 2>&1
  else
    "$bin" "$@" >"$out/$name.log" 2>&1
  fi
  echo "$name: rc $? $(date -u +%T)"
  if [ -n "$bgpid" ]; then kill "$bgpid"; wait "$bgpid" 2>/dev/null; fi
  rm -f "$ready"
}

config() {
  case $1 in
  alone) one "$2" "" none "" ;;
  lc1s) one "$2" 1000000 none "" ;;
  native) one "$2" "" busy "" ;;
  gpreempt) one "$2" 1000000 busy 1 ;;
  lcbe200) one "$2" 1000000 busy 200 ;;
  gpreempt-idle) one "$2" 1000000 idle 1 ;;
  *) echo "unknown configuration $1"; exit 2 ;;
  esac
}

k=1
while [ $k -le "$rounds" ]; do
  set -- $configs
  i=1
  while [ $i -lt $k ]; do c=$1; shift; set -- "$@" "$c"; i=$((i + 1)); done  # rotate by k-1
  for c in "$@"; do config "$c" "$c.r$k"; done
  k=$((k + 1))
done
