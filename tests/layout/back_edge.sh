#!/bin/sh
# back_edge.sh SRC MODULES_FILE WORK: ci/check-includes passes on a copy of the tree and fails on the same copy
# once one deliberate back edge is added in the harness (libnvrm, which links only emu/abi, including the
# scenario engine's runner.h), naming that line; and fails again on an emu module including a harness header.
set -u
src=$1 modules=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
for d in ci emu harness bench examples include; do cp -r "$src/$d" "$work/$d"; done
"$work/ci/check-includes" "$modules" "$work" > "$work/clean.txt" 2>&1 || { echo "the copy is not clean:"; cat "$work/clean.txt"; exit 1; }
printf '#include "runner.h"\n' >> "$work/clients/nvrm/nvrm_discovery.c"
if "$work/ci/check-includes" "$modules" "$work" > "$work/back.txt" 2>&1; then
  echo "a back edge in clients/nvrm passed"; exit 1
fi
grep -q 'clients/nvrm/nvrm_discovery.c:[0-9]*: #include "runner.h": back edge, clients/nvrm does not link engine' \
  "$work/back.txt" || { echo "the failure does not name the back edge:"; cat "$work/back.txt"; exit 1; }
cp "$src/clients/nvrm/nvrm_discovery.c" "$work/clients/nvrm/nvrm_discovery.c"
printf '#include "scenario/results.h"\n' >> "$work/emu/sim/sim.c"
if "$work/ci/check-includes" "$modules" "$work" > "$work/emu.txt" 2>&1; then
  echo "an emu module including the harness passed"; exit 1
fi
grep -q 'emu/sim/sim.c:[0-9]*: #include "scenario/results.h": scenario is not a module' "$work/emu.txt" ||
  { echo "the failure does not name the include:"; cat "$work/emu.txt"; exit 1; }
echo "ok: clean copy passes, both back edges fail"
