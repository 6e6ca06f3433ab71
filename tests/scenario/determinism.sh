#!/bin/sh
# Same scenario + seed => same event trace and same trace.json (Perfetto), byte for byte; another seed =>
# another trace.
# usage: determinism.sh NVEMU SCENARIO WORKDIR
set -eu
nvemu=$1 scenario=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$nvemu" scenario run "$scenario" --quiet --seed 7 --csv --out "$work/a"
"$nvemu" scenario run "$scenario" --quiet --seed 7 --csv --out "$work/b"
"$nvemu" scenario run "$scenario" --quiet --seed 8 --csv --out "$work/c"
cmp "$work/a/trace.csv" "$work/b/trace.csv"
cmp "$work/a/trace.json" "$work/b/trace.json"
test -s "$work/a/trace.csv"
if cmp -s "$work/a/trace.csv" "$work/c/trace.csv"; then
    echo "seed 8 gave the same trace as seed 7" >&2
    exit 1
fi
da=$(grep -o '"trace_digest":[[:space:]]*"[^"]*"' "$work/a/results.json")
db=$(grep -o '"trace_digest":[[:space:]]*"[^"]*"' "$work/b/results.json")
test "$da" = "$db"
echo "deterministic: $da"
