#!/bin/sh
# h200_recovers_hand_fit.sh NVEMU FIXTURES OUT: `nvemu calibrate --from` the H200's recordings of the validation suite,
# the kernel shapes and the short kernels (FIXTURES = fixtures/hw/h200-580.159.04) fits each timing key close to the
# value fitted by hand in emu/profiles/h200.yaml (from the same recordings and others), the written profile loads,
# names every fitted key in its provenance with the recordings' GPU and driver, and the validation experiments it was
# not fitted to come out at least 14 of 18 within 10% and all within 25%. The short kernels' experiments show what a
# back-to-back one-wave kernel costs, kernel_gap_us less kernel_gap_overlap_us (by hand 6 - 4.3 = 1.7 us): that
# difference is held to 10%; the overlap itself moves with kernel_gap_us, fitted from other recordings.
set -u
. "$(dirname "$0")/keys.sh"
nvemu=$1 fx=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
"$nvemu" calibrate --from "$fx/validation" --from "$fx/shapes" --from "$fx/short-kernels" --base h200 --out "$out/profile.yaml" \
    --report "$out/report.txt" > "$out/stdout.txt" 2> "$out/stderr.txt"
rc=$?
[ $rc -eq 0 ] || { echo "calibrate failed (exit $rc)"; cat "$out/stderr.txt"; exit 1; }
"$nvemu" profile check "$out/profile.yaml" > /dev/null 2>&1 || { echo "the fitted profile does not load"; exit 1; }
fail=0
# key, hand-fitted value (h200.yaml), largest relative difference allowed
while read -r key hand tol; do
  v=$(fitted_value "$out/profile.yaml" "$key")
  [ -n "$v" ] || { echo "$key: not in the fitted profile"; fail=1; continue; }
  echo "$key: fitted $v, by hand $hand (allowed $tol)"
  near "$v" "$hand" "$tol" || { echo "  $key is off"; fail=1; }
  grep -q "timing\.${key%_us}: \"measured, nvemu calibrate .*NVIDIA H200 GPU-.*driver 580.159.04" "$out/profile.yaml" || \
    { echo "  $key: no provenance row naming the GPU and driver"; fail=1; }
done <<'KEYS'
kernel_gap_us 6 0.15
launch_us 10 0.10
host_jitter_us 2.5 0.35
wake_per_ms_us 1.3 0.35
cilp_save_us 165 0.05
restore_per_kb_us 0.35 0.10
restore_per_thread_kb_us 24 0.10
kernel_gap_overlap_us 4.3 0.20
idle_save_us 120 0.05
wfi_overhead_us 120 0.10
timeslice_tick 1024 0.01
KEYS
gap=$(fitted_value "$out/profile.yaml" kernel_gap_us)
ovl=$(fitted_value "$out/profile.yaml" kernel_gap_overlap_us)
b2b=$(awk -v g="${gap:-0}" -v o="${ovl:-0}" 'BEGIN { printf "%.3f", g - o }')
echo "back-to-back one-wave kernel: kernel_gap_us - kernel_gap_overlap_us = $b2b, by hand 1.7 (allowed 0.10)"
near "$b2b" 1.7 0.10 || { echo "  it is off"; fail=1; }
v=$(sed -n 's/^validation: \([0-9]*\) of \([0-9]*\) metrics within 10%, \([0-9]*\) within 25%/\1 \2 \3/p' "$out/report.txt")
echo "validation (within 10%, of, within 25%): $v"
set -- $v
[ $# -eq 3 ] && [ "$1" -ge 14 ] && [ "$3" -eq "$2" ] && [ "$2" -eq 18 ] || { echo "validation below 14/18 and 18/18"; fail=1; }
exit $fail
