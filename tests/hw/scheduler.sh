#!/bin/sh
# scheduler.sh NVEMU RECORDINGS OUT: the GPreempt-style scheduler recorded on the H200 (--hw, its PREEMPT /
# DISABLE_CHANNELS issued on the BE tasks' real channel groups) against the emulator on the same scenario.
# Each recording must show the scheduler's calls answered NV_OK, and the emulator's headline metrics (LC p50
# and p99 relative to alone, BE requests/s) must be within 25% of the hardware's.
set -u
nvemu=$1 rec=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
fails=0
for d in "$rec"/*/; do
  n=$(basename "$d")
  case $n in
    *-preempt|*-disable)
      action=${n##*-}
      if ! grep -Eq "scheduler $action: [1-9][0-9]* calls .* 0 failed" "$d/console.txt"; then
        echo "FAIL $n: the recording shows no $action call answered NV_OK"; fails=$((fails + 1))
      fi ;;
  esac
  "$nvemu" scenario run "$d/scenario.yaml" --quiet --out "$out/$n" >/dev/null 2>&1
  [ $? -le 1 ] || { echo "FAIL $n: the emulator run failed"; fails=$((fails + 1)); continue; }
  if "$nvemu" scenario compare "$d" "$out/$n" --headline --tolerance 0.25 > "$out/$n.txt" 2>&1; then
    echo "ok   $n: $(tail -1 "$out/$n.txt")"
  else
    echo "FAIL $n:"; cat "$out/$n.txt"; fails=$((fails + 1))
  fi
done
exit $((fails > 0))
