#!/bin/sh
# Runs bundled scenarios with their C policy plugin and again with the BPF twin object (each compiler
# variant) through `nvemu scenario run --policy`; the event traces must be identical (trace digest)
# and both runs must meet the scenario's expectations.
# usage: twins.sh NVEMU SCENARIO_DIR POLICY_DIR OUT_DIR
set -u
nvemu=$1 sc=$2 pol=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
fails=0 runs=0

digest() { sed -n 's/.*"trace_digest":[[:space:]]*"\([^"]*\)".*/\1/p' "$1/results.json"; }

# twin SCENARIO OBJECT ARGS...: ARGS are the object's --policy-arg values
twin() {
    name=$1 obj=$2
    shift 2
    if ! "$nvemu" scenario run "$sc/$name.yaml" --quiet --out "$out/$name.c" >"$out/$name.c.log" 2>&1; then
        echo "FAIL $name: the C plugin run failed"; cat "$out/$name.c.log"; fails=$((fails + 1)); return
    fi
    want=$(digest "$out/$name.c")
    for v in bpf v2.bpf clang19.bpf; do
        [ -f "$pol/$obj.$v.o" ] || continue
        args=""
        for a in "$@"; do args="$args --policy-arg $a"; done
        runs=$((runs + 1))
        # shellcheck disable=SC2086
        if ! "$nvemu" scenario run "$sc/$name.yaml" --quiet --policy "$pol/$obj.$v.o" $args \
                --out "$out/$name.$v" >"$out/$name.$v.log" 2>&1; then
            echo "FAIL $name with $obj.$v.o: run failed or expectations not met"; cat "$out/$name.$v.log"
            fails=$((fails + 1)); continue
        fi
        got=$(digest "$out/$name.$v")
        if [ -z "$want" ] || [ "$got" != "$want" ]; then
            echo "FAIL $name with $obj.$v.o: trace digest $got, C plugin $want"; fails=$((fails + 1)); continue
        fi
        echo "ok   $name with $obj.$v.o: trace digest $got as the C plugin"
    done
}

twin lc-be-gpreempt gpreempt 'map:process_class[lc]=1' 'map:process_class[be]=2'
twin multi-tenant lc_be_timeslice 'map:process_class[bench_lc]=1' 'map:process_class[bench_be]=2'
twin libcuda-reset lc_be_timeslice 'map:process_class[lc]=1' 'map:process_class[be]=2' 'rodata:hold=0'
twin libcuda-reset-held lc_be_timeslice 'map:process_class[lc]=1' 'map:process_class[be]=2'
twin admission admission 'rodata:max_lc=2' 'map:process_class[lc]=1' 'map:process_class[be]=2'

echo "$runs twin runs, $fails failures"
[ "$fails" -eq 0 ] && [ "$runs" -gt 0 ]
