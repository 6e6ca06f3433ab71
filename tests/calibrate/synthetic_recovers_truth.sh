#!/bin/sh
# synthetic_recovers_truth.sh NVEMU OUT [TIMING]: recordings made by the emulator itself with known timing values (a
# profile over h200 with every fitted key moved away from h200's) are given to `nvemu calibrate --from` over the h200
# profile; the fit must find each known value again (within 3%; the tick within 1%: the LC kernels of its experiments,
# 10 us apart, place it to about 20 ns) and mark the recordings as not made on a GPU (provenance "derived").
# TIMING: lines of timing keys laid over h200 for the base and the truth alike (the per-save accounting of
# fixtures/hw/h200-580.159.04/slice-trace/per-save.timing); the truth's re-save keeps the base's distance from its
# save, and the fit must find it too.
set -u
. "$(dirname "$0")/keys.sh"
nvemu=$1 out=$2 timing=${3:-}
rm -rf "$out" && mkdir -p "$out/rec"
base=h200 resave=
if [ -n "$timing" ]; then
  { printf 'base: h200\nname: synthetic-base\ntiming:\n'; sed 's/^/  /' "$timing"; } > "$out/base.yaml"
  base=$out/base.yaml
  distance=$(awk '$1 == "cilp_save_us:" { s = $2 } $1 == "cilp_resave_us:" { r = $2 } END { if (r) print r - s }' \
             "$timing")
  [ -n "$distance" ] || { echo "$timing sets no cilp_resave_us"; exit 1; }
  resave=$(awk -v d="$distance" 'BEGIN { print 120 + d }')
fi
cat > "$out/truth.yaml" <<YAML
base: $base
name: truth
timing:
  kernel_gap_us: 9
  launch_us: 14
  host_jitter_us: 4
  wake_per_ms_us: 2.5
  wake_max_us: 40
  cilp_save_us: 120
  restore_per_kb_us: 0.6
  restore_per_thread_kb_us: 45
  kernel_gap_overlap_us: 3
  overlap_wave_us: 0.429
  idle_save_us: 80
  wfi_overhead_us: 180
  timeslice_tick: 1050ns
${resave:+  cilp_resave_us: $resave}
YAML
"$nvemu" calibrate --write-scenarios "$out/scen" || exit 1
for n in v01-native-1be-lcS-periodic500 v14-native-1be-lcS-periodic200-wfi v15-native-1be-lcS-periodic200-cilp \
         x-slice-bekernel5ms x-switch-smem0 x-switch-smem128 x-switch-smem200 s-ts200-t32-smem200-bps1 \
         s-ts200-t64-smem200-bps1 m-native-2be-lc8x500-periodic20 m-native-2be-lc8x510-periodic20 \
         m-native-2be-lc8x520-periodic20 m-native-2be-lc8x530-periodic20 k-ts2048-d10-b132-g0 k-ts2048-d10-b16-g0; do
  "$nvemu" scenario run "$out/scen/$n.yaml" --profile "$out/truth.yaml" --quiet --out "$out/rec/$n" > /dev/null 2>&1
  [ $? -le 1 ] || { echo "$n: the truth run failed"; exit 1; }
done
"$nvemu" calibrate --from "$out/rec" --base "$base" --no-validate --out "$out/fit.yaml" > "$out/report.txt" \
    2> "$out/stderr.txt" || { echo "calibrate failed"; cat "$out/stderr.txt"; exit 1; }
fail=0
{ cat <<'KEYS'
kernel_gap_us 9 0.03
launch_us 14 0.03
host_jitter_us 4 0.03
wake_per_ms_us 2.5 0.03
cilp_save_us 120 0.03
restore_per_kb_us 0.6 0.03
restore_per_thread_kb_us 45 0.03
kernel_gap_overlap_us 3 0.03
idle_save_us 80 0.03
wfi_overhead_us 180 0.03
timeslice_tick 1050 0.01
KEYS
  [ -z "$resave" ] || echo "cilp_resave_us $resave 0.04"
} > "$out/keys.txt"
while read -r key truth tol; do
  v=$(fitted_value "$out/fit.yaml" "$key")
  [ -n "$v" ] || { echo "$key: not fitted"; fail=1; continue; }
  echo "$key: fitted $v, truth $truth"
  near "$v" "$truth" "$tol" || { echo "  $key is off by more than $tol"; fail=1; }
done < "$out/keys.txt"
grep -q 'timing.cilp_save: "derived, nvemu calibrate x-switch-smem0' "$out/fit.yaml" || \
    { echo "emulator recordings not marked derived"; fail=1; }
exit $fail
