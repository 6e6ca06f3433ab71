#!/bin/sh
# External task processes (tasks[].process): the bundled example runs through the runner's FUSE-served
# emulator, twice with the same trace byte for byte, and a task binary that never reports ready makes
# the run fail to start (exit 3) with a reason, and one that dies mid-run is reported (see below). Skips (77) with the reason where FUSE cannot be mounted.
# usage: ext_task.sh NVEMU EXT_TASK_DIR SCENARIO WORKDIR
set -u
nvemu=$1 bindir=$2 scenario=$3 work=$4
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: process tasks need root (the runner mounts its emulator's nodes with FUSE)"
    exit 77
fi
if [ ! -c /dev/fuse ] || ! grep -qw fuse /proc/filesystems; then
    echo "SKIP: no /dev/fuse or no fuse file system in this kernel"
    exit 77
fi
rm -rf "$work" && mkdir -p "$work"
PATH=$bindir:$PATH
export PATH
"$nvemu" scenario run "$scenario" --quiet --csv --out "$work/a" 2>"$work/a.err"
rc=$?
if [ $rc -eq 3 ] && grep -q "served through FUSE" "$work/a.err"; then
    echo "SKIP: $(grep -m1 'served through FUSE' "$work/a.err")"
    exit 77
fi
[ $rc -eq 0 ] || { cat "$work/a.err"; echo "first run: exit $rc"; exit 1; }
"$nvemu" scenario run "$scenario" --quiet --csv --out "$work/b" || { echo "second run failed"; exit 1; }
cmp "$work/a/trace.csv" "$work/b/trace.csv" || { echo "two runs of $scenario differ"; exit 1; }
# The external processes did the work: their request marks are in the trace.
grep -q ',req_done,' "$work/a/trace.csv" || { echo "no request completed"; exit 1; }
cat >"$work/broken.yaml" <<YAML
name: broken
duration: 10ms
tasks:
  - {name: x, class: BE, process: {binary: /bin/true}}
YAML
"$nvemu" scenario run "$work/broken.yaml" --quiet 2>"$work/broken.err"
rc=$?
[ $rc -eq 3 ] || { echo "a task that never reports ready: exit $rc, expected 3"; exit 1; }
grep -q "exited with status 0 before it was ready" "$work/broken.err" || { cat "$work/broken.err"; exit 1; }
# A task process that dies mid-run: reported killed, its request in flight failed, nothing lost, the
# other process carries on to the end; the run itself fails (exit 3) with the reason.
cat >"$work/crash.yaml" <<YAML
name: crash
duration: 1s
warmup: 100ms
tasks:
  - {name: lc, class: LC, process: {binary: nvemu-ext-task, args: [--rate, "100", --kernel, 100us, --repeat, "4"]}}
  - name: be
    class: BE
    process: {binary: nvemu-ext-task, args: [--rate, "0", --kernel, 1ms, --repeat, "5", --exit-at, 500500us]}
YAML
"$nvemu" scenario run "$work/crash.yaml" --quiet --out "$work/crash" 2>"$work/crash.err"
rc=$?
[ $rc -eq 3 ] || { cat "$work/crash.err"; echo "crashing task: exit $rc, expected 3"; exit 1; }
grep -q "process [0-9]* exited with status 3" "$work/crash.err" || { cat "$work/crash.err"; exit 1; }
flat=$(tr -d ' \t\n' <"$work/crash/results.json")
be=$(echo "$flat" | grep -o '"name":"be"[^}]*')
lc=$(echo "$flat" | grep -o '"name":"lc"[^}]*')
echo "$be" | grep -q '"failed":1,' || { echo "be: $be"; echo "expected 1 failed request"; exit 1; }
echo "$be" | grep -q '"lost":0,' || { echo "be: $be"; echo "expected nothing lost"; exit 1; }
echo "$lc" | grep -q '"completed":90,' || { echo "lc: $lc"; echo "lc should complete all 90 measured requests"; exit 1; }
echo "ok: $(grep -o '"trace_digest":[[:space:]]*"[^"]*"' "$work/a/results.json")"
