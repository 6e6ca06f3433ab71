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
set -u
out=$1 lib=$2 rate=${3:-50} secs=${4:-8}
here=$(dirname "$(readlink -f "$0")")
py=${PYTHON:-python3}
mkdir -p "$out"
[ -f "$lib" ] || { echo "no $lib"; exit 2; }

tarball=${NVEMU_PACK:-${out%/}.tar.gz}
pack() { tar -C "$out" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"; }

{
  nvidia-smi --query-gpu=name,uuid,driver_version --format=csv 2>&1
  $py -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))' 2>&1
  date -u
} >"$out/env.txt"

for mode in infer train; do
  $py "$here/torch_profile.py" $mode "$out/$mode.json" >"$out/profile-$mode.log" 2>&1 &&
    gzip -f "$out/$mode.json"
done
pack

# run NAME LC_US BE_US NLC NBE: LC_US/BE_US empty = libcuda's own timeslice
run() {
  name=$1 lc_us=$2 be_us=$3 nlc=$4 nbe=$5
  sync=$(mktemp -d)
  pids= lcpid=
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
    sleep 0.1
    waited=$((waited + 1))
  done
  $py -c 'import time; print(time.time() + 0.3)' >"$sync/go.tmp"
  mv "$sync/go.tmp" "$sync/go"
  if [ -n "$lcpid" ]; then wait "$lcpid"; else sleep "$secs"; sleep 0.5; fi
  touch "$sync/stop"
  for p in $pids; do wait "$p"; done
  rm -rf "$sync"
  echo "$name: $(cat "$out/$name".*.log 2>/dev/null | grep -E '^(LC|BE) ' | tr '\n' ' ')"
  pack
}

run lc-alone "" "" 1 0
run be-alone "" "" 0 1
run native-1be "" "" 1 1
run lcbe200-1be 1000000 200 1 1
run native-2be "" "" 1 2
run lcbe200-2be 1000000 200 1 2
run gpreempt-1be 1000000 1 1 1
run gpreempt-2be 1000000 1 1 2
echo "done"
