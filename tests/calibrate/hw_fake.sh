#!/bin/sh
# hw_fake.sh NVEMU FAKEDRV_DIR OUT: `nvemu calibrate --hw` against the stand-in libcuda.so.1 (tests/hw/fake_libcuda.c):
# it records the experiments of the keys asked with `scenario run --hw` into OUT/NAME (results.json marked hw, the
# console beside it), writes OUT/env.txt with the date, fits from them, and writes OUT/profile.yaml (which loads,
# and whose provenance row names the experiment and the GPU the results name) and OUT/calibration.txt.
set -u
nvemu=$1 drv=$2 out=$3
rm -rf "$out"
LD_LIBRARY_PATH="$drv" "$nvemu" calibrate --hw --dir "$out" --only kernel_gap_us --no-validate > "$out.stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "calibrate --hw failed (exit $rc)"; cat "$out.stdout"; exit 1; }
r=$out/v01-native-1be-lcS-periodic500
grep -q '"backend":[[:space:]]*"hw"' "$r/results.json" || { echo "no hw results in $r"; exit 1; }
[ -s "$r/console.txt" ] || { echo "no console.txt"; exit 1; }
[ ! -e "$out/x-switch-smem0" ] || { echo "recorded an experiment of a key not asked"; exit 1; }
grep -q '^20[0-9][0-9]-' "$out/env.txt" || { echo "env.txt has no date"; exit 1; }
"$nvemu" profile check "$out/profile.yaml" > /dev/null 2>&1 || { echo "the profile does not load"; exit 1; }
grep -q '^  kernel_gap_us: [0-9.]* ' "$out/profile.yaml" || { echo "kernel_gap_us not written"; exit 1; }
grep -q 'timing.kernel_gap: "measured, nvemu calibrate v01-native-1be-lcS-periodic500 (1 metric); Fake GPU' \
    "$out/profile.yaml" || { echo "no provenance row naming the experiment and GPU"; cat "$out/profile.yaml"; exit 1; }
grep -q '^kernel_gap_us ' "$out/calibration.txt" || { echo "no report"; exit 1; }
echo "ok"
