#!/bin/sh
# Every shipped GPU profile (Volta to Hopper) runs every bundled scenario: exit 0 or 1 (it ran; expectations are
# tuned for the scenario's own profile). A refusal (exit 3), a usage or validation error (exit 2) or a crash
# fails, naming the pair and what the run said.
# usage: profile_matrix.sh NVEMU PROFILES_DIR SCENARIOS_DIR WORKDIR
set -u
nvemu=$1 profiles=$2 scenarios=$3 work=$4
mkdir -p "$work"
bad=0 ran=0
for pf in "$profiles"/*.yaml; do
  p=$(basename "$pf" .yaml)
  for sc in "$scenarios"/*.yaml; do
    s=$(basename "$sc" .yaml)
    "$nvemu" scenario run "$sc" --profile "$p" --quiet >/dev/null 2>"$work/$p-$s.err"
    rc=$?
    case $rc in
      0|1) ran=$((ran + 1)) ;;
      *) echo "FAIL: $p x $s: exit $rc: $(cat "$work/$p-$s.err")"; bad=1 ;;
    esac
  done
done
echo "profile x scenario: $ran ran"
exit $bad
