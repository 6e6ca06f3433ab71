#!/bin/sh
# A/B verdicts over seed sets (`scenario run --seeds N`, `scenario compare SETA SETB`):
#   the same scenario with two disjoint seed sets is "no detectable change" on every metric (exit 0), though
#   single runs of two seeds differ by more than the default tolerance in LC p99;
#   a real policy change (LC/BE native vs gpreempt) is detected: LC p99 vs alone "better", exit 1;
#   a seed set holds seed-K/ runs, seeds.json (mean, sd, min, max per metric) and one junit.xml with a test
#   suite per seed; a smaller --seeds into the same folder leaves no run of the earlier one;
#   a seed set against a single run, --seeds 1 and --seeds without --out are usage errors (2);
#   an expectation over N seeds (`seeds: N`) makes `scenario run FILE` run N seeds and judge the bound on the
#   mean (a mean that breaks it: exit 1, in junit.xml), each seed's run judging only the other expectations;
#   --seeds fewer than an expectation needs, seeds: 1 and seeds on a decision are refused (2).
# usage: seeds.sh NVEMU SCENARIO_GPREEMPT SCENARIO_NATIVE WORKDIR
set -u
nvemu=$1 sc=$2 native=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$nvemu" scenario run "$sc" --seeds 6 --out "$work/a" >"$work/a.log" 2>&1 || { cat "$work/a.log"; fail "seeds 1..6"; }
"$nvemu" scenario run "$sc" --seeds 6 --seed 101 --out "$work/b" --quiet >"$work/b.log" 2>&1 ||
  { cat "$work/b.log"; fail "seeds 101..106"; }
for k in 1 2 3 4 5 6; do [ -s "$work/a/seed-$k/results.json" ] || fail "no seed-$k run"; done
grep -q '"lc.p99_us"' "$work/a/seeds.json" && grep -q '"sd"' "$work/a/seeds.json" || fail "seeds.json lacks the statistics"
[ "$(grep -c '<testsuite ' "$work/a/junit.xml")" -eq 6 ] || fail "the set's junit.xml does not hold 6 suites"
grep -q 'lc.p99_us' "$work/a.log" || fail "no table of the set's statistics"
# single runs of two seeds: the noise the sets must see through
"$nvemu" scenario compare "$work/a/seed-1" "$work/b/seed-101" >"$work/single.out"
[ $? -eq 1 ] || fail "single runs of seeds 1 and 101 do not differ past 10% (the test's premise)"
"$nvemu" scenario compare "$work/a" "$work/b" >"$work/same.out"
rc=$?
[ $rc -eq 0 ] || { cat "$work/same.out"; fail "two seed sets of one scenario: exit $rc"; }
grep -q '^lc.p99_vs_alone .*no detectable change' "$work/same.out" || { cat "$work/same.out"; fail "no verdict row"; }
if grep -E 'better|worse|higher|lower' "$work/same.out"; then fail "a change found between seed sets of one scenario"; fi
grep -q '95% confidence' "$work/same.out" || fail "the confidence is not stated"
# the same scenario under another policy: the change is found, in the right direction
"$nvemu" scenario run "$native" --seeds 5 --out "$work/native" --quiet >/dev/null 2>&1
[ $? -le 1 ] || fail "native seed set"
"$nvemu" scenario run "$native" --seeds 5 --out "$work/policy" --quiet --policy gpreempt --policy-arg lc=lc \
  --policy-arg be=be >/dev/null 2>&1
[ $? -le 1 ] || fail "gpreempt seed set"
"$nvemu" scenario compare "$work/native" "$work/policy" --headline >"$work/change.out"
rc=$?
[ $rc -eq 1 ] || { cat "$work/change.out"; fail "a policy change: exit $rc, not 1"; }
grep -q '^lc.p99_vs_alone .*better, PAST TOLERANCE' "$work/change.out" || { cat "$work/change.out"; fail "LC p99 not better"; }
grep -q '^be.throughput_rps .*no detectable change' "$work/change.out" || fail "BE throughput verdict"
# a smaller set into the same folder
"$nvemu" scenario run "$sc" --seeds 2 --out "$work/a" --quiet >/dev/null 2>&1 || fail "seeds 2 over 6"
[ ! -e "$work/a/seed-3" ] || fail "seed-3 of the earlier set is left"
# usage errors
"$nvemu" scenario compare "$work/a" "$work/b/seed-101" 2>/dev/null; [ $? -eq 2 ] || fail "a set against a run"
"$nvemu" scenario run "$sc" --seeds 1 --out "$work/x" 2>/dev/null; [ $? -eq 2 ] || fail "--seeds 1"
"$nvemu" scenario run "$sc" --seeds 3 2>/dev/null; [ $? -eq 2 ] || fail "--seeds without --out"
# expectations over seeds
sed 's/^expect:/expect:\n  - latency: {task: lc, stat: p99, max_vs_alone: 1.3, seeds: 5}\n  - throughput: {task: be, min: 10000, seeds: 3}/' \
  "$sc" >"$work/over.yaml"
"$nvemu" scenario check "$work/over.yaml" >/dev/null 2>&1 || fail "check of expectations over seeds"
"$nvemu" scenario run "$work/over.yaml" --out "$work/over" >"$work/over.log" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$work/over.log"; fail "a mean past its bound: exit $rc, not 1"; }
for k in 1 2 3 4 5; do [ -s "$work/over/seed-$k/results.json" ] || fail "expectations over 5 seeds ran no seed $k"; done
[ ! -e "$work/over/seed-6" ] || fail "more seeds than the expectations need"
grep -q '^  ok   lc latency p99 <= 1.3x alone over 5 seeds .*x alone (mean)' "$work/over.log" ||
  { cat "$work/over.log"; fail "the LC bound over 5 seeds"; }
grep -q '^  FAIL be throughput >= 10000 req/s over 3 seeds' "$work/over.log" || fail "the BE bound over 3 seeds"
grep -q 'name="be throughput &gt;= 10000 req/s over 3 seeds".*<failure' "$work/over/junit.xml" ||
  fail "junit.xml lacks the failed expectation over seeds"
# the scenario's own 7 expectations, not the 2 over seeds
[ "$(grep -c '"kind"' "$work/over/seed-1/results.json")" -eq 7 ] || fail "a seed's run judges the expectations over seeds"
"$nvemu" scenario run "$work/over.yaml" --seeds 3 --out "$work/few" 2>"$work/few.err"
[ $? -eq 2 ] && grep -q 'over 5 seeds; --seeds 3 runs fewer' "$work/few.err" || fail "--seeds fewer than needed"
"$nvemu" scenario run "$work/over.yaml" 2>/dev/null; [ $? -eq 2 ] || fail "expectations over seeds without --out"
sed 's/seeds: 5/seeds: 1/' "$work/over.yaml" >"$work/one.yaml"
"$nvemu" scenario check "$work/one.yaml" >/dev/null 2>&1; [ $? -eq 2 ] || fail "seeds: 1 accepted"
sed 's/^expect:/expect:\n  - decision: {hook: task_init, seeds: 3}/' "$sc" >"$work/dec.yaml"
"$nvemu" scenario check "$work/dec.yaml" >/dev/null 2>&1; [ $? -eq 2 ] || fail "seeds on a decision accepted"
echo "seeds: two seed sets of one scenario agree, a policy change is found, bounds over seeds judged on means"
