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
# Host states: a configuration named NAME@STATES (e.g. lc-alone@DSHDSH) measures one window of SECONDS per
# letter, back to back with the same processes, the host in that letter's state during it: D as it is,
# S the CPUs' idle held shallow (0 written to /dev/cpu_dma_latency and the file held open, which keeps
# every cpuidle governor in its polling state; with no cpuidle driver or no such file, an idle-priority busy
# loop on every CPU instead), H a pure-CPU busy process (no GPU) beside the programs. CONFIG.rK.states lists each
# segment's letter, start and end (time.time()); CONFIG.rK.host holds at every segment boundary
# /proc/interrupts, /proc/stat, every CPU's cpuidle usage/time, the processes' schedstat, context switches
# and each thread's stat (its CPU in field 39), and the CPUs' MHz. host.txt: the host's CPUs, idle driver
# and states, kernel, and the nvidia interrupts' affinity. NVEMU_LCBE_STATES: the letters for a name
# without @ (default: none, one window as before). Every configuration's CONFIG.rK.probe: the host CPU's speed
# just before its processes start and just after they end (probe below).
set -u
out=$1 lib=$2 rate=${3:-50} secs=${4:-8}
here=$(dirname "$(readlink -f "$0")")
py=${PYTHON:-python3}
dry=${NVEMU_LCBE_DRY:-0}
configs=${NVEMU_LCBE_CONFIGS:-}
dstates=${NVEMU_LCBE_STATES:-}
budget=${NVEMU_LCBE_BUDGET_S:-0}
for c in $configs "NVEMU_LCBE_STATES@$dstates"; do  # every list of host states checked before anything runs
  case $c in *@*[!DSH]*) echo "${c%%@*}: host states are letters D, S, H: ${c#*@}"; exit 2 ;; esac
done
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

