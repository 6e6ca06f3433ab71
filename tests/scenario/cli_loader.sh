#!/bin/sh
# What `nvemu scenario check|run` does with files the loader refuses or warns about: '-' reads standard
# input; a directory and a FIFO are refused at once (no hang); a schema error with --junit still writes a
# failing testcase carrying file:line:column; a scenario without expectations gets a warning; check
# loads the policy plugin with its arguments and names the line of the refused one.
# usage: cli_loader.sh NVEMU SCENARIO WORKDIR
set -u
nvemu=$1 sc=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$nvemu" scenario check - <"$sc" >"$work/stdin.out" 2>&1 || { cat "$work/stdin.out"; fail "check - (stdin)"; }
grep -q '^-: ok' "$work/stdin.out" || fail "check - did not report '-: ok'"
"$nvemu" scenario check "$work" 2>"$work/dir.err"
[ $? -eq 2 ] && grep -q 'is a directory' "$work/dir.err" || fail "a directory as FILE"
mkfifo "$work/fifo.yaml"
timeout 10 "$nvemu" scenario check "$work/fifo.yaml" 2>"$work/fifo.err"
[ $? -eq 2 ] && grep -q 'is a FIFO' "$work/fifo.err" || fail "a FIFO as FILE"
printf 'name: bad\nduration: 1s\ncolour: red\n' >"$work/bad.yaml"
"$nvemu" scenario run "$work/bad.yaml" --quiet --junit "$work/bad.xml" 2>/dev/null
[ $? -eq 2 ] || fail "a schema error is not exit 2"
grep -q '<failure message=".*bad.yaml:3:1: unknown key' "$work/bad.xml" || fail "no failing testcase in the junit file"
printf 'name: quiet\nduration: 10ms\ntasks:\n  - {name: lc, class: LC, arrival: {type: periodic, rate: 100}, request: {kernels: [{duration: 1ms}]}}\n' \
  >"$work/noexp.yaml"
"$nvemu" scenario check "$work/noexp.yaml" 2>"$work/noexp.err" >/dev/null || fail "check of a scenario without expectations"
grep -q 'warning: no expectations' "$work/noexp.err" || fail "no warning for a scenario without expectations"
printf 'name: args\nduration: 10ms\npolicy: {plugin: lc_be_timeslice, args: {bogus: 1}}\ntasks:\n  - {name: lc, class: LC, arrival: {type: periodic, rate: 100}, request: {kernels: [{duration: 1ms}]}}\n' \
  >"$work/args.yaml"
"$nvemu" scenario check "$work/args.yaml" 2>"$work/args.err" >/dev/null
[ $? -eq 2 ] && grep -q "args.yaml:3:18: policy 'lc_be_timeslice': .*unknown argument 'bogus'" "$work/args.err" ||
  { cat "$work/args.err"; fail "check accepted a plugin argument the plugin refuses"; }
# typed policy arguments: a bad one is refused before anything runs, naming it, on every surface
"$nvemu" scenario run "$work/noexp.yaml" --quiet --out "$work/typed" --junit "$work/typed.xml" \
  --policy lc_be_timeslice.bpf.o --policy-arg budget=abc 2>"$work/typed.err" >/dev/null
[ $? -eq 2 ] && grep -q "policy 'lc_be_timeslice.bpf.o': budget='abc' is not a positive number" "$work/typed.err" ||
  { cat "$work/typed.err"; fail "--policy-arg budget=abc was not refused naming budget"; }
grep -q "budget='abc' is not a positive number" "$work/typed.xml" || fail "no failing testcase for a bad --policy-arg"
"$nvemu" scenario run "$work/noexp.yaml" --quiet --out "$work/typed" --policy lc_be_timeslice.bpf.o \
  --policy-arg lc=lc 2>"$work/typed2.err" >/dev/null
[ $? -eq 2 ] && grep -q "unknown argument 'lc=lc' (accepted: rodata:NAME=VALUE, map:NAME\[KEY\]=VALUE" "$work/typed2.err" ||
  { cat "$work/typed2.err"; fail "a plugin's KEY=VALUE given to an object was not refused with the object's table"; }
"$nvemu" policy lc_be_timeslice.bpf.o driver_abi=K9 >"$work/typed3.out" 2>&1
[ $? -eq 1 ] && grep -q "refused: driver_abi='K9' is not one of K1, K2, K3, K4" "$work/typed3.out" ||
  { cat "$work/typed3.out"; fail "nvemu policy accepted driver_abi=K9"; }
printf 'name: typed\nduration: 10ms\npolicy: {bpf: lc_be_timeslice, driver_abi: K9}\ntasks:\n  - {name: lc, class: LC, arrival: {type: periodic, rate: 100}, request: {kernels: [{duration: 1ms}]}}\n' \
  >"$work/typed.yaml"
"$nvemu" scenario check "$work/typed.yaml" 2>"$work/typed4.err" >/dev/null
[ $? -eq 2 ] && grep -q "typed.yaml:3:44: policy.driver_abi: driver_abi='K9' is not one of K1, K2, K3, K4" "$work/typed4.err" ||
  { cat "$work/typed4.err"; fail "policy.driver_abi: K9 was not refused at its position"; }
echo "cli loader: stdin, directory, FIFO, junit on schema error, no-expectation warning, plugin args, typed policy args"
