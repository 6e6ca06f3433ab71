#!/bin/sh
# The held-out board (programs3-heldout, a third H200): its SM order, shifted by its own floorsweeping, is board
# identity on h200-2b42 (0 mismatches), and the profile derived from one program's trace answers another program
# of that board exactly (no call classed as another board's).
set -u
nvemu=$1 dir=$2 work=$3
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$nvemu" replay --profile h200-2b42 "$dir/trace-fft-gemm-fp16.log.gz" >"$work/base.out" 2>&1 ||
    fail "replay on h200-2b42 exited $?: $(tail -3 "$work/base.out")"
grep -q ' 0 mismatches' "$work/base.out" || fail "per-board answers counted as mismatches: $(grep line "$work/base.out")"
grep -q '^line 73: board identity (floorsweeping: SM order): control 0x2080121b' "$work/base.out" ||
    fail "SM order not classed as board identity"
"$nvemu" profile from-trace "$dir/trace-fft-gemm-fp16.log.gz" -o "$work/derived.yaml" 2>"$work/derive.err" ||
    fail "from-trace: $(cat "$work/derive.err")"
"$nvemu" replay --profile "$work/derived.yaml" "$dir/trace-jax-mlp-grad.log.gz" >"$work/jax.out" 2>&1 ||
    fail "replay of another program on the derived profile exited $?"
grep -q '^replay: 526 calls, 0 mismatches' "$work/jax.out" || fail "derived profile: $(grep '^replay' "$work/jax.out")"
if grep -q 'board identity' "$work/jax.out"; then fail "derived profile still answers another board's values"; fi
echo "held-out board: SM order is board identity; its derived profile answers another program of the board exactly"
