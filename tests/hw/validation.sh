#!/bin/sh
# validation.sh NVEMU RECORDINGS SCENARIOS OUT MIN_WITHIN_10PCT MIN_WITHIN_25PCT [PROFILE]
# RECORDINGS holds repeated recordings of the suite with `--hw` (RECORDINGS/rN/NAME/results.json, scenario
# SCENARIOS/NAME.yaml), all of one scenario with the same seed. Runs every recorded scenario once on the emulator
# with the seed of its first recording, compares its headline metrics (LC p50 and p99 relative to alone, BE
# requests/s) with each repeat through `nvemu scenario compare --headline`, and takes the median over the
# repeats of the measured value (the mean of the middle two for an even count) as the hardware's. Writes the
# table predicted vs measured to OUT/table.txt and how far the repeats agree with each other to
# OUT/repeats.txt, and fails when fewer than MIN_WITHIN_10PCT percent of the metrics are within 10% of the
# hardware or fewer than MIN_WITHIN_25PCT within 25% (the floors are what the model reaches today: see
# fixtures/hw/h200-580.159.04/validation/README.md). PROFILE: the GPU profile the emulator runs them on instead
# of the scenarios' own (the board the recordings come from).
set -u
nvemu=$1 rec=$2 scen=$3 out=$4 min10=$5 min25=$6 profile=${7:-}
rm -rf "$out" && mkdir -p "$out"
rows=$out/rows.txt
: > "$rows"
for f in "$scen"/*.yaml; do
  n=$(basename "$f" .yaml)
  first=$(ls "$rec"/r*/"$n"/results.json 2> /dev/null | head -n 1)
  [ -n "$first" ] || continue
  # the hardware ran the arrivals of the seed its results.json names: the emulator runs the same
  seed=$(sed -n 's/^[[:space:]]*"seed":[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$first" | head -n 1)
  "$nvemu" scenario run "$f" --quiet ${profile:+--profile "$profile"} ${seed:+--seed "$seed"} --out "$out/$n" \
      > /dev/null 2>&1
  rc=$?
  [ $rc -le 1 ] || { echo "$n: the emulator could not run it (exit $rc)"; exit 1; }
  for d in "$rec"/r*/"$n"; do
    r=$(basename "$(dirname "$d")")
    "$nvemu" scenario compare "$d" "$out/$n" --headline > "$out/$n.$r.compare.txt"
    [ $? -le 1 ] || { echo "$n: compare with $d failed"; cat "$out/$n.$r.compare.txt"; exit 1; }
    awk -v n="$n" -v r="$r" '/\*$/ {print n, $1, r, $2, $3}' "$out/$n.$r.compare.txt" >> "$rows"
  done
done
[ -s "$rows" ] || { echo "no recorded scenario found in $rec"; exit 1; }
# rows: scenario metric repeat measured predicted (sorted so that one metric's repeats are adjacent, by value)
sort -k1,1 -k2,2 -k4,4g "$rows" | awk -v min10="$min10" -v min25="$min25" -v table="$out/table.txt" \
    -v reps="$out/repeats.txt" '
  function ratio(p, m) { return m == 0 ? (p == 0 ? 1 : 1e9) : p / m }
  function off(r) { return r > 1 ? r - 1 : 1 - r }
  function flush(   h, r, sp) {
    if (k == 0) return
    h = k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
    r = ratio(pred, h)
    printf "%-42s %-20s %10.4g %10.4g %7.3f\n", key1, key2, h, pred, r >> table
    n++; if (off(r) <= 0.10 + 1e-9) a++; if (off(r) <= 0.25 + 1e-9) b++
    if (k > 1) {
      sp = ratio(v[k], v[1])
      printf "%-42s %-20s %10.4g %10.4g %7.3f\n", key1, key2, v[1], v[k], sp >> reps
      m++; if (off(sp) <= 0.10 + 1e-9) c++; if (off(sp) <= 0.25 + 1e-9) d++
    }
    k = 0
  }
  BEGIN {
    printf "%-42s %-20s %10s %10s %7s\n", "scenario", "metric", "measured", "predicted", "pred/meas" > table
    printf "%-42s %-20s %10s %10s %7s\n", "scenario", "metric", "lowest", "highest", "high/low" > reps
  }
  $1 != key1 || $2 != key2 { flush(); key1 = $1; key2 = $2 }
  { v[++k] = $4; pred = $5 }
  END {
    flush()
    if (m)
      printf "hardware repeats: %d of %d metrics agree within 10%% (%.0f%%), %d within 25%% (%.0f%%)\n",
             c, m, 100 * c / m, d, 100 * d / m
    printf "model vs hardware median: %d of %d metrics within 10%% (%.0f%%), %d within 25%% (%.0f%%); floors %d%% and %d%%\n",
           a, n, 100 * a / n, b, 100 * b / n, min10, min25
    exit (100 * a / n + 1e-9 < min10 || 100 * b / n + 1e-9 < min25) ? 1 : 0
  }' > "$out/summary.txt"
status=$? # awk's own status: through a pipe into tee it was tee's, and the floors never failed the test
cat "$out/summary.txt" "$out/table.txt"
exit $status
