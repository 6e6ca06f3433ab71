#!/bin/sh
# Runs a driver-generation scenario end to end and checks the object's own counters in results.json.
# usage: gen_scenario.sh NVEMU SCENARIO OUTDIR COUNTERS_REGEX
set -e
nvemu=$1 scenario=$2 out=$3 counters=$4
rm -rf "$out"
"$nvemu" scenario run "$scenario" --quiet --out "$out"
flat=$(tr -d ' \t\n' < "$out/results.json")
if ! printf '%s' "$flat" | grep -Eq "$counters"; then
    echo "results.json lacks the counters '$counters':" >&2
    printf '%s' "$flat" | grep -o '"counts":{[^}]*}' >&2 || true
    exit 1
fi
