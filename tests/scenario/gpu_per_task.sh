#!/bin/sh
# tasks[].gpu places a task's contexts on one GPU of a multi-GPU profile (here `base: h200` with gpu_count: 2):
# LC on GPU 0 and BE on GPU 1 never meet (LC p99 equals its run alone; each GPU's GR0 runs one task's kernels,
# named GPU0.GR0 and GPU1.GR0); the same BE on GPU 0 does slow LC down; a GPU the profile lacks is refused
# by check with the task's line (exit 2).
# usage: gpu_per_task.sh NVEMU WORKDIR
set -u
nvemu=$1 work=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
printf 'base: h200\nname: h200x2\ngpu_count: 2\n' >"$work/two.yaml"
scenario() { # BE_GPU PROFILE
  printf 'name: two-gpus\nduration: 1s\nwarmup: 100ms\nbaseline: true\ngpu: {profile: %s}\ntasks:\n' "$2"
  printf '  - name: lc\n    class: LC\n    arrival: {type: poisson, rate: 100}\n'
  printf '    request: {kernels: [{duration: 100us, blocks: 264, repeat: 16}]}\n'
  printf '  - name: be\n    class: BE\n    gpu: %s\n    arrival: {type: closed}\n' "$1"
  printf '    request: {kernels: [{duration: 200us, blocks: 1056, repeat: 25}]}\n'
  printf 'expect:\n  - latency: {task: lc, stat: p99, max_vs_alone: 1.05}\n'
}
scenario 1 "$work/two.yaml" >"$work/apart.yaml"
scenario 0 "$work/two.yaml" >"$work/shared.yaml"
scenario 1 h200 >"$work/missing.yaml"
"$nvemu" scenario run "$work/apart.yaml" --no-color --out "$work/apart" >"$work/apart.log" 2>&1 ||
  { cat "$work/apart.log"; fail "LC and BE on two GPUs: LC p99 is not its run alone"; }
grep -q '^GPU0.GR0 ' "$work/apart.log" && grep -q '^GPU1.GR0 ' "$work/apart.log" || fail "engines not named by GPU"
"$nvemu" scenario run "$work/shared.yaml" --quiet >/dev/null 2>&1
[ $? -eq 1 ] || fail "LC and BE on one GPU: LC p99 unchanged"
"$nvemu" scenario check "$work/missing.yaml" 2>"$work/missing.err"
[ $? -eq 2 ] && grep -q "missing.yaml:1[0-9]:.*task 'be': gpu 1, but profile 'h200' has 1 GPU" "$work/missing.err" ||
  { cat "$work/missing.err"; fail "a GPU the profile lacks"; }
echo "gpu per task: apart, shared, refused"
