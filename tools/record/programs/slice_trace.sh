#!/bin/sh
# slice_trace.sh OUTDIR SLICE_TRACE LIBTIMESLICE SECONDS CONFIG...: each CONFIG "NAME D_US BLOCKS NKERNEL SMEM_KB
# TS_US NPROC [THREADS]" runs NPROC slice_trace processes (slice_trace.c) at once, each group's timeslice TS_US set by
# LIBTIMESLICE (LD_PRELOAD, as `nvemu scenario run --hw` sets a BE group's), for SECONDS. Each process starts
# once the one before it has calibrated its kernel (alone on the GPU), and all begin together. OUTDIR receives
# NAME.pK.tsv.gz, NAME.pK.log, tsg.log (every timeslice decision and the driver's status) and env.txt.
set -u
out=$1 bin=$2 lib=$3 secs=$4
shift 4
mkdir -p "$out"
{ date -u; uname -a; nvidia-smi 2>&1; nvidia-smi -q -d CLOCK 2>&1 | head -40; } >"$out/env.txt"
for cfg in "$@"; do
  set -- $cfg
  name=$1 d=$2 b=$3 n=$4 smem=$5 ts=$6 np=$7 threads=${8:-1024}
  go=$(mktemp -u) pids=
  k=1
  while [ $k -le "$np" ]; do
    LD_PRELOAD=$lib NVEMU_TSG_TIMESLICE_US=$ts NVEMU_TSG_LOG="$out/tsg.log" \
      "$bin" "$d" "$b" "$n" "$smem" "$secs" "$go.ready$k" "$go" "$out/$name.p$k.tsv" "$threads" >"$out/$name.p$k.log" 2>&1 &
    pids="$pids $!"
    w=0
    while [ ! -f "$go.ready$k" ] && [ $w -lt 600 ]; do sleep 0.05; w=$((w + 1)); done
    k=$((k + 1))
  done
  touch "$go"
  for p in $pids; do wait "$p" || echo "$name: process $p exited $?" >>"$out/errors.txt"; done
  rm -f "$go" "$go".ready*
  gzip -f "$out/$name".p*.tsv
  echo "$name done $(date -u +%T)"
done
