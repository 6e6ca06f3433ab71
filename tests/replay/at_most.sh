#!/bin/sh
# Replays TRACE... (several: the processes of one program, replayed together) and fails when the replay
# has more mismatches than MAX, the count the committed code reaches: a regression guard for traces not yet
# at 0. A replay that fails to run (exit 2, no summary) fails too.
# usage: at_most.sh NVEMU MAX PROFILE TRACE...
set -u
nvemu=$1; max=$2; profile=$3
shift 3
out=$("$nvemu" replay --profile "$profile" "$@" 2>&1)
rc=$?
n=$(printf '%s\n' "$out" | sed -n 's/^replay: [0-9]* calls, \([0-9]*\) mismatches.*/\1/p')
if [ "$rc" -gt 1 ] || [ -z "$n" ]; then
    printf '%s\n' "$out" | tail -5
    echo "FAIL: no replay summary (exit $rc)"
    exit 1
fi
if [ "$n" -gt "$max" ]; then
    printf '%s\n' "$out" | grep -v '^board identity\|coverage' | tail -20
    echo "FAIL: $n mismatches, at most $max expected"
    exit 1
fi
echo "ok: $n mismatches (at most $max)"
