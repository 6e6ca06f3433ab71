#!/bin/sh
# `nvemu profile list|show|check` and `base:` inheritance:
#   list names every built-in profile and says which share another's timing; --names is one name a line;
#   show prints what a profile resolves to; a file of a few keys over `base: h200` checks, shows the
#   overrides and the inherited values, chains through another file and runs a scenario; an unknown base, a
#   cycle and an unknown key are refused with file:line:column (exit 2), as an unknown profile is;
#   the bash completion offers profile names after --profile.
# usage: profile_cmd.sh NVEMU COMPLETION SCENARIO WORKDIR
set -u
nvemu=$1 comp=$2 sc=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$nvemu" profile list >"$work/list" || { cat "$work/list"; fail "profile list"; }
for p in h200 h100 a100 v100; do grep -q "^$p " "$work/list" || fail "list lacks $p"; done
grep -q '^h200-dev .*same as ' "$work/list" || fail "list does not say h200-dev shares another profile's timing"
# the table's rows (between the header and the blank line) name what --names lists
sed -n '2,/^$/p' "$work/list" | cut -d' ' -f1 | grep . >"$work/list.names"
"$nvemu" profile list --names | cmp -s - "$work/list.names" || fail "list --names and list disagree"
"$nvemu" profile show h200 >"$work/h200.show" || fail "show h200"
grep -q '^chip: GH100' "$work/h200.show" || fail "show h200"
# the shape, tick and kernel-boundary keys are shown with the profile's values (h200.yaml)
grep -q 'restore_per_sm_kb *0.200 us' "$work/h200.show" && grep -q 'timeslice_tick *1024 ns' "$work/h200.show" &&
  grep -q 'kernel_gap_overlap *4.300 us' "$work/h200.show" && grep -q 'yield_skips_late *yes' "$work/h200.show" &&
  grep -q 'expiry_skips_late *yes' "$work/h200.show" ||
  fail "show h200 misses a timing key"
printf 'base: h200\nname: h200-slow\ntiming:\n  ctxsw: 60us\n' >"$work/slow.yaml"
"$nvemu" profile check "$work/slow.yaml" | grep -q 'slow.yaml: ok (h200-slow, GH100' || fail "check of a base: h200 file"
"$nvemu" profile show "$work/slow.yaml" >"$work/slow.show" || fail "show of a base: file"
grep -q '^name: h200-slow' "$work/slow.show" && grep -q 'ctxsw *60.000 us' "$work/slow.show" || fail "the override is not shown"
"$nvemu" profile show h200 | grep 'cilp_save' >"$work/h200.cilp"
grep 'cilp_save' "$work/slow.show" | cmp -s - "$work/h200.cilp" || fail "a key the file does not give is not the base's"
printf 'base: slow.yaml\nname: two\ngpu_count: 2\n' >"$work/two.yaml"
"$nvemu" profile show "$work/two.yaml" >"$work/two.show" || fail "a base chain"
grep -q '^gpu_count: 2' "$work/two.show" && grep -q 'ctxsw *60.000 us' "$work/two.show" || fail "a chain loses a level"
"$nvemu" scenario run "$sc" --quiet --profile "$work/slow.yaml" --out "$work/run" >/dev/null 2>&1
[ $? -le 1 ] || fail "scenario run --profile with a base: file"
printf 'base: nosuch\n' >"$work/bad.yaml"
"$nvemu" profile check "$work/bad.yaml" 2>"$work/bad.err"
[ $? -eq 2 ] && grep -q 'bad.yaml:1:7: base .nosuch.' "$work/bad.err" || fail "an unknown base"
printf 'base: loop.yaml\n' >"$work/loop.yaml"
"$nvemu" profile check "$work/loop.yaml" 2>"$work/loop.err"
[ $? -eq 2 ] && grep -q 'a cycle' "$work/loop.err" || fail "a base cycle"
printf 'base: h200\ntiming:\n  bogus: 1us\n' >"$work/key.yaml"
"$nvemu" profile check "$work/key.yaml" 2>"$work/key.err"
[ $? -eq 2 ] && grep -q "key.yaml:3:3: unknown key 'bogus'" "$work/key.err" || fail "an unknown key over a base"
"$nvemu" profile show no-such-gpu 2>/dev/null
[ $? -eq 2 ] || fail "an unknown profile is not exit 2"
# completion: the words offered after --profile
mkdir -p "$work/bin" && ln -sf "$nvemu" "$work/bin/nvemu"
words=$(PATH="$work/bin:$PATH" bash -c ". '$comp'; COMP_WORDS=(nvemu scenario run x.yaml --profile h2); COMP_CWORD=5; _nvemu; echo \${COMPREPLY[*]}")
case " $words " in *" h200 "*) ;; *) fail "completion after --profile offers '$words' (no h200)" ;; esac
case " $words " in *" h200-dev "*) ;; *) fail "completion after --profile offers '$words' (no h200-dev)" ;; esac
echo "profile: list, show, check, base: inheritance and chains, errors, completion"
