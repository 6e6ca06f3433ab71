#!/bin/sh
# torch_lcbe.sh OUTDIR LIBTIMESLICE [RATE] [SECONDS]: the PyTorch LC/BE experiment on a real GPU.
#   1. each program alone under the profiler (torch_profile.py infer|train: infer.json.gz, train.json.gz);
#   2. torch_lcbe.py's LC inference loop (RATE requests/s, periodic, default 50) alone, a BE training loop
#      alone, then the LC next to one and to two BE training loops, as separate processes, under
#      native scheduling (libcuda's timeslice), gpu_ext's LC 1 s / BE 200 us and GPreempt's LC 1 s / BE 1 us.
#      The timeslices are set on each process's compute channel group by LIBTIMESLICE
#      (libnvemu-timeslice.so, LD_PRELOAD; its decisions and the driver's statuses in CONFIG.tsg.log).
# Each configuration measures SECONDS (default 8) once every process has warmed up. OUTDIR receives
# CONFIG.lc.json, CONFIG.be*.json and the logs; $NVEMU_PACK (default OUTDIR.tar.gz) a tarball of all of it,
# refreshed after every configuration, so a run cut short still brings back what it measured. PYTHON
# overrides python3.
# Repeats: NVEMU_LCBE_CONFIGS="lc-alone gpreempt-1be ..." runs those configurations in that order (names
# from the list below; a name may come more than once) instead of all eight once, and NVEMU_LCBE_PROFILE=0
# skips step 1. A configuration's files are then named CONFIG.rK.* (K: its K-th run in this call), and each
# run also writes CONFIG.rK.clocks.csv (nvidia-smi's SM/memory clocks, power, temperature and utilization
# every 100 ms while its processes live), CONFIG.rK.cpu (/proc/stat's cpu line at its start and after its
# window) and CONFIG.rK.window (the measured window's start, time.time()).
# NVEMU_LCBE_BUDGET_S: start no configuration that would end past this many seconds after the script's
# start (a configuration is assumed to take as long as the longest one so far;
# NVEMU_LCBE_FIRST_S, default 60, before the first).
# Every process must have warmed up (written SYNC/ready.PID) within 120 s or the window starts without it: under
# GPreempt's 1 us with two BE groups (gpreempt-2be) a BE can livelock in its warm-up and never get there.
# A BE process that has not returned 10 s after the window's end is killed (CONFIG.killed says so); every
# BE writes CONFIG.beN.json.steps (each step's end, time.time(), and its time in us) as it goes.
# NVEMU_LCBE_DRY=1 prints what would run and runs nothing (no GPU, no Python).
set -u
out=$1 lib=$2 rate=${3:-50} secs=${4:-8}
here=$(dirname "$(readlink -f "$0")")
py=${PYTHON:-python3}
dry=${NVEMU_LCBE_DRY:-0}
configs=${NVEMU_LCBE_CONFIGS:-}
budget=${NVEMU_LCBE_BUDGET_S:-0}
mkdir -p "$out"
[ -f "$lib" ] || [ "$dry" = 1 ] || { echo "no $lib"; exit 2; }
t0=$(date +%s)

tarball=${NVEMU_PACK:-${out%/}.tar.gz}
pack() { tar -C "$out" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"; }

smi_state() {
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,clocks.max.sm,clocks.applications.graphics,power.draw,temperature.gpu,pstate,clocks_throttle_reasons.active --format=csv 2>&1
}

if [ "$dry" != 1 ]; then
  {
    nvidia-smi --query-gpu=name,uuid,driver_version --format=csv 2>&1
    $py -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))' 2>&1
    date -u
    nproc
    smi_state
    nvidia-smi -q -d CLOCK,PERFORMANCE 2>&1
  } >"$out/env.txt"
fi

if [ "${NVEMU_LCBE_PROFILE:-1}" != 0 ] && [ "$dry" != 1 ]; then
  for mode in infer train; do
    $py "$here/torch_profile.py" $mode "$out/$mode.json" >"$out/profile-$mode.log" 2>&1 &&
      gzip -f "$out/$mode.json"
  done
  pack
fi

