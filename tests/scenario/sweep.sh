#!/bin/sh
# nvemu scenario sweep: a 3 x 2 x 2-seed grid gives one row per point; the same grid run as 3 shards
# (out of order) and merged is byte-identical to the unsharded run (CSV, JSON and HTML); a run with one
# worker equals one with several (points are independent of scheduling); bad paths, bad shards and an
# --out that is a file are usage errors (exit 2); merging incomplete or foreign shards is refused.
# usage: sweep.sh NVEMU SCENARIO WORKDIR
set -u
nvemu=$1 sc=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
grid="--set tasks.be.count=1,2,3 --set policy.args.be_us=1,2048 --set duration=1s --seeds 2"
# shellcheck disable=SC2086
"$nvemu" scenario sweep "$sc" $grid --out "$work/all" >"$work/all.log" 2>&1
rc=$?
[ $rc -le 1 ] || { cat "$work/all.log"; fail "unsharded sweep: exit $rc"; }
rows=$(($(wc -l <"$work/all/sweep.csv") - 1))
[ "$rows" -eq 12 ] || fail "expected 12 rows, got $rows"
grep -q '^0,1,1,1s,1,' "$work/all/sweep.csv" || fail "point 0 is not (count 1, be_us 1, duration 1s, seed 1)"
grep -q '<svg' "$work/all/sweep.html" || fail "no plot in sweep.html"
for i in 3 1 2; do
  # shellcheck disable=SC2086
  "$nvemu" scenario sweep "$sc" $grid --shard "$i/3" --jobs 1 --out "$work/s$i" >/dev/null 2>&1
  [ $? -le 1 ] || fail "shard $i/3"
done
"$nvemu" scenario sweep-merge --out "$work/merged" "$work/s2" "$work/s3" "$work/s1" >/dev/null
[ $? -le 1 ] || fail "merge"
for f in sweep.csv sweep.json sweep.html; do
  cmp "$work/all/$f" "$work/merged/$f" || fail "merged $f differs from the unsharded run"
done
"$nvemu" scenario sweep-merge --out "$work/partial" "$work/s1" "$work/s2" 2>"$work/partial.err"
[ $? -eq 2 ] && grep -q 'in no shard' "$work/partial.err" || fail "a missing shard was not refused"
"$nvemu" scenario sweep-merge --out "$work/dup" "$work/s1" "$work/s1" "$work/s2" "$work/s3" 2>/dev/null
[ $? -eq 2 ] || fail "a duplicate shard was not refused"
# shellcheck disable=SC2086
"$nvemu" scenario sweep "$sc" --set tasks.nosuch.count=1 --out "$work/bad" 2>"$work/bad.err"
[ $? -eq 2 ] && grep -q "no 'nosuch'" "$work/bad.err" || { cat "$work/bad.err"; fail "a bad --set path"; }
"$nvemu" scenario sweep "$sc" --set duration=1s --shard 4/3 --out "$work/bad" 2>/dev/null
[ $? -eq 2 ] || fail "--shard 4/3 accepted"
: >"$work/file"
"$nvemu" scenario sweep "$sc" --set duration=1s --out "$work/file" 2>/dev/null
[ $? -eq 2 ] || fail "--out naming a file accepted"
echo "sweep: 12 points, shards merge identically"
