#!/bin/sh
# The comparison must fail on any difference and pass only allowed ones.
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
here=$(dirname "$0")
printf '# header\na ret=0 errno=0 status=0x00000000\nb ret=0 errno=0 status=0x0000001f\nc.x ret=0 errno=0 status=0x00000000\n' >"$d/hw"
printf '# other header\na ret=0 errno=0 status=0x00000000\nb ret=0 errno=0 status=0x00000056\nc.x ret=0 errno=0 status=0x00000000\n' >"$d/emu"
printf 'b   # why: test\n' >"$d/allow"
: >"$d/none"
fail() { echo "compare_selftest: $*"; exit 1; }
awk -f "$here/compare.awk" -v allow="$d/allow" "$d/hw" "$d/emu" >"$d/o1" || fail "allowed difference must pass"
grep -q '^hwdiff: 3 cases recorded, 2 match, 1 allowed differences, 0 differences$' "$d/o1" || fail "counts: $(cat "$d/o1")"
awk -f "$here/compare.awk" -v allow="$d/none" "$d/hw" "$d/emu" >"$d/o2" && fail "difference must fail"
grep -q '^DIFF b$' "$d/o2" || fail "DIFF line"
grep -v '^c.x' "$d/emu" >"$d/emu2"
awk -f "$here/compare.awk" -v allow="$d/allow" "$d/hw" "$d/emu2" >"$d/o3" && fail "missing case must fail"
printf 'zz ret=0 errno=0 status=0x00000000\n' >>"$d/emu"
awk -f "$here/compare.awk" -v allow="$d/allow" "$d/hw" "$d/emu" >"$d/o4" && fail "extra case must fail"
printf 'c.* # wildcard\nb\n' >"$d/allow2"
sed 's/^c.x ret=0/c.x ret=-1/' "$d/hw" >"$d/emu3"
sed -i 's/^b ret=0 errno=0 status=0x0000001f/b ret=0 errno=0 status=0x00000056/' "$d/emu3"
awk -f "$here/compare.awk" -v allow="$d/allow2" "$d/hw" "$d/emu3" >"$d/o5" || fail "wildcard allow: $(cat "$d/o5")"
echo "compare_selftest: ok"
