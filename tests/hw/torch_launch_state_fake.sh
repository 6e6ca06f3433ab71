#!/bin/sh
# torch_launch_state_fake.sh RECORDER ANALYSIS FAKE_TORCH LIB OUT: the PyTorch launch-state recorder
# (tools/record/programs/frameworks/torch_launch_state.py) against a stand-in torch package and nvidia-smi, two
# rounds of 0.4 s phases: every phase letter twice in phases.tsv with the order rotated, every LC variant recorded,
# each BE's steps file written, its tables (tests/hw/torch_launch_state.py) made of the run, and a call with too
# few arguments refused with the usage.
set -u
rec=$1 ana=$2 fake=$3 lib=$4 out=$5
py=${PYTHON:-python3}
rm -rf "$out" && mkdir -p "$out/bin"
cat >"$out/bin/nvidia-smi" <<'SMI'
#!/bin/sh
case "$*" in
*-lms*) while :; do echo "2026/01/01 00:00:00.000, 1980 MHz, 3201 MHz, 100 W, 10 %"; sleep 0.1; done ;;
*) echo "NVIDIA H200, GPU-stand-in, 0, 580.159.04, 1980 MHz, 1980 MHz" ;;
esac
SMI
chmod +x "$out/bin/nvidia-smi"
fail() { echo "$1"; cat "$out/run.txt" 2>/dev/null; exit 1; }
PATH="$out/bin:$PATH" PYTHONPATH="$fake" "$py" "$rec" run "$out/r" "$lib" 2 0.4 >"$out/run.txt" 2>&1 ||
  fail "recorder failed"
grep -q '^ready: 5 of 5' "$out/run.txt" || fail "not every process got ready"
grep -q '^done: 0 0 0 0 0$' "$out/run.txt" || fail "a process did not exit 0"
order=$(tail -n +2 "$out/r/phases.tsv" | cut -f2 | tr -d '\n')
[ "$order" = AGNTUGNTUA ] || fail "phases not rotated: $order"
for v in fwd fwd-held ops ops-held meta; do
  grep -q "\"variant\": \"$v\"" "$out/r/lc.json" || fail "no $v request in lc.json"
done
for b in g1 gn t1 tn; do [ -s "$out/r/$b.json.steps" ] || fail "no steps of BE $b"; done
[ ! -e "$out/r/sync" ] || fail "the sync folder was left behind"
PYTHONPATH="$fake" "$py" "$ana" "$out/r" >"$out/tables.txt" 2>&1 || { cat "$out/tables.txt"; fail "analysis failed"; }
grep -q '^| U | meta | ' "$out/tables.txt" || { cat "$out/tables.txt"; fail "no U/meta row"; }
grep -q '^| T | training BE, 1 us | ' "$out/tables.txt" || { cat "$out/tables.txt"; fail "no T phase row"; }
PYTHONPATH="$fake" "$py" "$rec" run >"$out/usage.txt" 2>&1 && fail "too few arguments accepted"
grep -q '^usage: torch_launch_state.py run OUTDIR' "$out/usage.txt" || { cat "$out/usage.txt"; fail "no usage"; }
echo ok
