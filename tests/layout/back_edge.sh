#!/bin/sh
# back_edge.sh SRC MODULES_FILE WORK: ci/check-includes passes on a copy of the tree and fails on the same copy
# once one deliberate wrong include is added, naming that line, for each of:
#   - a back edge in a client library (libnvrm, which links only emu/abi, including the emulator runner.h);
#   - a back edge inside the scenario engine (its model including the emulator backend's runner.h);
#   - a backend including its sibling (the hardware backend including the emulator backend's runner.h);
#   - an engine part including an emulator core header its folder does not name (the hardware backend including
#     fifo/fifo.h, the emulator backend's run_ctx.c including fifo/workload.h);
#   - a private header of a folder it links (the sweep including the emulator backend's run_ctx.h);
#   - an emu module including an engine header.
set -u
src=$1 modules=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
for d in ci emu cli engine clients tools policies bench examples include; do cp -r "$src/$d" "$work/$d"; done
"$work/ci/check-includes" "$modules" "$work" > "$work/clean.txt" 2>&1 || { echo "the copy is not clean:"; cat "$work/clean.txt"; exit 1; }

# plant FILE LINE EXPECTED: FILE with LINE added fails the check with a line matching EXPECTED; FILE restored
plant() {
  cp "$work/$1" "$work/$1.orig"
  printf '%s\n' "$2" >> "$work/$1"
  if "$work/ci/check-includes" "$modules" "$work" > "$work/out.txt" 2>&1; then
    echo "$1 with $2 passed"; exit 1
  fi
  grep -q "$3" "$work/out.txt" || { echo "the failure does not name $1's $2:"; cat "$work/out.txt"; exit 1; }
  mv "$work/$1.orig" "$work/$1"
}
plant clients/nvrm/nvrm_discovery.c '#include "runner.h"' \
  'clients/nvrm/nvrm_discovery.c:[0-9]*: #include "runner.h": back edge, clients/nvrm does not link engine/backends/emu'
plant engine/model/expect.c '#include "runner.h"' \
  'engine/model/expect.c:[0-9]*: #include "runner.h": back edge, engine/model does not link engine/backends/emu'
plant engine/backends/hw/hw_run.c '#include "runner.h"' \
  'engine/backends/hw/hw_run.c:[0-9]*: #include "runner.h": back edge, engine/backends/hw does not link engine/backends/emu'
plant engine/backends/hw/hw_run.c '#include "fifo/fifo.h"' \
  'engine/backends/hw/hw_run.c:[0-9]*: #include "fifo/fifo.h": engine/backends/hw sees the emulator core only through'
plant engine/backends/emu/run_ctx.c '#include "fifo/workload.h"' \
  'engine/backends/emu/run_ctx.c:[0-9]*: #include "fifo/workload.h": engine/backends/emu sees the emulator core only'
plant engine/sweep/sweep.c '#include "run_ctx.h"' \
  'engine/sweep/sweep.c:[0-9]*: #include "run_ctx.h": private header of engine/backends/emu'
plant emu/sim/sim.c '#include "engine/model/results.h"' \
  'emu/sim/sim.c:[0-9]*: #include "engine/model/results.h": engine is not a module'
"$work/ci/check-includes" "$modules" "$work" > "$work/clean.txt" 2>&1 || { echo "the restored copy is not clean:"; cat "$work/clean.txt"; exit 1; }
echo "ok: clean copy passes, every planted include fails"
