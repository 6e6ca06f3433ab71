#!/bin/sh
# The channel ids of programs2's NCCL ranks (NV_CHANNEL_ALLOC_PARAMS.cid, one driver-wide counter) depend on how
# the processes interleaved. Replayed together without times they are the order class, not mismatches; the
# same differences stay mismatches for one rank alone and for the three together once the traces carry times
# (here t= in start order, each process's calls after the previous process's: a known order, so any
# difference is the emulator's).
# usage: order_classes.sh NVEMU DIR(programs2) WORKDIR
set -u
nvemu=$1; dir=$2; work=$3
mkdir -p "$work" || exit 1
fail=0
summary() { printf '%s\n' "$1" | sed -n "s/^$2: \([0-9]*\) .*/\1/p"; }
mismatches() { printf '%s\n' "$1" | sed -n 's/^replay: [0-9]* calls, \([0-9]*\) mismatches.*/\1/p'; }

out=$("$nvemu" replay --profile h200-x2 "$dir/trace-nccl-p0.log.gz" "$dir/trace-nccl-p1.log.gz" \
      "$dir/trace-nccl-p2.log.gz" 2>&1)
n=$(printf '%s\n' "$out" | grep -c ': order (.*): class 0xc86f alloc params @132 (channel id)')
if [ "$n" -ne 38 ] || [ "$(summary "$out" order)" != 38 ] || [ "$(mismatches "$out")" != 0 ]; then
    printf '%s\n' "$out" | grep -v 'board identity\|coverage' | tail -5
    echo "FAIL: untimed together: $n channel ids classed as order, 38 expected, and 0 mismatches"; fail=1
fi

out=$("$nvemu" replay --profile h200-x2 "$dir/trace-nccl-p1.log.gz" 2>&1)
if printf '%s\n' "$out" | grep -q ': order ('; then
    echo "FAIL: one process alone has an order line"; fail=1
fi
n=$(printf '%s\n' "$out" | grep -c '^line [0-9]*: class 0xc86f alloc params @132: .*\[emu/fifo\]')
[ "$n" -gt 0 ] || { echo "FAIL: one process alone: its channel ids are not mismatches"; fail=1; }

t=0
for p in 0 1 2; do
    gzip -dc "$dir/trace-nccl-p$p.log.gz" | awk -v t0=$t '/^IOCTL /{ $0 = $0 " t=" (t0 + NR) } { print }' \
        > "$work/trace-nccl-p$p.log" || exit 1
    t=$((t + 1000000))
done
out=$("$nvemu" replay --profile h200-x2 "$work/trace-nccl-p0.log" "$work/trace-nccl-p1.log" \
      "$work/trace-nccl-p2.log" 2>&1)
if printf '%s\n' "$out" | grep -q ': order (\|^order:'; then
    echo "FAIL: traces with times have an order line"; fail=1
fi
n=$(printf '%s\n' "$out" | grep -c 'line [0-9]*: class 0xc86f alloc params @132: .*\[emu/fifo\]')
if [ "$n" -eq 0 ] || [ "$(mismatches "$out")" -lt "$n" ]; then
    printf '%s\n' "$out" | tail -3
    echo "FAIL: timed together: the channel ids are not mismatches"; fail=1
fi
[ $fail -eq 0 ] && echo "ok: order class for untimed processes together only"
exit $fail
