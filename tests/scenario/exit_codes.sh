#!/bin/sh
# One exit-code rule for every command: a usage error or invalid input is 2, before anything runs. Checked
# for an unknown --profile on every command that takes one, an unknown option on every command, and a
# missing FILE; `nvemu profile` and `nvemu init` follow the same rule.
# usage: exit_codes.sh NVEMU SCENARIO TRACE WORKDIR
set -u
nvemu=$1 sc=$2 trace=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
expect2() { # WHAT ARGS...
  what=$1; shift
  timeout 60 "$nvemu" "$@" >"$work/out" 2>"$work/err"
  rc=$?
  [ $rc -eq 2 ] || { cat "$work/err"; fail "$what: exit $rc, not 2 (nvemu $*)"; }
}
expect2 "scenario run, unknown profile" scenario run "$sc" --profile no-such-gpu --quiet
expect2 "scenario check, unknown profile" scenario check "$sc" --profile no-such-gpu
expect2 "scenario sweep, unknown profile" scenario sweep "$sc" --set duration=1s --profile no-such-gpu --out "$work/sw"
expect2 "policy, unknown profile" policy gpreempt lc=a --profile no-such-gpu
expect2 "replay, unknown profile" replay --profile no-such-gpu "$trace"
expect2 "bench, unknown profile" bench --profile no-such-gpu --quick
expect2 "daemon, unknown profile" daemon --mount "$work/mnt" --profile no-such-gpu
expect2 "run, unknown profile" run --profile no-such-gpu -- /bin/true
expect2 "profile show, unknown profile" profile show no-such-gpu
for c in "scenario run" "scenario check" "scenario compare" "scenario sweep" "scenario sweep-merge" policy daemon \
         run status replay record bench bpf profile init; do
  # shellcheck disable=SC2086
  expect2 "$c, unknown option" $c --no-such-option
done
expect2 "scenario run, missing file" scenario run "$work/missing.yaml" --quiet
expect2 "init, no directory" init
mkdir -p "$work/proj" && : >"$work/proj/Makefile"
expect2 "init over an existing file" init c "$work/proj"
echo "exit codes: usage and invalid input are 2 on every command"
