#!/bin/sh
# A daemon's policy callback that runs long (a BPF loop given a large instruction budget: seconds) is
# stopped at the daemon's wall-clock callback limit: the policy is detached with an error naming the limit,
# and the client's calls are answered natively (rawclient sees the 580 driver's answers and exits 0). With
# the limit off, the same callback runs until its instruction budget ends it: the limit is what acted.
# usage: policy_hook_limit.sh NVEMU RAWCLIENT SLOW_POLICY WORKDIR
set -u
nvemu=$1 client=$2 policy=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
for limit in 100 0; do
  "$nvemu" run --policy "$policy" --policy-arg budget=60000000 --policy-hook-limit $limit -- "$client" \
    >"$work/out-$limit" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { cat "$work/out-$limit"; fail "limit $limit: rawclient exit $rc"; }
done
grep -q "failed, native scheduling from now on: .*wall-clock limit passed" "$work/out-100" ||
  { cat "$work/out-100"; fail "no error naming the wall-clock limit"; }
grep -q "instruction budget of 60000000 exhausted" "$work/out-0" ||
  { cat "$work/out-0"; fail "without a limit the callback did not run to its budget"; }
echo "policy detached at the callback limit; the client was answered"