longest=${NVEMU_LCBE_FIRST_S:-60}
# run NAME LC_US BE_US NLC NBE: LC_US/BE_US empty = libcuda's own timeslice
run() {
  name=$1 lc_us=$2 be_us=$3 nlc=$4 nbe=$5
  now=$(date +%s)
  if [ "$budget" -gt 0 ] && [ $((now - t0 + longest)) -gt "$budget" ]; then
    echo "$name: skipped (at $((now - t0)) s, longest configuration $longest s, budget $budget s)"
    return
  fi
  if [ "$dry" = 1 ]; then
    echo "$name: would run lc_us=${lc_us:-native} be_us=${be_us:-native} lc=$nlc be=$nbe ${secs}s at ${rate}/s"
    return
  fi
  started=$now
  head -1 /proc/stat >"$out/$name.cpu"
  sync=$(mktemp -d)
  pids= lcpid= smipid=
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
    --format=csv,noheader -lms 100 >"$out/$name.clocks.csv" 2>&1 &
  smipid=$!
  i=0
  while [ $i -lt "$nbe" ]; do
    i=$((i + 1))
    if [ -n "$be_us" ]; then
      LD_PRELOAD=$lib NVEMU_TSG_TIMESLICE_US=$be_us NVEMU_TSG_LOG="$out/$name.tsg.log" \
        $py "$here/torch_lcbe.py" be "$secs" "$sync" "$out/$name.be$i.json" >"$out/$name.be$i.log" 2>&1 &
    else
      $py "$here/torch_lcbe.py" be "$secs" "$sync" "$out/$name.be$i.json" >"$out/$name.be$i.log" 2>&1 &
    fi
    pids="$pids $!"
  done
  if [ "$nlc" = 1 ]; then
    if [ -n "$lc_us" ]; then
      LD_PRELOAD=$lib NVEMU_TSG_TIMESLICE_US=$lc_us NVEMU_TSG_LOG="$out/$name.tsg.log" \
        $py "$here/torch_lcbe.py" lc "$rate" "$secs" "$sync" "$out/$name.lc.json" >"$out/$name.lc.log" 2>&1 &
    else
      $py "$here/torch_lcbe.py" lc "$rate" "$secs" "$sync" "$out/$name.lc.json" >"$out/$name.lc.log" 2>&1 &
    fi
    lcpid=$!
  fi
  want=$((nlc + nbe)) waited=0
  while [ "$(ls "$sync" | grep -c '^ready\.')" -lt $want ] && [ $waited -lt 1200 ]; do
    for p in $pids $lcpid; do kill -0 "$p" 2>/dev/null || waited=1200; done  # one died: go on, don't wait
    sleep 0.1
    waited=$((waited + 1))
  done
  $py -c 'import time; print(time.time() + 0.3)' >"$sync/go.tmp"
  cp "$sync/go.tmp" "$out/$name.window"
  mv "$sync/go.tmp" "$sync/go"
  if [ -n "$lcpid" ]; then wait "$lcpid"; else sleep "$secs"; sleep 0.5; fi
  touch "$sync/stop"
  # a BE that does not return within 10 s of the stop (GPreempt's 1 us with two BE groups livelocks) is
  # killed; its CONFIG.beN.json.steps still lists the steps it completed
  n=0
  while [ $n -lt 100 ]; do
    alive=0
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
    n=$((n + 1))
  done
  for p in $pids; do
    kill -0 "$p" 2>/dev/null && { kill -9 "$p"; echo "killed: no return 10 s after the stop" >>"$out/$name.killed"; }
    wait "$p"
  done
  head -1 /proc/stat >>"$out/$name.cpu"
  kill "$smipid" 2>/dev/null
  wait "$smipid" 2>/dev/null
  rm -rf "$sync"
  took=$(($(date +%s) - started))
  [ "$took" -gt "$longest" ] && longest=$took
  echo "$name: $(cat "$out/$name".*.log 2>/dev/null | grep -E '^(LC|BE) ' | tr '\n' ' ')(${took} s, ready after $((waited / 10)) s)"
  pack
}

# config NAME [TAG]: one of the eight configurations, its files named NAME or NAME.TAG
config() {
  stem=$1${2:+.$2}
  case $1 in
  lc-alone) run "$stem" "" "" 1 0 ;;
  be-alone) run "$stem" "" "" 0 1 ;;
  native-1be) run "$stem" "" "" 1 1 ;;
  lcbe200-1be) run "$stem" 1000000 200 1 1 ;;
  native-2be) run "$stem" "" "" 1 2 ;;
  lcbe200-2be) run "$stem" 1000000 200 1 2 ;;
  gpreempt-1be) run "$stem" 1000000 1 1 1 ;;
  gpreempt-2be) run "$stem" 1000000 1 1 2 ;;
  *) echo "unknown configuration $1"; exit 2 ;;
  esac
}

if [ -z "$configs" ]; then
  for c in lc-alone be-alone native-1be lcbe200-1be native-2be lcbe200-2be gpreempt-1be gpreempt-2be; do
    config $c
  done
else
  seen=" "
  for c in $configs; do
    k=$(( $(printf '%s' "$seen" | tr ' ' '\n' | grep -cx "$c") + 1 ))
    seen="$seen$c "
    config "$c" "r$k"
  done
fi
[ "$dry" = 1 ] || smi_state >>"$out/env.txt"
[ "$dry" = 1 ] || pack
echo "done after $(($(date +%s) - t0)) s"
