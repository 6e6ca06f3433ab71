#!/bin/sh
# fake_driver.sh NVEMU FAKEDRV_DIR SCENARIO OUT: `scenario run --hw` against the stand-in libcuda.so.1.
# The run must evaluate its expectations (exit 0 or 1: the stand-in's kernels take CPU time, so on a loaded
# machine a latency bound may fail; timings are not judged here), be marked hw, see exactly the emulator's LC
# arrivals (same seed), and say that it found no channel group to apply the policy or the scheduler's PREEMPT
# to (the stand-in has no RM); and refuse a request.cpu_spread.
set -u
nvemu=$1 drv=$2 sc=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
LD_LIBRARY_PATH="$drv" "$nvemu" scenario run "$sc" --hw --quiet --out "$out/hw"
rc=$?
[ $rc -le 1 ] || { echo "hw run failed (exit $rc)"; exit 1; }
grep -q '"expectations"' "$out/hw/results.json" || { echo "expectations not evaluated"; exit 1; }
"$nvemu" scenario run "$sc" --quiet --out "$out/emu" >/dev/null 2>&1
grep -q '"backend":[[:space:]]*"hw"' "$out/hw/results.json" || { echo "not marked hw"; exit 1; }
grep -q '"gpu":[[:space:]]*"Fake GPU' "$out/hw/results.json" || { echo "no GPU name"; exit 1; }
grep -q 'compute channel group was not seen' "$out/hw/results.json" || { echo "no not-applied note"; exit 1; }
grep -q 'scheduler action preempt not applied' "$out/hw/results.json" || { echo "no scheduler not-applied note"; exit 1; }
req() { tr -d '\t\n ' < "$1" | sed 's/.*"name":"lc","class":"LC","replicas":1,"arrival":"poisson","requests":\([0-9]*\).*/\1/'; }
a=$(req "$out/hw/results.json") b=$(req "$out/emu/results.json")
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "LC arrivals differ: hw $a, emulator $b"; exit 1; }
# comparable with the emulator's run (timings on a shared CI machine are not judged here)
"$nvemu" scenario compare "$out/emu" "$out/hw" > "$out/compare.txt"
[ $? -le 1 ] || { cat "$out/compare.txt"; exit 1; }
grep -q 'lc.p50_vs_alone' "$out/compare.txt" || { echo "no LC ratio compared"; exit 1; }
# request.cpu_spread is the model's draw: the hardware backend refuses it with a message, not a silent run
cat > "$out/spread.yaml" <<EOF
name: spread
duration: 100ms
tasks:
  - {name: lc, class: LC, arrival: {type: periodic, rate: 10}, request: {kernels: [{duration: 1ms}], cpu_spread: 0.1}}
EOF
LD_LIBRARY_PATH="$drv" "$nvemu" scenario run "$out/spread.yaml" --hw --quiet --out "$out/spread" 2>"$out/spread.err"
rc=$?
[ $rc -ge 2 ] && grep -q "task 'lc' has request.cpu_spread; the hardware backend" "$out/spread.err" ||
    { echo "cpu_spread not refused by --hw (exit $rc)"; cat "$out/spread.err"; exit 1; }
echo "ok: $a LC arrivals in both"
