#!/usr/bin/env bash
# One device session on a real GPU (run as root from the repository root):
#   tests/conformance/device-session.sh BINDIR OUTDIR
# BINDIR holds prebuilt nvemu-conformance, nvemu-hwmeasure, libnvemu-record.so and the CUDA
# programs ctx, streams, share, busy (tests/conformance/build-device-bins.sh builds them); whatever
# is missing or does not start there is rebuilt from source on the device. Results are written to
# /tmp/nvemu-hw-results/hw (see fixtures/hw/*/README.md for what each file is); OUTDIR receives
# hw-results.tar.gz (all of it) plus the main text files (the remote runner returns at most 8 files).
# When BINDIR also holds nvemu-gpreempt (tools/gpreempt, static), its demo runs last.
set -u
BIN=$(readlink -f "$1")
OUTDIR=$(readlink -f "$2")
R=/tmp/nvemu-hw-results/hw
FIX=$(readlink -f fixtures/hw/h200-580.159.04/libcuda-objects.txt)
mkdir -p "$R" /tmp/nvemu-hw
chmod 755 /tmp/nvemu-hw
exec > >(tee -a "$R/session.log") 2>&1
step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%T)"; }

step "environment"
{
  uname -a; id; cat /proc/driver/nvidia/version 2>&1; ls -l /dev/nvidia* 2>&1
  nvidia-smi --query-gpu=name,pci.bus_id,driver_version,persistence_mode,compute_mode,clocks.sm,temperature.gpu --format=csv 2>&1
  nvidia-smi -q 2>&1 | head -60; ldd --version 2>&1 | head -1; command -v setpriv nvcc cc gcc
} > "$R/env.txt" 2>&1
cat "$R/env.txt" | head -20

step "binaries"
cp -a "$BIN"/. /tmp/nvemu-hw/ 2>/dev/null
cp "$FIX" /tmp/nvemu-hw/libcuda-objects.txt
chmod -R a+rX /tmp/nvemu-hw
CF="cc -std=c11 -D_GNU_SOURCE -O2"
T=tests/conformance
[ -x /tmp/nvemu-hw/nvemu-conformance ] || $CF -static -o /tmp/nvemu-hw/nvemu-conformance $T/conformance.c $T/conf_out.c $T/conf_esc.c $T/conf_rm.c $T/conf_fifo.c $T/conf_priv.c $T/fixture.c $T/rmraw.c
[ -x /tmp/nvemu-hw/nvemu-hwmeasure ] || $CF -static -o /tmp/nvemu-hw/nvemu-hwmeasure $T/measure.c $T/conf_out.c $T/fixture.c $T/rmraw.c
[ -f /tmp/nvemu-hw/libnvemu-record.so ] || $CF -shared -fPIC -o /tmp/nvemu-hw/libnvemu-record.so tools/record/record_preload.c
[ -x /tmp/nvemu-hw/nvemu-record ] || $CF -Iemu -Iinclude -o /tmp/nvemu-hw/nvemu-record $T/record_cmd_main.c cli/cmd_record.c emu/base/paths.c emu/base/log.c -lpthread
for p in ctx streams share busy; do
  if ! [ -x /tmp/nvemu-hw/$p ] || ! ldd /tmp/nvemu-hw/$p >/dev/null 2>&1 || ldd /tmp/nvemu-hw/$p | grep -q 'not found\|version .* not found'; then
    echo "building $p on the device"; nvcc -O2 -arch=sm_90 -o /tmp/nvemu-hw/$p $T/cuda/$p.cu
  fi
done
chmod -R a+rX /tmp/nvemu-hw
ls -la /tmp/nvemu-hw
REC=/tmp/nvemu-hw/libnvemu-record.so
rec() { local f=$1; shift; NVEMU_RECORD_FILE="$f" LD_PRELOAD=$REC timeout 120 "$@"; echo "rc=$?"; }
as_user() {
  if command -v setpriv >/dev/null; then
    timeout 120 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"
  else
    timeout 120 python3 -c 'import os,sys; os.setgroups([]); os.setgid(65534); os.setuid(65534); os.execv(sys.argv[1], sys.argv[1:])' "$@"
  fi
}

step "conformance as root (twice, to see what varies between runs)"
(cd /tmp/nvemu-hw && timeout 120 ./nvemu-conformance libcuda-objects.txt) > "$R/conformance-root.txt" 2>&1; echo "rc=$?"
(cd /tmp/nvemu-hw && timeout 120 ./nvemu-conformance libcuda-objects.txt) > "$R/conformance-root-2.txt" 2>&1; echo "rc=$?"
diff <(grep -v '^#' "$R/conformance-root.txt") <(grep -v '^#' "$R/conformance-root-2.txt") && echo "root runs identical"
grep -c . "$R/conformance-root.txt"
step "conformance as uid 65534 without capabilities"
(cd /tmp/nvemu-hw && as_user ./nvemu-conformance libcuda-objects.txt) > "$R/conformance-user.txt" 2>&1; echo "rc=$?"
head -3 "$R/conformance-user.txt"

step "latency measurements (raw RM, idle groups)"
(cd /tmp/nvemu-hw && timeout 120 ./nvemu-hwmeasure libcuda-objects.txt 200) > "$R/measure.txt" 2>&1; echo "rc=$?"
cat "$R/measure.txt"

