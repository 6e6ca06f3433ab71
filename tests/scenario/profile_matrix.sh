#!/bin/sh
# Every shipped GPU profile runs every bundled scenario, or the run says why it cannot: exit 0/1 (ran;
# expectations are tuned for the scenario's own profile), or exit 3 with a reason that names the driver
# status (NV_ERR_*), never a bare number. A usage or validation error (exit 2) or a crash fails.
# usage: profile_matrix.sh NVEMU PROFILES_DIR SCENARIOS_DIR WORKDIR
set -u
nvemu=$1 profiles=$2 scenarios=$3 work=$4
mkdir -p "$work"
bad=0 ran=0 refused=0
for pf in "$profiles"/*.yaml; do
  p=$(basename "$pf" .yaml)
  for sc in "$scenarios"/*.yaml; do
    s=$(basename "$sc" .yaml)
    "$nvemu" scenario run "$sc" --profile "$p" --quiet >/dev/null 2>"$work/$p-$s.err"
    rc=$?
    case $rc in
      0|1) ran=$((ran + 1)) ;;
      3) if grep -q 'NV_ERR_[A-Z_]*\|NV_STATUS_0x' "$work/$p-$s.err" || ! grep -q 'status 0x' "$work/$p-$s.err"; then
           refused=$((refused + 1))
         else
           echo "FAIL: $p x $s: a raw status without its name: $(cat "$work/$p-$s.err")"; bad=1
         fi ;;
      *) echo "FAIL: $p x $s: exit $rc: $(cat "$work/$p-$s.err")"; bad=1 ;;
    esac
  done
done
echo "profile x scenario: $ran ran, $refused refused with a reason"
exit $bad
