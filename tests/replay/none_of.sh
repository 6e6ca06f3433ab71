#!/bin/sh
# Replays TRACE... (several: the processes of one program, replayed together) and fails when a mismatch line
# matches the extended regular expression PATTERN: what a trace answers exactly must stay so while other
# mismatches of it are still open. A replay that fails to run (exit 2, no summary) fails too.
# usage: none_of.sh NVEMU PATTERN PROFILE TRACE...
set -u
nvemu=$1; pattern=$2; profile=$3
shift 3
out=$("$nvemu" replay --profile "$profile" "$@" 2>&1)
rc=$?
if [ "$rc" -gt 1 ] || ! printf '%s\n' "$out" | grep -q '^replay: [0-9]* calls'; then
    printf '%s\n' "$out" | tail -5
    echo "FAIL: no replay summary (exit $rc)"
    exit 1
fi
bad=$(printf '%s\n' "$out" | grep -v 'board identity' | grep -E "$pattern")
if [ -n "$bad" ]; then
    printf '%s\n' "$bad" | head -20
    echo "FAIL: $(printf '%s\n' "$bad" | wc -l) mismatches match '$pattern'"
    exit 1
fi
echo "ok: no mismatch matches '$pattern'"
