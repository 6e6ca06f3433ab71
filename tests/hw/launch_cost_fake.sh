#!/bin/sh
# launch_cost_fake.sh LAUNCH_COST_C LAUNCH_COST_SH FAKE_LIBCUDA_C LIBTIMESLICE OUT: the launch-cost recorder
# (tools/record/programs/launch_cost.c and launch_cost.sh) against the stand-in libcuda.so.1 (FAKE_LIBCUDA_C): the LC
# writes one line per request after its warm-up with all four variants, the busy and idle groups signal that
# they are ready, bad arguments are refused, and the script runs every configuration once per round in an order
# rotated by one per round. Both are built here without sanitizers, as on a GPU machine (an instrumented stand-in
# would need its runtime first in a program that loads it, and the interposer comes before it there).
set -eu
src=$1 script=$2 fake=$3 lib=$4 out=$5
rm -rf "$out" && mkdir -p "$out/fakedrv"
bin=$out/launch_cost
${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -o "$bin" "$src" -ldl
${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -shared -fPIC -o "$out/fakedrv/libcuda.so.1" "$fake"
export LD_LIBRARY_PATH=$out/fakedrv
fail() { echo "FAIL: $*"; exit 1; }

"$bin" lc 50 0.4 0.2 8 "$out/lc.tsv"
# 0.6 s at 50/s: 30 requests, the first 10 (0.2 s) warm-up
[ "$(tail -n +2 "$out/lc.tsv" | wc -l)" -eq 20 ] || fail "lc: $(tail -n +2 "$out/lc.tsv" | wc -l) requests, not 20"
awk -F'\t' 'NR > 1 && (NF != 15 || $1 < 10 || $10 <= 0 || $8 <= 0) { exit 1 }' "$out/lc.tsv" ||
  fail "lc: a line without 15 columns, a warm-up request or no launch time"
[ "$(tail -n +2 "$out/lc.tsv" | cut -f2 | sort -u | tr -d '\n')" = 0123 ] || fail "lc: not every variant"

"$bin" be 10 0.05 "$out/be.ready" >"$out/be.log"
[ -f "$out/be.ready" ] && grep -q '^BE kernels [1-9]' "$out/be.log" || fail "be: no ready file or no kernels"
"$bin" idle 0.05 "$out/idle.ready"
[ -f "$out/idle.ready" ] || fail "idle: no ready file"

for bad in "lc 0 1 0 8 $out/x" "lc 50 1 0 1 $out/x" "lc 50 1 0 5000 $out/x" "be 0 1 $out/x" "idle 0 $out/x" "run"; do
  rc=0
  "$bin" $bad 2>/dev/null || rc=$?
  [ $rc -eq 2 ] || fail "$bad: exit $rc, not 2"
done

LAUNCH_COST_CONFIGS="alone gpreempt-idle lc1s" LAUNCH_COST_N=8 sh "$script" "$out/rec" "$bin" "$lib" 2 1 >"$out/run.txt"
order=$(sed 's/:.*//' "$out/run.txt" | tr '\n' ' ')
[ "$order" = "alone.r1 gpreempt-idle.r1 lc1s.r1 gpreempt-idle.r2 lc1s.r2 alone.r2 " ] || fail "order: $order"
grep -q ': rc 0 ' "$out/run.txt" && ! grep -v ': rc 0 ' "$out/run.txt" || fail "a run failed: $(cat "$out/run.txt")"
for r in alone.r1 gpreempt-idle.r1 lc1s.r1 gpreempt-idle.r2 lc1s.r2 alone.r2; do
  [ "$(tail -n +2 "$out/rec/$r.tsv" | wc -l)" -eq 50 ] || fail "$r: not 50 requests"
done
echo "ok: launch_cost against the stand-in"
