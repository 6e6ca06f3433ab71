#!/usr/bin/env bash
# Records the held-out program set (programs in no earlier committed recording) with `nvemu record`, on a
# one-GPU machine with nvcc, PyTorch, JAX, CuPy and Triton (run from the repository root):
#   tools/record/programs/record-heldout.sh NVEMU_DIR OUTDIR [BUDGET_S [NAME...]]
# NVEMU_DIR as for record-frameworks.sh. The two CUDA C++ programs are built with nvcc first. Programs are
# recorded in order while the elapsed time stays under BUDGET_S (default 150); the rest are listed as skipped.
# NAMEs limit the run to those programs.
# OUTDIR receives heldout.tar.gz: the gzipped traces (trace-NAME.log.gz, or -pN per process, numbered in the
# order their traces were last written, which is not always start order: a parent that waits for its child
# ends after it),
# NAME.txt with each program's output and exit status, env.txt.
set -u
N=$(readlink -f "$1")
OUT=$(readlink -f "$2")
BUDGET=${3:-150}
shift $(($# < 3 ? $# : 3))
SEL=("$@") WIDTH=22
P=$(dirname "$(readlink -f "$0")")/heldout
R=/tmp/nvemu-heldout/out
B=/tmp/nvemu-heldout/bin
rm -rf /tmp/nvemu-heldout && mkdir -p "$R" "$B" "$OUT"
export NVEMU_RECORD_LIB=$N/libnvemu-record.so
LDP=${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
# the builds run beside the first recordings (nvidia-smi needs no build)
( "$NVCC" -O2 -arch=sm_90 -o "$B/fft_gemm_fp16" "$P/fft_gemm_fp16.cu" -lcufft -lcublas &&
  "$NVCC" -O2 -arch=sm_90 -o "$B/pool_share" "$P/pool_share.cu" ) > "$R/build.txt" 2>&1 &
BUILD=$!
{
  date -u; uname -r; cat /proc/driver/nvidia/version
  nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,persistence_mode,compute_mode,mig.mode.current --format=csv
  "$NVCC" --version | tail -2
  python3 -c 'import torch, triton; print("torch", torch.__version__, torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "triton", triton.__version__)'
  python3 -c 'import jax, cupy; print("jax", jax.__version__, "cupy", cupy.__version__)'
} > "$R/env.txt" 2>&1
cat "$R/env.txt"
. "$(dirname "$(readlink -f "$0")")/record-lib.sh"
# rec NAME TIMEOUT CMD...: one program under `nvemu record`, if asked for and the budget is not spent
rec() {
  local name=$1 tmo=$2; shift 2
  want "$name" || return 0
  if [ $((SECONDS + 5)) -ge "$BUDGET" ]; then echo "skipped (budget): $name" | tee -a "$R/skipped.txt"; return 0; fi
  [ $((SECONDS + tmo)) -gt "$BUDGET" ] && tmo=$((BUDGET - SECONDS))
  record "$name" "$tmo" "$@"
}
rec smi-list 20 nvidia-smi -L
rec smi-q-perf-clock 30 nvidia-smi -q -d PERFORMANCE,CLOCK
wait $BUILD; echo "build rc=$?" >> "$R/build.txt"
rec fft-gemm-fp16 30 "$B/fft_gemm_fp16"
rec pool-share 30 "$B/pool_share"
rec torch-conv-fp16 60 python3 torch_conv_fp16.py
rec cupy-fft-sparse 60 python3 cupy_fft_sparse.py
rec async-pool-apps 45 bash -c 'PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync python3 torch_async_pool.py & sleep 4; nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv; wait'
rec jax-mlp-grad 60 python3 jax_mlp_grad.py
rec triton-matmul-autotune 60 python3 triton_matmul_autotune.py
for f in "$R"/*.txt; do echo "== $f"; tail -4 "$f"; done
gzip -9 "$R"/trace-*.log 2>/dev/null
du -sh "$R"
tar -C /tmp/nvemu-heldout -czf "$OUT/heldout.tar.gz" out
