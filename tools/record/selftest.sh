#!/bin/sh
# Checks `nvemu record` end to end without a GPU: the probe issues RM-shaped ioctls on a temp file
# the recorder is told to match; every line must be in the shared trace format.
set -eu
NVEMU=$1 PROBE=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
NVEMU_RECORD_MATCH="$dir/fake" "$NVEMU" record -o "$dir/t.log" -- "$PROBE" "$dir/fake" >"$dir/out"
fail() { echo "record_selftest: $*"; cat "$dir/t.log"; exit 1; }
[ "$(cat "$dir/out")" = "-1 -1 -1 -1" ] || fail "probe output: $(cat "$dir/out")"
[ "$(wc -l <"$dir/t.log")" -eq 4 ] || fail "expected 4 lines"
grep -q '^IOCTL tid=[0-9]* fd=[0-9]* path=.*/fake req=0xc020462a nr=0x2a size=32 ret=-1 errno=25 us=[0-9.]* CTRL hClient=0xc1d00001 hObject=0x5c000015 cmd=0xa06c0104 flags=0x0 psize=8 status=0x0 in=0100d0c1150000' "$dir/t.log" || fail "CTRL line"
grep -q ' pin=0004000000000000 pout=0004000000000000$' "$dir/t.log" || fail "pin/pout"
grep -q ' ALLOC64 hRoot=0xc1d00001 hParent=0x5c000002 hNew=0x5c000015 class=0xa06c psize=0 flags=0x0 status=0x0 in=.* out=.* aparams=0000000000000000000000000100000000000000$' "$dir/t.log" || fail "ALLOC64 aparams"
grep -q ' FREE hRoot=0xc1d00001 hParent=0xc1d00001 hObj=0x5c000015 status=0x0 in=0100d0c10100d0c115000' "$dir/t.log" || fail "FREE line"
[ "$(grep -c ' pin=' "$dir/t.log")" -eq 1 ] || fail "bad params pointer must give no pin"
echo "record_selftest: ok"
