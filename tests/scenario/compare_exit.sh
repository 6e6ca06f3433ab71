#!/bin/sh
# compare_exit.sh NVEMU SCENARIO DIR: a run compared with itself exits 0; with a run of another seed at
# tolerance 0 it exits 1 (Poisson arrivals differ); bad input exits 2.
set -u
nvemu=$1 sc=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
"$nvemu" scenario run "$sc" --quiet --seed 1 --out "$dir/a" || exit 1
"$nvemu" scenario run "$sc" --quiet --seed 2 --out "$dir/b" || exit 1
"$nvemu" scenario compare "$dir/a" "$dir/a/results.json" > "$dir/same.txt" || { cat "$dir/same.txt"; exit 1; }
"$nvemu" scenario compare "$dir/a" "$dir/b" --tolerance 0 > "$dir/diff.txt"
rc=$?
[ $rc -eq 1 ] || { echo "expected exit 1 for differing runs, got $rc"; cat "$dir/diff.txt"; exit 1; }
grep -q DIFF "$dir/diff.txt" || { echo "no DIFF row"; exit 1; }
"$nvemu" scenario compare "$dir/a" "$dir/nothing" 2>/dev/null
rc=$?
[ $rc -eq 2 ] || { echo "expected exit 2 for a missing run, got $rc"; exit 1; }
echo ok
