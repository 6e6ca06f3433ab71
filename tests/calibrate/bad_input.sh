#!/bin/sh
# bad_input.sh NVEMU OUT: what `nvemu calibrate` says to input it cannot use: --hw with --from, or neither, is a usage
# error (2); a directory without recordings, a missing directory and a results.json that is not one are refused
# (3) with a message naming the problem, and no profile is written.
set -u
nvemu=$1 out=$2
rm -rf "$out" && mkdir -p "$out/empty" "$out/bad/x-switch-smem0"
fail=0
expect() { # expect STATUS PATTERN ARGS...
  want=$1 pat=$2; shift 2
  "$nvemu" calibrate "$@" --out "$out/p.yaml" > "$out/msg" 2>&1
  got=$?
  if [ $got -ne "$want" ] || ! grep -q "$pat" "$out/msg"; then
    echo "calibrate $*: exit $got (want $want), message: $(cat "$out/msg")"; fail=1
  fi
  [ ! -e "$out/p.yaml" ] || { echo "calibrate $*: wrote a profile"; fail=1; rm -f "$out/p.yaml"; }
}
expect 2 "give --hw or --from" --hw --from "$out/empty"
expect 2 "give --hw or --from"
expect 3 "no recording of an experiment" --from "$out/empty"
expect 3 "not a directory" --from "$out/missing"
echo '{"tasks": 3}' > "$out/bad/x-switch-smem0/results.json"
expect 3 "not a results.json" --from "$out/bad"
expect 2 "unknown profile" --from "$out/empty" --base no-such-gpu
exit $fail
