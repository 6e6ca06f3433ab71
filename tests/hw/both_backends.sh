#!/bin/sh
# both_backends.sh NVEMU FAKEDRV_DIR SCENARIO OUT: one scenario plan through `--backend emu` and `--backend hw`
# (the latter against the stand-in libcuda.so.1): every request arrival (time, instance, request number) of the
# open-loop tasks must be the same in both runs' traces, and so must the scheduler's calls decided (results.json
# scheduler.calls_decided). The scenario's tasks are all open-loop (a closed loop's arrivals follow its
# completions, which differ). Then `scenario compare FILE --backend emu --backend hw` runs the same pair itself
# and compares them.
set -u
nvemu=$1 drv=$2 sc=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
"$nvemu" scenario run "$sc" --backend emu --csv --quiet --out "$out/emu"
[ $? -le 1 ] || { echo "emu run failed"; exit 1; }
LD_LIBRARY_PATH="$drv" "$nvemu" scenario run "$sc" --backend hw --csv --quiet --out "$out/hw"
[ $? -le 1 ] || { echo "hw run failed"; exit 1; }
grep -q '"backend":[[:space:]]*"hw"' "$out/hw/results.json" || { echo "not marked hw"; exit 1; }
for b in emu hw; do
  awk -F, '$3 == "mark" && $11 == "req_arrive" {print $2, $9, $10}' "$out/$b/trace.csv" > "$out/$b.arrivals"
  tr -d ' \t\n' < "$out/$b/results.json" | grep -o '"calls_decided":{[^}]*}' > "$out/$b.decided"
done
n=$(wc -l < "$out/emu.arrivals")
[ "$n" -gt 10 ] || { echo "too few arrivals ($n) to compare"; exit 1; }
cmp "$out/emu.arrivals" "$out/hw.arrivals" || { echo "arrivals differ"; diff "$out/emu.arrivals" "$out/hw.arrivals" | head; exit 1; }
grep -q '"preempt":[1-9]' "$out/emu.decided" || { echo "no PREEMPT decided: $(cat "$out/emu.decided")"; exit 1; }
cmp "$out/emu.decided" "$out/hw.decided" || { echo "decisions differ: emu $(cat "$out/emu.decided"), hw $(cat "$out/hw.decided")"; exit 1; }
LD_LIBRARY_PATH="$drv" "$nvemu" scenario compare "$sc" --backend emu --backend hw --out "$out/cmp" > "$out/cmp.txt"
[ $? -le 1 ] || { echo "compare --backend emu --backend hw failed"; cat "$out/cmp.txt"; exit 1; }
grep -q '^B: .*(hw)$' "$out/cmp.txt" && grep -q '"backend":[[:space:]]*"emulator"' "$out/cmp/emu/results.json" &&
  grep -q '"backend":[[:space:]]*"hw"' "$out/cmp/hw/results.json" || { echo "compare did not run both backends"; exit 1; }
echo "ok: $n arrivals and $(cat "$out/emu.decided") alike; compare --backend ran both"
