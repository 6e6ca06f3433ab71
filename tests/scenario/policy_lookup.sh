#!/bin/sh
# Where a policy named on the command line or in a scenario is found:
#   `scenario run FILE --policy NAME` runs every bundled policy by its bare name (NAME for NAME.so, NAME.bpf.o
#   for an object, in the policy directory), whatever the current directory;
#   `policy: {bpf: FILE.bpf.o}` and `policy: {plugin: FILE.so}` name a file beside the scenario, found from any
#   current directory and not looked up as FILE.bpf.o.bpf.o;
#   `policy: {bpf: NAME}` without a suffix is still the bundled NAME.bpf.o;
#   `nvemu policy --task NAME` warns when the kernel would cut NAME to 15 bytes, a bundled policy when an lc=/be=
#   pattern needs a longer name than any process has.
# usage: policy_lookup.sh NVEMU POLICY_DIR WORKDIR
set -u
nvemu=$1 pdir=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/sc" "$work/elsewhere"
cat >"$work/sc/short.yaml" <<'YAML'
name: short
duration: 50ms
tasks:
  - {name: lc, class: LC, arrival: {type: periodic, rate: 100}, request: {kernels: [{duration: 1ms}]}}
  - {name: be, class: BE, arrival: {type: closed}, request: {kernels: [{duration: 2ms}]}}
expect:
  - lost: {max: 0}
YAML
n=0
cd "$work/elsewhere" || exit 1
for f in "$pdir"/*.so "$pdir"/*.bpf.o; do
  [ -f "$f" ] || continue
  # NAME for a plugin, NAME.bpf.o for an object (a bare NAME is the plugin where both exist)
  name=$(basename "$f"); name=${name%.so}
  args=
  case $f in   # what each plugin requires (they refuse to start with nothing to classify)
    */admission.so) args="--policy-arg max_lc=1 --policy-arg lc=lc" ;;
    */gpreempt.so | */lc_be_timeslice.so) args="--policy-arg lc=lc" ;;
  esac
  NVEMU_POLICY_DIR= "$nvemu" scenario run "$work/sc/short.yaml" --quiet --policy "$name" $args >"$work/$name.log" 2>&1
  rc=$?
  [ $rc -le 1 ] || { cat "$work/$name.log"; fail "--policy $name: exit $rc"; }
  n=$((n + 1))
done
[ $n -ge 4 ] || fail "only $n bundled policies in $pdir"

# a file beside the scenario, the scenario run from another directory
cp "$pdir/gpu_ext_timeslice.bpf.o" "$work/sc/my_policy.bpf.o"
sed 's/^expect:/policy: {bpf: my_policy.bpf.o}\nexpect:/' "$work/sc/short.yaml" >"$work/sc/bpf.yaml"
"$nvemu" scenario run "$work/sc/bpf.yaml" --quiet --out "$work/bpf" >"$work/bpf.log" 2>&1 ||
  { cat "$work/bpf.log"; fail "policy: {bpf: my_policy.bpf.o} beside the scenario"; }
grep -q '"policy":[[:space:]]*".*/sc/my_policy.bpf.o"' "$work/bpf/results.json" || fail "results.json does not name the file beside the scenario"
cp "$pdir/gpreempt.so" "$work/sc/mine.so"
sed 's/^expect:/policy: {plugin: mine.so, args: {lc: lc}}\nexpect:/' "$work/sc/short.yaml" >"$work/sc/plugin.yaml"
"$nvemu" scenario check "$work/sc/plugin.yaml" >"$work/plugin.log" 2>&1 ||
  { cat "$work/plugin.log"; fail "policy: {plugin: mine.so} beside the scenario"; }
sed 's/^expect:/policy: {bpf: admission}\nexpect:/' "$work/sc/short.yaml" >"$work/sc/bundled.yaml"
"$nvemu" scenario run "$work/sc/bundled.yaml" --quiet --out "$work/bundled" >"$work/bundled.log" 2>&1
[ $? -le 1 ] || { cat "$work/bundled.log"; fail "policy: {bpf: admission} (bundled, no suffix)"; }
# a --task name the kernel would cut to 15 bytes: the check says which name the policy sees
"$nvemu" policy gpreempt lc=inference-server-main --task inference-server-main >"$work/task.out" 2>"$work/task.err"
grep -q "warning: --task 'inference-server-main' is 21 bytes.*sees 'inference-serve'" "$work/task.err" ||
  { cat "$work/task.err"; fail "no warning for a --task name over 15 bytes"; }
"$nvemu" policy gpreempt lc=short --task short 2>&1 | grep -q 'warning' && fail "a warning for a 5-byte --task name"
# a pattern longer than any process name: the policy says it can never match; one that can match: no warning
"$nvemu" policy gpreempt lc=inference-server-main >/dev/null 2>"$work/pat.err"
grep -q "pattern 'inference-server-main' can never match" "$work/pat.err" ||
  { cat "$work/pat.err"; fail "no warning for a pattern that can never match"; }
"$nvemu" policy gpreempt 'lc=inference-serv*,[ab]-worker-0123' 2>&1 >/dev/null | grep -q 'never match' &&
  fail "a warning for patterns that can match"
echo "policy lookup: $n bundled names by --policy, files beside the scenario, bundled bpf name"
