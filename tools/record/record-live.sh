#!/bin/sh
# `nvemu record` against the emulator, then `nvemu replay` of what it wrote: the recorder's lines must be
# what the replay reads, and a trace recorded on the emulator must replay on it without a mismatch.
#   record-live.sh NVEMU PROBE        (needs root and /dev/fuse for `nvemu run`; else exit 77 = skip)
set -u
NVEMU=$1 PROBE=$2
[ "$(id -u)" = 0 ] || { echo "record_live: SKIP: needs root (nvemu run)"; exit 77; }
[ -c /dev/fuse ] || { echo "record_live: SKIP: no /dev/fuse"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "record_live: $*"; cat "$dir/t.log"; exit 1; }
"$NVEMU" run --profile h200 -- "$NVEMU" record -o "$dir/t.log" -- "$PROBE" live >"$dir/out" 2>"$dir/err" ||
    fail "run failed: $(cat "$dir/err")"
[ "$(cat "$dir/out")" = "0/0 0/0 0/0" ] || fail "probe statuses: $(cat "$dir/out")"
grep -q '^IOCTL tid=[0-9]* fd=[0-9]* path=/dev/nvidiactl req=0xc030462b nr=0x2b size=48 ret=0 us=[0-9.]* t=[0-9]* ALLOC64 hRoot=0x0 hParent=0x0 hNew=0xc1d[0-9a-f]* class=0x41 ' "$dir/t.log" ||
    fail "client ALLOC64 line"
grep -q ' CTRL hClient=0xc1d[0-9a-f]* hObject=0xc1d[0-9a-f]* cmd=0x201 flags=0x0 psize=128 status=0x0 in=.* pout=' "$dir/t.log" ||
    fail "CTRL line"
"$NVEMU" replay --profile h200 "$dir/t.log" >"$dir/replay" 2>&1 || fail "replay: $(cat "$dir/replay")"
grep -q 'replay: 3 calls, 0 mismatches' "$dir/replay" || fail "replay summary: $(cat "$dir/replay")"
echo "record_live: ok"
