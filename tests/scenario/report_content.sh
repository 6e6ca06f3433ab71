#!/bin/sh
# What report.html and junit.xml tell a policy author beyond the numbers:
#   a run with a warning (the livelock scenario: BE starves) shows it in a box on the page and in junit.xml's
#   system-err, and a task that completed nothing shows a dash, not "0 ns", for its latencies;
#   a BPF policy's run has the decisions table (per task, hook, field, result), the maps at the end and its
#   printk lines whole (longer than the 32 characters a timeline event keeps);
#   a run with faults lists each fault event and marks it on the over-time chart; a run without a policy says
#   so where the decisions would be.
# usage: report_content.sh NVEMU SCENARIOS_DIR WORKDIR
set -u
nvemu=$1 dir=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$nvemu" scenario run "$dir/gpreempt-livelock.yaml" --quiet --out "$work/livelock" >/dev/null 2>&1
[ $? -le 1 ] || fail "livelock run"
grep -A2 'id="warnings"' "$work/livelock/report.html" | grep -q '<li>BE task .*be.* completes' ||
  fail "no warning box in the livelock report"
grep -q '<system-err>warning: BE task' "$work/livelock/junit.xml" || fail "no warning in junit.xml"
grep '<tr><td>be</td>' "$work/livelock/report.html" | grep -q '<td>0</td><td>0</td><td>&ndash;</td><td>&ndash;</td><td>&ndash;</td>' ||
  { grep '<tr><td>be</td>' "$work/livelock/report.html"; fail "a task with no completed request does not show a dash"; }
"$nvemu" scenario run "$dir/gpu-ext-bpf.yaml" --quiet --out "$work/bpf" >/dev/null 2>&1
[ $? -le 1 ] || fail "gpu-ext-bpf run"
grep -q '<table id="decisions">' "$work/bpf/report.html" || fail "no decisions table"
grep -q '<td>task_init</td><td>timeslice</td><td>apply</td>' "$work/bpf/report.html" || fail "no task_init row"
grep -q '<pre id="policy-maps">' "$work/bpf/report.html" || fail "no maps"
grep -q 'process_timeslice' "$work/bpf/report.html" || fail "the maps lack process_timeslice"
grep -q 'task_init tsg [0-9]* be-train: timeslice 200 us' "$work/bpf/report.html" || fail "printk lines cut or missing"
"$nvemu" scenario run "$dir/faults.yaml" --quiet --out "$work/faults" >/dev/null 2>&1
[ $? -le 1 ] || fail "faults run"
grep -q '<table id="fault-events">' "$work/faults/report.html" || fail "no fault events"
sed -n '/<svg id="over-time"/,/<\/svg>/p' "$work/faults/report.html" | grep -q 'class="fault-marker"' ||
  fail "no fault marker on the over-time chart"
"$nvemu" scenario run "$dir/lc-alone.yaml" --quiet --out "$work/native" >/dev/null 2>&1 || fail "lc-alone run"
grep -q 'id="decisions" class="meta">No policy' "$work/native/report.html" || fail "a run without policy says nothing"
! grep -q 'id="warnings"' "$work/native/report.html" || fail "a warning box without warnings"
echo "report content: warnings, dashes, decisions, maps, printk, faults"