step "libcuda traces"
cd /tmp/nvemu-hw
# context creation is recorded through `nvemu record` itself (its code, built standalone)
NVEMU_RECORD_LIB=$REC timeout 120 ./nvemu-record record -o "$R/trace-ctx.log" -- ./ctx; echo "rc=$?"
rec "$R/trace-streams.log" ./streams
rec "$R/trace-share-%p.log" ./share 1000000
rec "$R/trace-busy-preempt.log" ./busy preempt 2000000
step "timeslice pairs (two processes, libcuda groups, same work)"
for pair in "2048 2048" "1 1000000" "0 1000000" "1000000 1000000"; do
  set -- $pair
  rm -f "$R"/trace-ts-a.log "$R"/trace-ts-b.log
  rec "$R/trace-ts-$1-a.log" ./busy timeslice "$1" 2000000 > "$R/ts-a.txt" 2>&1 &
  rec "$R/trace-ts-$2-b.log" ./busy timeslice "$2" 2000000 > "$R/ts-b.txt" 2>&1
  wait
  echo "pair $1/$2:"; cat "$R/ts-a.txt" "$R/ts-b.txt"
done | tee "$R/timeslice-pairs.txt"
step "interleave levels under CHANNEL_INTERLEAVED (two processes, same work)"
for pair in "1 1" "2 0" "0 2"; do
  set -- $pair
  rec "$R/trace-il-a.log" ./busy interleave "$1" 2000000 > "$R/il-a.txt" 2>&1 &
  rec "$R/trace-il-b.log" ./busy interleave "$2" 2000000 > "$R/il-b.txt" 2>&1
  wait
  echo "pair $1/$2:"; cat "$R/il-a.txt" "$R/il-b.txt"
  rm -f "$R/trace-il-a.log" "$R/trace-il-b.log"
done | tee "$R/interleave-pairs.txt"
step "FIFO_DISABLE_CHANNELS on ANOTHER process's channels (stock driver, no GPreempt patch)"
{
  echo "B alone:"; rec "$R/trace-dis-b.log" ./busy timeslice 2048 4000000; rm -f "$R/trace-dis-b.log"
  for ms in 300 0; do
    rec "$R/trace-dis-b.log" ./busy timeslice 2048 4000000 > "$R/dis-b.txt" 2>&1 &
    rec "$R/trace-dis-a.log" ./busy disable-other "$R/trace-dis-b.log" $ms > "$R/dis-a.txt" 2>&1
    wait
    echo "A disables B for $ms ms:"; cat "$R/dis-a.txt" "$R/dis-b.txt"
    rm -f "$R/trace-dis-a.log" "$R/trace-dis-b.log"
  done
} | tee "$R/disable-other.txt"
step "LC/BE on the stock driver: a latency-critical task next to a best-effort one"
{
  echo "LC alone:"; rec "$R/trace-lc.log" ./busy lc 50 132 10 0; rm -f "$R/trace-lc.log"
  for method in none timeslice disable; do
    be_ts=2048; lc_ts=0; other=
    [ $method = timeslice ] && be_ts=1 && lc_ts=1000000
    [ $method = disable ] && other="$R/trace-be.log"
    rec "$R/trace-be.log" ./busy timeslice $be_ts 8000000 > "$R/be.txt" 2>&1 &
    sleep 1
    rec "$R/trace-lc.log" ./busy lc 50 132 10 $lc_ts $other > "$R/lc.txt" 2>&1
    wait
    echo "LC with BE running, method=$method (BE timeslice $be_ts, LC timeslice $lc_ts):"; cat "$R/lc.txt" "$R/be.txt"
    rm -f "$R/trace-be.log" "$R/trace-lc.log"
  done
} | tee "$R/lc-be.txt"
cd - >/dev/null
i=0; for f in "$R"/trace-share-[0-9]*.log; do mv "$f" "$R/trace-share-p$i.log"; i=$((i+1)); done
rm -f "$R"/trace-ts-*-?.log "$R"/ts-?.txt "$R"/il-?.txt "$R"/dis-?.txt "$R"/lc.txt "$R"/be.txt

if [ -x /tmp/nvemu-hw/nvemu-gpreempt ]; then
  step "GPreempt-style scheduler demo (tools/gpreempt) on the stock driver"
  (cd /tmp/nvemu-hw && timeout 180 ./nvemu-gpreempt demo --iterations 50) > "$R/gpreempt-demo.txt" 2>&1; echo "rc=$?"
  tail -15 "$R/gpreempt-demo.txt"
fi

step "device state after"
{ nvidia-smi --query-gpu=name,persistence_mode,compute_mode,clocks.sm --format=csv; dmesg 2>/dev/null | grep -i -E 'NVRM|xid' | tail -40; } > "$R/after.txt" 2>&1
cat "$R/after.txt"
wc -l "$R"/*
mkdir -p "$OUTDIR"
tar -C "$(dirname "$R")" -czf "$OUTDIR/hw-results.tar.gz" hw
for f in conformance-root.txt conformance-user.txt measure.txt gpreempt-demo.txt session.log; do [ -f "$R/$f" ] && cp "$R/$f" "$OUTDIR/"; done
ls -la "$OUTDIR"
