#!/bin/sh
# report.html in a real browser (headless Chromium): the page loads without a console or script error, shows
# the expected parts (task table with vs-alone ratios, over-time chart with each task's throughput, overview and
# zoomed timelines,
# CDF and tail CDF), a run that could not start says so; a screenshot is left in WORKDIR as an artifact.
# The layout as drawn (report_layout.js, run in the page): no two labels of a chart collide, no label is cut
# by its chart's edge, the zoomed timeline shows the interval its overview marks and is really zoomed; for
# SCENARIO and for faults.yaml beside it (preempt timeouts, BUSY_RETRY), the labels of a sweep's page and of
# `scenario compare --html`'s page (two seeds of SCENARIO, their reports in iframes).
# Skips (77) where no chromium is installed (ci/install-deps installs it).
# usage: report_browser.sh NVEMU SCENARIO WORKDIR
set -u
nvemu=$1 sc=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "SKIP: no chromium (apt-get install chromium)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
"$nvemu" scenario run "$sc" --quiet --out "$work/run" || fail "the scenario run failed"
run_browser() { # OUTFILE ARGS...
  out=$1; shift
  timeout 120 "$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
    --allow-file-access-from-files \
    --enable-logging=stderr --v=0 "$@" >"$out" 2>"$out.log"
}
run_browser "$work/dom.html" --dump-dom "file://$work/run/report.html" || { cat "$work/dom.html.log"; fail "chromium"; }
if grep -E 'CONSOLE|Uncaught|SyntaxError' "$work/dom.html.log"; then fail "console or script error in report.html"; fi
for id in tasks over-time throughput timeline-overview timeline-zoom cdf cdf-tail; do
  grep -q "id=\"$id\"" "$work/dom.html" || fail "report.html shows no #$id"
done
grep -q 'p99 vs alone' "$work/dom.html" || fail "no vs-alone ratio in the task table"
here=$(dirname "$0")
layout_check() { # NAME RUN_DIR
  { cat "$2/report.html"; echo '<script>'; cat "$here/report_layout.js"; echo '</script>'; } >"$2/layout.html"
  run_browser "$work/$1.layout" --window-size=1250,2900 --dump-dom "file://$2/layout.html" || fail "chromium ($1 layout)"
  verdict=$(sed -n '/<pre id="layout-check">/,/<\/pre>/p' "$work/$1.layout" | sed 's/<[^>]*>//g')
  [ "$verdict" = "ok" ] || fail "$1 report.html layout: $verdict"
}
layout_check main "$work/run"
"$nvemu" scenario run "$(dirname "$sc")/faults.yaml" --quiet --out "$work/faults" 2>/dev/null || fail "faults.yaml run"
layout_check faults "$work/faults"
# sweep.html's small multiples: tick labels of large values (requests, events) inside their panels
# (exit 1: a point failed an expectation, as a 1 s run of SCENARIO may)
"$nvemu" scenario sweep "$sc" --set policy.args.be_us=1,2048 --set duration=1s --out "$work/sweep" >/dev/null 2>&1
[ $? -le 1 ] || fail "the sweep did not run"
cp "$work/sweep/sweep.html" "$work/sweep/report.html"
layout_check sweep "$work/sweep"
# compare.html: its own charts' labels; both runs' report.html beside it in iframes (layout.html is written
# next to it, so the iframes' relative paths hold)
"$nvemu" scenario run "$sc" --quiet --seed 2 --out "$work/run2" || fail "the second run failed"
mkdir -p "$work/compare"
"$nvemu" scenario compare "$work/run" "$work/run2" --html "$work/compare/report.html" >/dev/null 2>&1
[ $? -le 1 ] || fail "compare --html"
layout_check compare "$work/compare"
grep -q '<iframe id="report-b" src="../run2/report.html"' "$work/compare.layout" || fail "compare.html shows no report of B"
run_browser "$work/shot.out" --window-size=1250,2900 --screenshot="$work/report.png" "file://$work/run/report.html"
[ -s "$work/report.png" ] || fail "no screenshot"
# A run that could not start: one message, no empty tables.
sed 's/^  plugin: .*/  plugin: no-such-policy/' "$sc" >"$work/broken.yaml"
"$nvemu" scenario run "$work/broken.yaml" --quiet --out "$work/broken" 2>/dev/null
run_browser "$work/broken.html" --dump-dom "file://$work/broken/report.html" || fail "chromium (broken run)"
grep -q 'id="not-started"' "$work/broken.html" || fail "a run that could not start does not say so"
! grep -q 'id="tasks"' "$work/broken.html" || fail "a run that could not start shows empty tables"
echo "report.html: no script errors, every part present, labels clear, zoom consistent; screenshot $work/report.png"