idle_states() { ls -d /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]* 2>/dev/null; }
# state S by /dev/cpu_dma_latency (cpuidle states to hold shallow and the file to hold them with), else busy loops
shallow_by_latency() { [ -n "$(idle_states)" ] && [ -w /dev/cpu_dma_latency ]; }
if [ "$dry" != 1 ]; then
  {
    uname -a; cat /proc/cmdline; systemd-detect-virt 2>&1; lscpu 2>&1
    echo "cpuidle driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>&1)," \
      "governor: $(cat /sys/devices/system/cpu/cpuidle/current_governor 2>&1)"
    for st in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
      [ -d "$st" ] && echo "$st: $(cat "$st/name") ($(cat "$st/desc")) latency $(cat "$st/latency") us" \
        "residency $(cat "$st/residency") us disable $(cat "$st/disable")"
    done
    grep -H . /sys/devices/system/cpu/cpu0/cpufreq/* 2>&1
    grep -H . /sys/module/haltpoll/parameters/* /sys/module/cpuidle_haltpoll/parameters/* 2>/dev/null
    grep -i -E 'nvidia|CPU' /proc/interrupts
    for irq in $(grep -i nvidia /proc/interrupts | cut -d: -f1); do
      echo "irq $irq: affinity $(cat /proc/irq/$irq/smp_affinity_list) effective" \
        "$(cat /proc/irq/$irq/effective_affinity_list 2>&1)"
    done
    echo "irqbalance: $(pgrep -l irqbalance || echo not running)"
    if shallow_by_latency; then echo "state S: /dev/cpu_dma_latency 0"
    else echo "state S: an idle-priority busy loop on every CPU (no cpuidle states or no /dev/cpu_dma_latency)"; fi
    head -30 /proc/cpuinfo
  } >"$out/host.txt" 2>&1
fi

if [ "${NVEMU_LCBE_PROFILE:-1}" != 0 ] && [ "$dry" != 1 ]; then
  for mode in infer train; do
    $py "$here/torch_profile.py" $mode "$out/$mode.json" >"$out/profile-$mode.log" 2>&1 &&
      gzip -f "$out/$mode.json"
  done
  pack
fi

# host state STATE on/off (see the header); a state's processes: held
held=
host_on() {
  case $1 in
  S)
    if shallow_by_latency; then
      sh -c 'exec 3>/dev/cpu_dma_latency && printf 0 >&3 && exec sleep 3600' &
      held=$!
    else
      c=0
      while [ $c -lt "$(nproc)" ]; do
        chrt -i 0 taskset -c $c sh -c 'while :; do :; done' &
        held="$held $!"
        c=$((c + 1))
      done
    fi ;;
  H) sh -c 'while :; do :; done' & held=$! ;;
  esac
}
host_off() {
  for p in $held; do echo "held $p: cpu $(cut -d' ' -f39 /proc/$p/stat) schedstat $(cat /proc/$p/schedstat)"; done \
    >>"$out/$name.host" 2>&1
  for p in $held; do kill "$p"; wait "$p" 2>/dev/null; done
  held=
}
# snap LABEL: the host's counters now, appended to CONFIG.host
snap() {
  {
    echo "=== $1 $(date +%s.%N) held:$held"
    cat /proc/interrupts
    grep -v '^intr' /proc/stat
    grep -H . $(idle_states | sed 's,$,/usage,') $(idle_states | sed 's,$,/time,') 2>/dev/null
    for p in $lcpid $pids $held; do
      echo "pid $p: $(cat /proc/$p/schedstat 2>&1) $(grep ctxt /proc/$p/status 2>&1 | tr '\n' ' ')"
      grep -H . /proc/$p/task/*/stat /proc/$p/task/*/schedstat 2>/dev/null
    done
    grep MHz /proc/cpuinfo
  } >>"$out/$name.host" 2>&1
}
# probe: the host CPU's speed now, with no GPU process running: three times the ms one Python thread takes to
# add up 2,000,000 integers (CONFIG.probe: a line before the configuration's processes start, one after)
probe() {
  $py -c 'import time
def f():
    t = time.perf_counter()
    s = 0
    for i in range(2000000):
        s += i
    return time.perf_counter() - t
print("%.6f" % time.time(), " ".join("%.1f" % (f() * 1e3) for _ in range(3)))'
}
# sleep_until T: until time.time() is T
sleep_until() {
  sleep "$(awk -v t="$1" -v n="$(date +%s.%N)" 'BEGIN { d = t - n; printf "%.3f", (d > 0 ? d : 0) }')"
}

longest=${NVEMU_LCBE_FIRST_S:-60}
# run NAME LC_US BE_US NLC NBE [BEMODE [STATES]]: LC_US/BE_US empty = libcuda's own timeslice; BEMODE be
# (training) or gpu (torch_lcbe.py gpu); STATES the host states' letters, one window of SECONDS each
run() {
  name=$1 lc_us=$2 be_us=$3 nlc=$4 nbe=$5 bemode=${6:-be} states=${7:-}
  nseg=$(printf '%s' "$states" | wc -c)
  win=$secs
  [ "$nseg" -gt 0 ] && win=$((secs * nseg))
  now=$(date +%s)
  if [ "$budget" -gt 0 ] && [ $((now - t0 + longest)) -gt "$budget" ]; then
    echo "$name: skipped (at $((now - t0)) s, longest configuration $longest s, budget $budget s)"
    return
  fi
  if [ "$dry" = 1 ]; then
    echo "$name: would run lc_us=${lc_us:-native} be_us=${be_us:-native} lc=$nlc $bemode=$nbe ${win}s at" \
      "${rate}/s${states:+ host states $states}"
    return
  fi
  started=$now
  probe >"$out/$name.probe"
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
        $py "$here/torch_lcbe.py" "$bemode" "$win" "$sync" "$out/$name.be$i.json" >"$out/$name.be$i.log" 2>&1 &
    else
      $py "$here/torch_lcbe.py" "$bemode" "$win" "$sync" "$out/$name.be$i.json" >"$out/$name.be$i.log" 2>&1 &
    fi
    pids="$pids $!"
  done
  if [ "$nlc" = 1 ]; then
    if [ -n "$lc_us" ]; then
      LD_PRELOAD=$lib NVEMU_TSG_TIMESLICE_US=$lc_us NVEMU_TSG_LOG="$out/$name.tsg.log" \
        $py "$here/torch_lcbe.py" lc "$rate" "$win" "$sync" "$out/$name.lc.json" >"$out/$name.lc.log" 2>&1 &
    else
      $py "$here/torch_lcbe.py" lc "$rate" "$win" "$sync" "$out/$name.lc.json" >"$out/$name.lc.log" 2>&1 &
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
  if [ "$nseg" -gt 0 ]; then
    w0=$(cat "$out/$name.window") k=0
    while [ $k -lt "$nseg" ]; do
      st=$(printf '%s' "$states" | cut -c$((k + 1)))
      a=$(awk -v w="$w0" -v k=$k -v s="$secs" 'BEGIN { printf "%.6f", w + k * s }')
      sleep_until "$a"
      snap "$k-start-$st"
      host_on "$st"
      echo "$st $a $(awk -v a="$a" -v s="$secs" 'BEGIN { printf "%.6f", a + s }') $(date +%s.%N)" >>"$out/$name.states"
      sleep_until "$(awk -v a="$a" -v s="$secs" 'BEGIN { printf "%.6f", a + s - 0.05 }')"
      host_off
      k=$((k + 1))
    done
    snap end
  fi
  if [ -n "$lcpid" ]; then wait "$lcpid"; elif [ "$nseg" = 0 ]; then sleep "$secs"; sleep 0.5; fi
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
  probe >>"$out/$name.probe"
  kill "$smipid" 2>/dev/null
  wait "$smipid" 2>/dev/null
  rm -rf "$sync"
  took=$(($(date +%s) - started))
  [ "$took" -gt "$longest" ] && longest=$took
  echo "$name: $(cat "$out/$name".*.log 2>/dev/null | grep -E '^(LC|BE) ' | tr '\n' ' ')(${took} s, ready after $((waited / 10)) s)"
  pack
}

# config NAME [TAG [STATES]]: one of the configurations, its files named NAME or NAME.TAG (gpreempt-gpu,
# native-gpu: the GPU-only BE, torch_lcbe.py gpu, under GPreempt's slices or libcuda's own; lc1s-alone: the LC
# alone with its group's 1 s timeslice set by LIBTIMESLICE, as under lcbe200 and gpreempt)
config() {
  stem=$1${2:+.$2} hs=${3:-}
  case $1 in
  lc-alone) run "$stem" "" "" 1 0 be "$hs" ;;
  be-alone) run "$stem" "" "" 0 1 be "$hs" ;;
  native-1be) run "$stem" "" "" 1 1 be "$hs" ;;
  lcbe200-1be) run "$stem" 1000000 200 1 1 be "$hs" ;;
  native-2be) run "$stem" "" "" 1 2 be "$hs" ;;
  lcbe200-2be) run "$stem" 1000000 200 1 2 be "$hs" ;;
  gpreempt-1be) run "$stem" 1000000 1 1 1 be "$hs" ;;
  gpreempt-2be) run "$stem" 1000000 1 1 2 be "$hs" ;;
  gpreempt-gpu) run "$stem" 1000000 1 1 1 gpu "$hs" ;;
  native-gpu) run "$stem" "" "" 1 1 gpu "$hs" ;;
  lc1s-alone) run "$stem" 1000000 "" 1 0 be "$hs" ;;
  *) echo "unknown configuration $1"; exit 2 ;;
  esac
}

if [ -z "$configs" ]; then
  for c in lc-alone be-alone native-1be lcbe200-1be native-2be lcbe200-2be gpreempt-1be gpreempt-2be; do
    config $c "" "$dstates"
  done
else
  seen=" "
  for c in $configs; do
    hs=$dstates
    case $c in *@*) hs=${c#*@} c=${c%%@*} ;; esac
    k=$(( $(printf '%s' "$seen" | tr ' ' '\n' | grep -cx "$c") + 1 ))
    seen="$seen$c "
    config "$c" "r$k" "$hs"
  done
fi
[ "$dry" = 1 ] || smi_state >>"$out/env.txt"
[ "$dry" = 1 ] || pack
echo "done after $(($(date +%s) - t0)) s"
