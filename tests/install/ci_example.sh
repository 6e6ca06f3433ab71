#!/bin/sh
# The sharded-sweep CI example (examples/ci/sweep-sharded.yml) as written: its env values and its two
# commands, taken from the file, run for every shard of its matrix and merged give the same sweep.csv and
# sweep.json as one unsharded run of the same grid.
# usage: ci_example.sh NVEMU WORKFLOW SCENARIO WORKDIR
set -u
nvemu=$1 wf=$2 sc=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/bin" && ln -s "$nvemu" "$work/bin/nvemu" && cp "$sc" "$work/scenario.yaml"
cd "$work" || exit 1
PATH="$work/bin:$PATH"
val() { sed -n "s/^  $1: *//p" "$wf" | head -n1; }
SCENARIO=$(val SCENARIO) SWEEP_ARGS=$(val SWEEP_ARGS) SHARDS=$(val SHARDS)
[ -n "$SCENARIO" ] && [ -n "$SWEEP_ARGS" ] && [ -n "$SHARDS" ] || fail "no SCENARIO/SWEEP_ARGS/SHARDS in $wf"
# the example's grid, a shorter run of each point (the file's own duration is not what is tested here)
SWEEP_ARGS="$SWEEP_ARGS --set duration=600ms --set warmup=100ms"
export SCENARIO SWEEP_ARGS SHARDS
shard_cmd=$(grep -m1 'nvemu scenario sweep "' "$wf" | sed 's/^ *//')
merge_cmd=$(grep -m1 'nvemu scenario sweep-merge' "$wf" | sed 's/^ *//')
[ -n "$shard_cmd" ] && [ -n "$merge_cmd" ] || fail "the workflow lost its sweep or sweep-merge command"
matrix=$(sed -n 's/^ *shard: \[\(.*\)\]/\1/p' "$wf" | tr -d ' ' | tr ',' ' ')
[ "$(echo $matrix | wc -w)" -eq "$SHARDS" ] || fail "the matrix ($matrix) does not have SHARDS=$SHARDS jobs"
for i in $matrix; do
  cmd=$(printf '%s\n' "$shard_cmd" | sed "s/\${{ matrix.shard }}/$i/g")
  sh -c "$cmd" >"shard$i.log" 2>&1 || { cat "shard$i.log"; fail "shard $i: $cmd"; }
done
sh -c "$merge_cmd" >merge.log 2>&1 || { cat merge.log; fail "merge: $merge_cmd"; }
nvemu scenario sweep "$SCENARIO" $SWEEP_ARGS --out whole >whole.log 2>&1
[ $? -le 1 ] || { cat whole.log; fail "the unsharded sweep"; }
cmp sweep/sweep.csv whole/sweep.csv || fail "merged sweep.csv differs from the unsharded run"
cmp sweep/sweep.json whole/sweep.json || fail "merged sweep.json differs from the unsharded run"
echo "CI example: $SHARDS shards merged = the unsharded sweep ($(($(wc -l <whole/sweep.csv) - 1)) points)"
