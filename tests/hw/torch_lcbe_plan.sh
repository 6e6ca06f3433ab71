#!/bin/sh
# torch_lcbe_plan.sh TORCH_LCBE_SH OUT: the PyTorch LC/BE recorder's plan (NVEMU_LCBE_DRY=1, no GPU, no Python).
# A configuration NAME@STATES measures one SECONDS window per host-state letter with the same processes, the
# GPU-only BE and the LC alone with its 1 s slice are configurations of their own, and a letter other than
# D, S, H is refused before anything runs.
set -u
sh=$1 out=$2
rm -rf "$out" && mkdir -p "$out"
NVEMU_LCBE_DRY=1 NVEMU_LCBE_CONFIGS="lc-alone@DSH gpreempt-gpu@DD native-gpu lc1s-alone@S lc-alone" \
  sh "$sh" "$out/r" /nonexistent 50 4 >"$out/plan.txt" 2>&1 || { cat "$out/plan.txt"; echo "dry run failed"; exit 1; }
want() { grep -qxF "$1" "$out/plan.txt" || { cat "$out/plan.txt"; echo "missing: $1"; exit 1; }; }
want "lc-alone.r1: would run lc_us=native be_us=native lc=1 be=0 12s at 50/s host states DSH"
want "gpreempt-gpu.r1: would run lc_us=1000000 be_us=1 lc=1 gpu=1 8s at 50/s host states DD"
want "native-gpu.r1: would run lc_us=native be_us=native lc=1 gpu=1 4s at 50/s"
want "lc1s-alone.r1: would run lc_us=1000000 be_us=native lc=1 be=0 4s at 50/s host states S"
want "lc-alone.r2: would run lc_us=native be_us=native lc=1 be=0 4s at 50/s"
NVEMU_LCBE_DRY=1 NVEMU_LCBE_CONFIGS="lc-alone@DD be-alone@DX" sh "$sh" "$out/r" /nonexistent 50 4 >"$out/bad.txt" 2>&1
rc=$?
[ $rc = 2 ] || { cat "$out/bad.txt"; echo "host state X: exit $rc, want 2"; exit 1; }
grep -q 'be-alone: host states are letters D, S, H: DX' "$out/bad.txt" ||
  { cat "$out/bad.txt"; echo "no message"; exit 1; }
grep -q 'would run' "$out/bad.txt" && { echo "ran something despite the bad letter"; exit 1; }
echo ok
