#!/bin/sh
# Requests from recorded PyTorch profiler traces (request.from_trace): an LC task whose request is one
# step of the H200 inference trace next to a BE task whose request is one step of the training trace.
# Both complete requests, nothing is lost, and each request ran the step's kernels: 108 (inference) and
# 295 (training, forward + backward + AdamW), the counts fixtures/hw/h200-580.159.04/pytorch/README.md
# gives. The engines' kernel count lies between what the completed requests ran and what those plus the
# ones in flight at the end would (no warmup, so every request counts). The inference request alone lasts
# about the recorded step, CPU time between launches included.
# usage: from_trace.sh NVEMU PYTORCH_FIXTURE_DIR WORKDIR
set -u
nvemu=$1 fixtures=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
gzip -dc "$fixtures/infer.json.gz" >"$work/infer.json" || exit 1
gzip -dc "$fixtures/train.json.gz" >"$work/train.json" || exit 1
cat >"$work/from-trace.yaml" <<'YAML'
name: from-trace
duration: 2s
warmup: 0
baseline: true
tasks:
  - name: infer
    class: LC
    arrival: {type: poisson, rate: 50}
    request: {from_trace: infer.json, iteration: ProfilerStep}
  - name: train
    class: BE
    arrival: {type: closed}
    request: {from_trace: train.json}
expect:
  - lost: {max: 0}
YAML
"$nvemu" scenario run "$work/from-trace.yaml" --quiet --out "$work/out" || { echo "run failed"; exit 1; }
res="$work/out/results.json"
# value KEY N: the Nth (1-based) number under "KEY" in results.json
value() {
    grep "\"$1\":" "$res" | sed -n "${2}p" | sed 's/.*:[[:space:]]*\([0-9.e+-]*\).*/\1/'
}
fail=0
for i in 1 2; do
    done_=$(value completed $i) failed=$(value failed $i) lost=$(value lost $i)
    echo "task $i: completed $done_ failed $failed lost $lost"
    [ "${done_:-0}" -gt 0 ] || { echo "task $i completed no request"; fail=1; }
    [ "$failed" = 0 ] && [ "$lost" = 0 ] || { echo "task $i failed or lost requests"; fail=1; }
done
c1=$(value completed 1) c2=$(value completed 2) o1=$(value in_flight_at_end 1) o2=$(value in_flight_at_end 2)
kernels=0
for k in $(grep '"kernels":' "$res" | sed 's/.*:[[:space:]]*\([0-9]*\).*/\1/'); do
    kernels=$((kernels + k))
done
lo=$((c1 * 108 + c2 * 295)) hi=$(((c1 + o1) * 108 + (c2 + o2) * 295))
echo "engine kernels $kernels, completed requests need $lo, with those in flight at most $hi"
[ "$kernels" -ge "$lo" ] && [ "$kernels" -le "$hi" ] || { echo "kernels per request differ from the steps'"; fail=1; }
grep -A3 '"alone"' "$res" | head -8
# The inference step is launch-bound: alone, its request lasts about the recorded step (3,958 us from the
# step's start to its last kernel's end, the README there), not its ~370 us of kernels.
alone=$(grep -A1 '"alone"' "$res" | grep '"p50_us"' | head -1 | sed 's/.*:[[:space:]]*\([0-9.]*\).*/\1/')
awk -v a="${alone:-0}" 'BEGIN { exit !(a >= 3958 * 0.9 && a <= 3958 * 1.1) }' ||
    { echo "inference step alone p50 ${alone} us, not within 10% of the recorded 3958 us"; fail=1; }
exit $fail
