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
echo "cli loader: stdin, directory, FIFO, junit on schema error, no-expectation warning, plugin args"
