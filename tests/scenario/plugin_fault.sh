#!/bin/sh
# A policy that crashes or hangs inside a hook: the run fails (exit 3) with a message naming the plugin
# and the hook, and results.json and junit.xml are still written and say why (a crash mid-run: with the trace
# up to the crash, its requests and timeline); `--out` naming a file is a
# usage error (exit 2); files of an earlier run in the same --out that this run does not write are removed.
# usage: plugin_fault.sh NVEMU FAULTY_SO WORKDIR
set -u
nvemu=$1 so=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
scenario() { # MODE AT
  cat >"$work/$1-$2.yaml" <<YAML
name: faulty-$1-$2
duration: 50ms
policy: {plugin: $so, args: {mode: $1, at: $2}}
tasks:
  - {name: lc, class: LC, arrival: {type: periodic, rate: 100}, request: {kernels: [{duration: 100us}]}}
expect:
  - lost: {max: 0}
YAML
}
for case in "crash task_init on_task_init" "crash bind on_bind" "hang task_init on_task_init"; do
  set -- $case
  scenario "$1" "$2"
  extra=""
  [ "$1" = hang ] && extra="--timeout 3"
  # shellcheck disable=SC2086
  "$nvemu" scenario run "$work/$1-$2.yaml" --quiet --out "$work/out-$1-$2" --junit "$work/$1-$2.xml" $extra \
    2>"$work/$1-$2.err"
  rc=$?
  [ $rc -eq 3 ] || { cat "$work/$1-$2.err"; fail "$1 in $2: exit $rc, expected 3"; }
  grep -q "policy faulty, hook $3" "$work/$1-$2.err" || { cat "$work/$1-$2.err"; fail "$1 in $2: no plugin/hook named"; }
  grep -q "hook $3" "$work/out-$1-$2/results.json" || fail "$1 in $2: results.json does not say why"
  grep -q "<failure" "$work/$1-$2.xml" || fail "$1 in $2: junit.xml has no failing testcase"
done
grep -q -- "--timeout 3 s" "$work/hang-task_init.err" || fail "the hang is not reported as a timeout"
# a crash mid-run: the message and the report say when (virtual time), not "could not start"
cat >"$work/late.yaml" <<YAML
name: faulty-late
duration: 100ms
policy: {plugin: $so, args: {mode: crash, at: submit, after_ms: 30}}
tasks:
  - {name: lc, class: LC, arrival: {type: periodic, rate: 100}, request: {kernels: [{duration: 100us}]}}
expect:
  - lost: {max: 0}
YAML
"$nvemu" scenario run "$work/late.yaml" --quiet --out "$work/out-late" 2>"$work/late.err"
[ $? -eq 3 ] || fail "a crash mid-run: not exit 3"
grep -q 'hook on_work_submit (task lc) at virtual time 0.03[0-9]* s' "$work/late.err" ||
  { cat "$work/late.err"; fail "a crash mid-run: no virtual time"; }
grep -q '<div id="stopped".*The run stopped at virtual time 3[0-9.]* ms' "$work/out-late/report.html" ||
  { grep -o '<div id="[a-z-]*"[^<]*<b>[^<]*' "$work/out-late/report.html"; fail "report.html does not say when the run stopped"; }
grep -q '"stopped_at_virtual_seconds":[[:space:]]*0.03' "$work/out-late/results.json" || fail "results.json lacks the stop time"
# ... and its reports carry the trace up to the crash: the requests served before it, the timeline
completed=$(sed -n 's/.*"completed":[[:space:]]*\([0-9]*\).*/\1/p' "$work/out-late/results.json" | head -n 1)
[ "${completed:-0}" -ge 2 ] || fail "results.json of a crashed run has ${completed:-no} completed requests, expected >= 2"
grep -q '"virtual_seconds":[[:space:]]*0.03' "$work/out-late/results.json" || fail "results.json: virtual time is not the stop's"
grep -q '"p99":[[:space:]]*[1-9]' "$work/out-late/results.json" || fail "results.json of a crashed run has no latency"
grep -q 'everything below is its trace up to there' "$work/out-late/report.html" ||
  fail "report.html of a crashed run does not say it covers the trace up to the stop"
grep -q 'id="timeline-overview"' "$work/out-late/report.html" || fail "report.html of a crashed run has no timeline"
grep -q 'id="tasks"' "$work/out-late/report.html" || fail "report.html of a crashed run has no task table"
grep -q 'on_work_submit' "$work/out-late/report.html" || fail "report.html of a crashed run does not name the hook"

: >"$work/afile"
"$nvemu" scenario run "$work/crash-bind.yaml" --quiet --out "$work/afile" 2>"$work/afile.err"
[ $? -eq 2 ] || fail "--out naming a file: expected exit 2"
[ "$(wc -l <"$work/afile.err")" -eq 1 ] || { cat "$work/afile.err"; fail "--out naming a file: one message expected"; }
echo stale >"$work/out-crash-bind/trace.csv"
"$nvemu" scenario run "$work/crash-bind.yaml" --quiet --out "$work/out-crash-bind" 2>/dev/null
[ ! -e "$work/out-crash-bind/trace.csv" ] || fail "a stale trace.csv survived a run without --csv"
echo "plugin faults: reported with plugin and hook, reports written"
