#!/usr/bin/env bash
# Records the RM and UVM ioctl traces of framework programs and nvidia-smi modes with `nvemu record`
# (run from the repository root on a GPU machine with PyTorch, JAX, CuPy and Triton):
#   tools/record/programs/record-frameworks.sh NVEMU_DIR OUTDIR [NAME...]
# NVEMU_DIR holds nvemu and libnvemu-record.so (and lib/ with the libraries nvemu links, as
# tests/hw/device/prepare.sh lays out). Each program runs once under the recorder, one trace per
# process (trace-NAME.log, or trace-NAME-pN.log in start order when several processes opened the GPU);
# OUTDIR receives frameworks.tar.gz: the gzipped traces, NAME.txt with each program's output and exit
# status, env.txt with the GPU, driver and package versions. NAMEs limit the run to those programs.
set -u
N=$(readlink -f "$1")
OUT=$(readlink -f "$2")
shift 2
P=$(dirname "$(readlink -f "$0")")/frameworks
R=/tmp/nvemu-fw/out
rm -rf /tmp/nvemu-fw && mkdir -p "$R" "$OUT"
export NVEMU_RECORD_LIB=$N/libnvemu-record.so
LDP=${LD_LIBRARY_PATH:-}  # the programs keep theirs; only nvemu needs lib/
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
{
  date -u; uname -r; cat /proc/driver/nvidia/version
  nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,persistence_mode,compute_mode,mig.mode.current --format=csv
  python3 -c 'import torch, triton; print("torch", torch.__version__, torch.version.cuda, "triton", triton.__version__)'
  python3 -c 'import jax, cupy; print("jax", jax.__version__, "cupy", cupy.__version__)'
} > "$R/env.txt" 2>&1
cat "$R/env.txt"
SEL=("$@") WIDTH=14
. "$(dirname "$(readlink -f "$0")")/record-lib.sh"
# rec NAME TIMEOUT CMD...: one program under `nvemu record`, if asked for
rec() { want "$1" && record "$@"; return 0; }
rec smi 30 nvidia-smi
rec smi-q 60 nvidia-smi -q
rec smi-query 30 nvidia-smi --query-gpu=name,uuid,memory.used,memory.total,utilization.gpu,temperature.gpu,power.draw,clocks.sm --format=csv
rec smi-dmon 30 nvidia-smi dmon -c 2
rec smi-pmon 30 nvidia-smi pmon -c 2
rec smi-topo 30 nvidia-smi topo -m
rec torch-start 90 python3 torch_start.py
rec cupy 90 python3 cupy_ops.py
rec jax 120 python3 jax_matmul.py
rec triton 120 python3 triton_add.py
rec torch-graphs 90 python3 torch_graphs.py
rec torch-train-amp 90 python3 torch_train_amp.py
rec torch-compile 240 python3 torch_compile.py
rec share 90 bash -c 'python3 torch_share.py & python3 torch_share.py & wait'
[ "$(nvidia-smi -L | wc -l)" -ge 2 ] && rec nccl 180 python3 nccl_allreduce.py
for f in "$R"/*.txt; do echo "== $f"; tail -4 "$f"; done
gzip -9 "$R"/trace-*.log
du -sh "$R"
tar -C /tmp/nvemu-fw -czf "$OUT/frameworks.tar.gz" out
