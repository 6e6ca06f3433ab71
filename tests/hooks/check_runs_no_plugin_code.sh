#!/bin/sh
# `nvemu scenario check` validates a scenario's plugin from its ELF file without loading it: the plugin's
# constructor leaves no mark, while `scenario run` of the same scenario loads it and leaves one; a plugin
# without the policy symbol fails the check (exit 1) with the load's message.
# usage: check_runs_no_plugin_code.sh NVEMU CTOR_SO NOSYM_SO WORKDIR
set -u
nvemu=$1 ctor=$2 nosym=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
scenario() { # FILE PLUGIN
  cat >"$1" <<YAML
name: check-plugin
duration: 10ms
policy: {plugin: $2}
tasks:
  - {name: lc, class: LC, arrival: {type: periodic, rate: 100}, request: {kernels: [{duration: 100us}]}}
YAML
}
scenario "$work/ctor.yaml" "$ctor"
scenario "$work/nosym.yaml" "$nosym"
export NVEMU_TEST_CTOR_MARK="$work/mark"
"$nvemu" scenario check "$work/ctor.yaml" >"$work/check.out" 2>&1 || { cat "$work/check.out"; fail "check refused a valid plugin"; }
[ ! -e "$work/mark" ] || fail "scenario check ran the plugin's constructor"
"$nvemu" scenario check "$work/nosym.yaml" >"$work/nosym.out" 2>&1
[ $? -ne 0 ] || fail "check accepted a plugin without the policy symbol"
grep -q "is not an nvemu policy" "$work/nosym.out" || { cat "$work/nosym.out"; fail "no reason for the refusal"; }
"$nvemu" scenario run "$work/ctor.yaml" --quiet --out "$work/run" >/dev/null 2>&1
[ -e "$work/mark" ] || fail "scenario run did not load the plugin (so the check above proves nothing)"
echo "check: plugin validated from its ELF, its code not run"
