#!/bin/sh
# validation.sh NVEMU RECORDINGS SCENARIOS OUT MIN_WITHIN_10PCT MIN_WITHIN_25PCT
# Runs every scenario recorded with `--hw` (RECORDINGS/NAME/results.json, scenario SCENARIOS/NAME.yaml) on the
# emulator and compares the headline metrics (LC p50 and p99 relative to alone, BE requests/s) with
# `nvemu scenario compare --headline`. Writes the table predicted vs measured to OUT/table.txt and fails when
# fewer than MIN_WITHIN_10PCT percent of the metrics are within 10% or fewer than MIN_WITHIN_25PCT within 25%
# (the floors are what the model reaches today: see fixtures/hw/h200-580.159.04/validation/README.md).
set -u
nvemu=$1 rec=$2 scen=$3 out=$4 min10=$5 min25=$6
rm -rf "$out" && mkdir -p "$out"
table=$out/table.txt
printf '%-42s %-20s %10s %10s %7s\n' scenario metric measured predicted pred/meas > "$table"
for d in "$rec"/*/; do
  n=$(basename "$d")
  f=$scen/$n.yaml
  [ -f "$f" ] || continue
  "$nvemu" scenario run "$f" --quiet --out "$out/$n" > /dev/null 2>&1
  rc=$?
  [ $rc -le 1 ] || { echo "$n: the emulator could not run it (exit $rc)"; exit 1; }
  "$nvemu" scenario compare "$d" "$out/$n" --headline > "$out/$n.compare.txt"
  [ $? -le 1 ] || { echo "$n: compare failed"; cat "$out/$n.compare.txt"; exit 1; }
  awk -v n="$n" '/\*$/ {printf "%-42s %-20s %10.4g %10.4g %7.3f\n", n, $1, $2, $3, $4}' "$out/$n.compare.txt" >> "$table"
done
awk -v min10="$min10" -v min25="$min25" 'NR > 1 {
    r = $5; d = r > 1 ? r - 1 : 1 - r; n++; if (d <= 0.10 + 1e-9) a++; if (d <= 0.25 + 1e-9) b++
  }
  END {
    if (n == 0) { print "no recorded scenario found"; exit 1 }
    printf "%d of %d metrics within 10%% (%.0f%%), %d within 25%% (%.0f%%); floors %d%% and %d%%\n",
           a, n, 100 * a / n, b, 100 * b / n, min10, min25
    exit (100 * a / n + 1e-9 < min10 || 100 * b / n + 1e-9 < min25) ? 1 : 0
  }' "$table" | tee "$out/summary.txt"
status=$?
cat "$table"
exit $status
