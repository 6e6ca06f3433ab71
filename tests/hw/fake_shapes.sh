#!/bin/sh
# fake_shapes.sh NVEMU FAKEDRV_DIR SCENARIO_DIR OUT: `scenario run --hw` of kernel shapes against the stand-in
# libcuda.so.1: a one-warp block with 200 KiB of shared memory launches as asked (one block per SM), one with none
# and blocks_per_sm 1 is held there by 114 KiB of padding (the SM's 228 KiB / 2), and results.json says so.
set -u
nvemu=$1 drv=$2 dir=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
shape() { tr -d '\t\n ' < "$1" | sed -n 's/.*"shapes":\[{"threads_per_block":\([0-9]*\),"registers_per_thread":[0-9]*,"shared_kb":\([0-9]*\),"launch_shared_kb":\([0-9]*\),"blocks_per_sm":\([0-9]*\).*/\1 \2 \3 \4/p'; }
for n in s-ts200-t32-smem200-bps1 s-ts200-t32-smem0-bps1; do
  LD_LIBRARY_PATH="$drv" "$nvemu" scenario run "$dir/$n.yaml" --hw --quiet --out "$out/$n"
  rc=$?
  [ $rc -le 1 ] || { echo "$n: hw run failed (exit $rc)"; exit 1; }
done
a=$(shape "$out/s-ts200-t32-smem200-bps1/results.json") b=$(shape "$out/s-ts200-t32-smem0-bps1/results.json")
[ "$a" = "32 200 200 1" ] || { echo "200 KiB one-warp shape: got '$a'"; exit 1; }
[ "$b" = "32 0 114 1" ] || { echo "padded one-warp shape: got '$b'"; exit 1; }
echo "ok: $a / $b"
