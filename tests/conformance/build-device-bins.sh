#!/usr/bin/env bash
# Builds what device-session.sh runs, on an x86-64 machine with gcc and nvcc (CUDA 13):
#   tests/conformance/build-device-bins.sh OUTDIR [NVEMU_GPREEMPT]
# NVEMU_GPREEMPT: a static tools/gpreempt build to carry along (its demo then runs on the device too).
set -euo pipefail
out=$1
mkdir -p "$out"
T=$(dirname "$0")
R=$T/../..
CF="cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2"
$CF -static -o "$out/nvemu-conformance" $T/conformance.c $T/conf_out.c $T/conf_esc.c $T/conf_rm.c $T/conf_fifo.c \
    $T/conf_priv.c $T/fixture.c $T/rmraw.c
$CF -static -o "$out/nvemu-hwmeasure" $T/measure.c $T/conf_out.c $T/fixture.c $T/rmraw.c
$CF -shared -fPIC -o "$out/libnvemu-record.so" $R/tools/record/record_preload.c
$CF -I$R/emu -I$R/include -o "$out/nvemu-record" $T/record_cmd_main.c $R/cli/cmd_record.c $R/emu/base/paths.c \
    $R/emu/base/log.c -lpthread
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for p in ctx streams share busy; do
  "$NVCC" -O2 -arch=sm_90 -o "$out/$p" "$T/cuda/$p.cu"
done
if [ $# -ge 2 ]; then cp "$2" "$out/nvemu-gpreempt"; fi
ls -la "$out"
