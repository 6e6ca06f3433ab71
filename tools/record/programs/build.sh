#!/usr/bin/env bash
# Builds what record-session.sh runs, on an x86-64 machine with gcc and nvcc (CUDA 13):
#   tools/record/programs/build.sh OUTDIR
set -euo pipefail
out=$1
mkdir -p "$out"
P=$(dirname "$0")
R=$P/../..
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CF="cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2"
$CF -shared -fPIC -o "$out/libnvemu-record.so" "$R/record/record_preload.c"
$CF -o "$out/nvml_query" "$P/nvml_query.c" -ldl
for p in events memory peer_ipc; do "$NVCC" -O2 -arch=sm_90 -o "$out/$p" "$P/$p.cu"; done
"$NVCC" -O2 -arch=sm_90 -o "$out/gemm" "$P/gemm.cu" -lcublas
"$NVCC" -O2 -arch=sm_90 -o "$out/profiler" "$P/profiler.cu" -lcupti
for p in ctx streams; do "$NVCC" -O2 -arch=sm_90 -o "$out/$p" "$R/../tests/conformance/cuda/$p.cu"; done
ls -la "$out"
