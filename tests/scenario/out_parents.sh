#!/bin/sh
# out_parents.sh NVEMU SCENARIO WORK: `scenario run --out a/b/c` and `scenario sweep --out a/b/c` both create the
# missing parents (one mkdir -p, base/util.h), and both refuse a regular file given as --out (exit 2).
set -u
nvemu=$1 sc=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$nvemu" scenario run "$sc" --quiet --out "$work/run/a/b/c"
[ $? -le 1 ] || { echo "run --out a/b/c failed"; exit 1; }
[ -s "$work/run/a/b/c/results.json" ] || { echo "run wrote no results.json under a/b/c"; exit 1; }
"$nvemu" scenario sweep "$sc" --set seed=1,2 --jobs 1 --out "$work/sweep/a/b/c" > /dev/null
[ $? -le 1 ] || { echo "sweep --out a/b/c failed"; exit 1; }
[ -s "$work/sweep/a/b/c/sweep.csv" ] || { echo "sweep wrote no sweep.csv under a/b/c"; exit 1; }
: > "$work/file"
"$nvemu" scenario run "$sc" --quiet --out "$work/file" 2> /dev/null; r1=$?
"$nvemu" scenario sweep "$sc" --set seed=1,2 --out "$work/file" 2> /dev/null; r2=$?
[ $r1 -eq 2 ] && [ $r2 -eq 2 ] || { echo "a file as --out: run exit $r1, sweep exit $r2 (want 2)"; exit 1; }
echo "ok: both create parents, both refuse a file"
