#!/bin/bash
# calibrate.sh [SCENARIO...]: on the GPU machine, from the folder prepare-calibrate.sh staged: `nvemu calibrate --hw
# --base h100` into $OUT/calibrate (experiments, env.txt, profile.yaml, calibration.txt), then the validation suite's
# SCENARIOs with `scenario run --hw` into $OUT/validation/r3 while the time budget lasts (BUDGET_S seconds from the
# start, default 430: a scenario is started only with 40 s left). Packed into $OUT/calibrate.tar.gz and
# $OUT/validation.tar.gz. CAL_ARGS: more options for calibrate (the stand-in test passes --only).
set -u
H=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$H/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} NVEMU_POLICY_DIR=$H/policies
budget=${BUDGET_S:-430}
mkdir -p "$OUT/calibrate" "$OUT/validation/r3"
t0=$SECONDS
timeout $((budget - 20)) "$H/nvemu" calibrate --hw --dir "$OUT/calibrate" --base h100 ${CAL_ARGS:-} \
    > "$OUT/calibrate/stdout.txt" 2> "$OUT/calibrate/stderr.txt"
echo "calibrate rc=$? $((SECONDS - t0)) s"
tail -40 "$OUT/calibrate/stdout.txt"
tail -5 "$OUT/calibrate/stderr.txt"
tar czf "$OUT/calibrate.tar.gz" -C "$OUT" calibrate
{ date -u; nvidia-smi --query-gpu=name,uuid,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,power.limit --format=csv
  cat /sys/module/nvidia/version; } > "$OUT/validation/r3/env.txt" 2>&1
for n in "$@"; do
  [ $((budget - (SECONDS - t0))) -gt 40 ] || { echo "out of time before $n"; break; }
  t1=$SECONDS
  timeout 35 "$H/nvemu" scenario run "$H/suite/$n.yaml" --hw --no-color --out "$OUT/validation/r3/$n" \
      > "$OUT/validation/r3/$n.txt" 2>&1
  echo "$n rc=$? $((SECONDS - t1)) s"
  tar czf "$OUT/validation.tar.gz" -C "$OUT" validation
done
rm -rf "$OUT/calibrate" "$OUT/validation"
