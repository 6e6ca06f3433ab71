#!/bin/sh
# A trace recorded on another board of a profile's kind differs from the profile only in per-board answers:
# replay classes them as board identity (exit 0, 0 mismatches, each such line named), and the profile
# 'nvemu profile from-trace' derives from the trace replays it with neither mismatches nor identity lines.
# usage: board_identity.sh NVEMU TRACE WORKDIR
set -u
nvemu=$1 trace=$2 work=$3
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$nvemu" replay --profile h200-2b42 "$trace" >"$work/base.out" 2>&1 || fail "replay on h200-2b42 exited $?: $(cat "$work/base.out")"
grep -q ' 0 mismatches' "$work/base.out" || fail "per-board answers counted as mismatches: $(cat "$work/base.out")"
grep -q '^line [0-9]*: board identity (GPU UUID): control 0x2080014a' "$work/base.out" || fail "UUID not classed"
grep -q '^line [0-9]*: board identity (floorsweeping: TPC mask)' "$work/base.out" || fail "TPC mask not classed"
grep -q '^board identity: [1-9][0-9]* calls' "$work/base.out" || fail "no board identity summary"

"$nvemu" profile from-trace "$trace" -o "$work/derived.yaml" 2>"$work/derive.err" || fail "from-trace: $(cat "$work/derive.err")"
grep -q 'over the profile h200-2b42' "$work/derive.err" || fail "base profile not the trace's kind: $(cat "$work/derive.err")"
grep -q '^uuid: GPU-a011e0d6-1b98-e6b0-' "$work/derived.yaml" || fail "derived UUID is not the trace's board"
"$nvemu" replay --profile "$work/derived.yaml" "$trace" >"$work/derived.out" 2>&1 ||
  fail "replay on the derived profile exited $?: $(cat "$work/derived.out")"
grep -q ' 0 mismatches' "$work/derived.out" || fail "derived profile: $(cat "$work/derived.out")"
! grep -q 'board identity' "$work/derived.out" || fail "derived profile still another board: $(cat "$work/derived.out")"
echo "board identity classed; derived profile reproduces the board"
