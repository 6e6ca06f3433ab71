#!/bin/sh
# Checks `nvemu record` end to end without a GPU: the probe issues RM-shaped ioctls on a temp file
# the recorder is told to match; every line must be in the shared trace format.
set -eu
NVEMU=$1 PROBE=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
NVEMU_RECORD_MATCH="$dir/fake" "$NVEMU" record -o "$dir/t.log" -- "$PROBE" "$dir/fake" >"$dir/out"
fail() { echo "record_selftest: $*"; cat "$dir/t.log"; exit 1; }
[ "$(cat "$dir/out")" = "-1 -1 -1 -1 -1" ] || fail "probe output: $(cat "$dir/out")"
[ "$(wc -l <"$dir/t.log")" -eq 5 ] || fail "expected 5 lines"
grep -q '^IOCTL tid=[0-9]* fd=[0-9]* path=.*/fake req=0xc020462a nr=0x2a size=32 ret=-1 errno=25 us=[0-9.]* t=[0-9]* CTRL hClient=0xc1d00001 hObject=0x5c000015 cmd=0xa06c0104 flags=0x0 psize=8 status=0x0 in=0100d0c1150000' "$dir/t.log" || fail "CTRL line"
grep -q ' pin=0004000000000000 pout=0004000000000000$' "$dir/t.log" || fail "pin/pout"
grep -q ' ALLOC64 hRoot=0xc1d00001 hParent=0x5c000002 hNew=0x5c000015 class=0xa06c psize=0 flags=0x0 status=0x0 in=.* out=.* aparams=0000000000000000000000000100000000000000$' "$dir/t.log" || fail "ALLOC64 aparams"
grep -q ' FREE hRoot=0xc1d00001 hParent=0xc1d00001 hObj=0x5c000015 status=0x0 in=0100d0c10100d0c115000' "$dir/t.log" || fail "FREE line"
[ "$(grep -c ' pin=' "$dir/t.log")" -eq 2 ] || fail "bad params pointer must give no pin"
# the list behind GET_SURFACE_INFO's pointer (three {index, data} pairs), before and after the call
grep -q ' cmd=0x410110 .* pout=0300000000000000[0-9a-f]\{16\} ein=020000000000000003000000000000000900000000000000 eout=020000000000000003000000000000000900000000000000$' "$dir/t.log" || fail "embedded list"
# one monotonic clock: the calls' times never go back
awk '{for (i = 1; i <= NF; i++) if ($i ~ /^t=/) { t = substr($i, 3) + 0; if (t < last) exit 1; last = t }}' "$dir/t.log" || fail "t= goes back"
echo "record_selftest: ok"
