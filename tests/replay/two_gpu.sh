#!/bin/sh
# The two-H200 machine's traces on the h200-x2 profile: GPU 1 answers its own UUID and PCI slot (07.0), so
# CARD_INFO, attached ids, GPU ID info (id, sliStatus) and GID info match the recording; the remaining
# mismatches (NCCL's OS_UNIX object export/import, NVLink and P2P capability controls) are not these.
# usage: two_gpu.sh NVEMU PROGRAMS2_DIR WORKDIR
set -u
nvemu=$1; dir=$2; work=$3
mkdir -p "$work"
fail=0
for t in trace-smi-topo-2gpu trace-nccl-p0 trace-nccl-p1; do
    "$nvemu" replay --profile h200-x2 --mismatch-file "$work/$t.txt" "$dir/$t.log.gz" > "$work/$t.out" 2>&1
    if [ ! -s "$work/$t.out" ] || ! grep -q '^replay: ' "$work/$t.out"; then
        echo "FAIL: $t: no replay summary"; cat "$work/$t.out"; fail=1; continue
    fi
    # gpuFlags (byte 4 of GET_ID_INFO) is left out: IN_USE there reflects the other rank's process
    if grep -E 'nr 0xc8|control 0x00000201 |control 0x0000020[25] (on|params differ at byte (0|16|24):)|control 0x2080014a|GPU UUID' \
        "$work/$t.txt"; then
        echo "FAIL: $t: GPU identity answered differently from the recording"; fail=1
    fi
done
exit $fail
