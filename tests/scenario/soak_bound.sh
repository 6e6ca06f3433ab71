#!/bin/sh
# A run is bounded by the memory its results need, not by a count of kernel launches: a one-hour soak of
# the bundled LC/BE mix (about 80 million launches, 1.1 million requests) checks; NVEMU_MAX_RUN_MEMORY
# lowers the bound (the same soak refused, naming the variable) and a value that is not a size is refused.
# usage: soak_bound.sh NVEMU SCENARIO WORKDIR
set -u
nvemu=$1 sc=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
sed -e 's/^duration: .*/duration: 3600s/' "$sc" >"$work/soak.yaml"
grep -q '^duration: 3600s' "$work/soak.yaml" || fail "no duration line to replace in $sc"
"$nvemu" scenario check "$work/soak.yaml" >"$work/ok.out" 2>&1 || { cat "$work/ok.out"; fail "a one-hour soak is refused"; }
NVEMU_MAX_RUN_MEMORY=1M "$nvemu" scenario check "$work/soak.yaml" >"$work/low.out" 2>&1
[ $? -eq 2 ] && grep -q 'the run would keep about .* requests.*NVEMU_MAX_RUN_MEMORY' "$work/low.out" ||
  { cat "$work/low.out"; fail "NVEMU_MAX_RUN_MEMORY=1M does not refuse the soak"; }
NVEMU_MAX_RUN_MEMORY=lots "$nvemu" scenario check "$work/soak.yaml" >"$work/bad.out" 2>&1
[ $? -eq 2 ] && grep -q "NVEMU_MAX_RUN_MEMORY='lots' is not a size" "$work/bad.out" || fail "a bad NVEMU_MAX_RUN_MEMORY"
echo "soak: bounded by the memory of its results"
