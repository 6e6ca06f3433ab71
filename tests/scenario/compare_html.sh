#!/bin/sh
# compare_html.sh NVEMU RECORDINGS SCENARIOS WORKDIR: a hardware recording (RECORDINGS/NAME: results.json, no
# report.html) against the emulator's run of the same scenario (SCENARIOS/NAME.yaml, an --out directory) with
# and without --html: the same table and exit status; the page names both backends, the GPU and the driver,
# has a row for each row of the table, marked when the table says DIFF, B's report.html in an iframe by its
# path from the page and a note for A. A page that cannot be written: exit 2, the table still printed.
set -u
nvemu=$1 rec=$2 scs=$3 work=$4
name=v06-gpreempt-1be-lcM-poisson200
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/pages"
"$nvemu" scenario run "$scs/$name.yaml" --quiet --out "$work/emu" || fail "the emulator run failed"
# tolerance 0: every row that is not equal differs, so both markings show
"$nvemu" scenario compare "$rec/$name" "$work/emu" --tolerance 0 >"$work/plain.txt"
plain=$?
"$nvemu" scenario compare "$rec/$name" "$work/emu" --tolerance 0 --html "$work/pages/compare.html" >"$work/html.txt"
html=$?
[ $plain -eq 1 ] || fail "expected exit 1 at tolerance 0, got $plain"
[ $html -eq $plain ] || fail "exit $plain without --html, $html with it"
cmp -s "$work/plain.txt" "$work/html.txt" || fail "the table differs with --html"
page=$work/pages/compare.html
for s in '<td>hw</td><td>emulator</td>' '<td>NVIDIA H200</td><td>-</td>' '<td>580.159.04</td>' \
         "<td>$name</td><td>$name</td>" 'ns_per_round' 'id="no-report-a"' \
         '<iframe id="report-b" src="../emu/report.html"'; do
  grep -qF "$s" "$page" || fail "no '$s' in the page"
done
rows=$(awk '$1 ~ /\./ && NF >= 5 { print $1 }' "$work/plain.txt")
[ -n "$rows" ] || fail "no metric rows in the table"
for m in $rows; do
  tr=$(grep -F "data-metric=\"$m\"" "$page") || fail "no row $m in the page"
  if grep -q "^$m .* DIFF" "$work/plain.txt"; then
    echo "$tr" | grep -q '<tr class="row[a-z ]* bad"' || fail "$m differs but is not marked"
  else
    echo "$tr" | grep -q ' bad"' && fail "$m is within tolerance but marked"
  fi
done
[ "$(grep -c 'data-metric=' "$page")" -eq "$(echo "$rows" | wc -l)" ] || fail "the page has other rows than the table"
grep -q ' DIFF' "$work/plain.txt" || fail "no row differs: the marking is untested"
"$nvemu" scenario compare "$rec/$name" "$work/emu" --tolerance 0 --html "$work/no-such-dir/compare.html" \
  >"$work/unwritable.txt" 2>"$work/unwritable.err"
rc=$?
[ $rc -eq 2 ] || fail "expected exit 2 for a page that cannot be written, got $rc"
grep -q 'cannot write the --html page' "$work/unwritable.err" || fail "no message for the unwritable page"
cmp -s "$work/plain.txt" "$work/unwritable.txt" || fail "no table when the page cannot be written"
echo ok
