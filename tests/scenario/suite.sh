#!/bin/sh
# `scenario run DIR|FILE... --out OUT`: a suite. A directory runs its *.yaml in name order, each into OUT/NAME;
# a table names each with its result; OUT/junit.xml (and --junit FILE) holds every run's test suite;
# OUT/suite.json counts them; the exit status is the worst run's (a failed expectation: 1). An invalid file
# stops the suite before anything runs (exit 2); two files of one name get NAME and NAME-2; no --out is 2.
# usage: suite.sh NVEMU WORKDIR
set -u
nvemu=$1 work=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/s" "$work/other"
task='tasks:\n  - {name: lc, class: LC, arrival: {type: periodic, rate: 100}, request: {kernels: [{duration: 1ms}]}}\n'
printf "name: a-pass\nduration: 100ms\n$task expect:\n  - lost: {max: 0}\n" | sed 's/^ expect/expect/' >"$work/s/a.yaml"
printf "name: b-fail\nduration: 100ms\n$task expect:\n  - latency: {task: lc, stat: p99, max: 1us}\n" |
  sed 's/^ expect/expect/' >"$work/s/b.yaml"
printf "name: c-pass\nduration: 100ms\n$task expect:\n  - throughput: {task: lc, min: 50}\n" | sed 's/^ expect/expect/' \
  >"$work/s/c.yaml"
printf 'not: a scenario\n' >"$work/s/notes.txt"
"$nvemu" scenario check "$work"/s/*.yaml >/dev/null || fail "the suite's files do not check"
"$nvemu" scenario run "$work/s" --out "$work/r" --junit "$work/all.xml" >"$work/r.log" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$work/r.log"; fail "a suite with one failing scenario: exit $rc, not 1"; }
for n in a b c; do [ -s "$work/r/$n/results.json" ] || fail "no run of $n.yaml in r/$n"; done
grep -q '^a  *PASS  *1/1' "$work/r.log" && grep -q '^b  *FAIL  *0/1' "$work/r.log" && grep -q '^c  *PASS' "$work/r.log" ||
  { cat "$work/r.log"; fail "the summary table"; }
for f in "$work/r/junit.xml" "$work/all.xml"; do
  [ "$(grep -c '<testsuite ' "$f")" -eq 3 ] || fail "$f does not hold 3 suites"
  grep -q 'name="scenario.b-fail".*failures="1"' "$f" || fail "$f lacks b's failure"
done
grep -q '"passed":[[:space:]]*2' "$work/r/suite.json" && grep -q '"failed":[[:space:]]*1' "$work/r/suite.json" ||
  fail "suite.json counts"
# an invalid file: nothing runs
printf 'name: bad\nduration: 1s\ncolour: red\n' >"$work/bad.yaml"
"$nvemu" scenario run "$work/s/a.yaml" "$work/bad.yaml" --out "$work/r2" 2>"$work/r2.err"
[ $? -eq 2 ] || fail "a suite with an invalid file is not exit 2"
grep -q 'bad.yaml:3:1' "$work/r2.err" || fail "the invalid file is not named"
[ ! -e "$work/r2/a" ] || fail "a scenario ran although the suite had an invalid file"
# one name twice
cp "$work/s/a.yaml" "$work/other/a.yaml"
"$nvemu" scenario run "$work/s/a.yaml" "$work/other/a.yaml" --out "$work/r3" --quiet >/dev/null 2>&1 || fail "two a.yaml"
[ -s "$work/r3/a/results.json" ] && [ -s "$work/r3/a-2/results.json" ] || fail "two files of one name share a folder"
"$nvemu" scenario run "$work/s" 2>/dev/null; [ $? -eq 2 ] || fail "a suite without --out"
echo "suite: a folder of scenarios, one junit.xml, the worst exit status"
