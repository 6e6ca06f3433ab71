#!/bin/sh
# Runs the 60 s virtual-time benchmark scenario and checks its wall time (results.json wall_seconds,
# the run itself without emulator creation) is under 1 s; prints the numbers.
# usage: bench_60s.sh NVEMU SCENARIO WORKDIR check|report   (report: print only)
set -eu
nvemu=$1 scenario=$2 work=$3 mode=${4:-check}
rm -rf "$work"
start=$(date +%s.%N)
"$nvemu" scenario run "$scenario" --quiet --out "$work"
end=$(date +%s.%N)
wall=$(sed -n 's/.*"wall_seconds":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$work/results.json")
events=$(sed -n 's/.*"events":[[:space:]]*\([0-9]*\).*/\1/p' "$work/results.json")
total=$(echo "$end - $start" | bc)
echo "60 s virtual: run ${wall} s wall, process ${total} s wall, ${events} trace events"
if [ "$mode" = check ]; then
    echo "$wall < 1.0" | bc | grep -q 1
fi
