#!/usr/bin/env bash
# Records the RM and UVM ioctl traces of real programs on a GPU (run from the repository root):
#   tools/record/programs/record-session.sh BINDIR OUTDIR
# BINDIR holds libnvemu-record.so and the programs tools/record/programs/build.sh builds (each one
# missing or not starting there is rebuilt with nvcc/cc when they exist). Every program runs once under
# the recorder; OUTDIR receives traces.tar.gz (trace-NAME.log.gz per program, NAME.txt with what the
# program printed and its exit status, env.txt with the GPU and driver).
set -u
BIN=$(readlink -f "$1")
OUT=$(readlink -f "$2")
P=$(dirname "$(readlink -f "$0")")
CUDALIB=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/targets/x86_64-linux/lib
W=/tmp/nvemu-rec
R=$W/out
mkdir -p "$R" "$OUT"
cp -a "$BIN"/. "$W"/ 2>/dev/null
cp $P/torch_step.py "$W"/
broken() { ! [ -x "$1" ] || LD_LIBRARY_PATH=$CUDALIB ldd "$1" 2>&1 | grep -q 'not found'; }
for p in gemm events memory peer_ipc profiler; do
  if broken "$W/$p"; then
    echo "building $p here"
    lib=; [ $p = gemm ] && lib=-lcublas; [ $p = profiler ] && lib="-lcupti -L/usr/local/cuda/extras/CUPTI/lib64"
    nvcc -O2 -arch=sm_90 -o "$W/$p" $P/$p.cu $lib
  fi
done
for p in ctx streams; do broken "$W/$p" && nvcc -O2 -arch=sm_90 -o "$W/$p" "${CTXSRC:-tests/conformance/cuda}/$p.cu"; done
broken "$W/nvml_query" && cc -std=c11 -D_GNU_SOURCE -O2 -o "$W/nvml_query" $P/nvml_query.c -ldl
[ -f "$W/libnvemu-record.so" ] || cc -std=c11 -D_GNU_SOURCE -O2 -shared -fPIC -o "$W/libnvemu-record.so" "$P/../record_preload.c"
{
  uname -r; cat /proc/driver/nvidia/version
  nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,persistence_mode,compute_mode,mig.mode.current --format=csv
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)' 2>&1
  ls $W
} > "$R/env.txt" 2>&1
cat "$R/env.txt"
REC=$W/libnvemu-record.so
# rec NAME CMD...: one program under the recorder, one trace per process (trace-NAME[-pN].log)
rec() {
  local name=$1; shift
  (cd "$W" && NVEMU_RECORD_FILE="$R/trace-$name-%p.log" LD_PRELOAD=$REC timeout ${TMO:-60} "$@") > "$R/$name.txt" 2>&1
  local rc=$?
  echo "rc=$rc" >> "$R/$name.txt"
  local files i=0 f
  files=$(ls -tr "$R"/trace-$name-[0-9]*.log 2>/dev/null)
  for f in $files; do
    if [ "$(echo "$files" | wc -w)" = 1 ]; then mv "$f" "$R/trace-$name.log"; else mv "$f" "$R/trace-$name-p$i.log"; fi
    i=$((i+1))
  done
  printf '%-12s rc=%s lines=%s\n' "$name" "$rc" "$(cat "$R"/trace-$name*.log 2>/dev/null | wc -l)"
}
rec smi nvidia-smi
rec smi-q nvidia-smi -q
rec smi-query nvidia-smi --query-gpu=name,memory.used,utilization.gpu --format=csv
rec nvml env LD_LIBRARY_PATH=$CUDALIB ./nvml_query
rec ctx env LD_LIBRARY_PATH=$CUDALIB ./ctx
rec streams env LD_LIBRARY_PATH=$CUDALIB ./streams
rec events env LD_LIBRARY_PATH=$CUDALIB ./events
rec memory env LD_LIBRARY_PATH=$CUDALIB ./memory
rec gemm env LD_LIBRARY_PATH=$CUDALIB ./gemm
rec peer-ipc env LD_LIBRARY_PATH=$CUDALIB ./peer_ipc
rec profiler env LD_LIBRARY_PATH=$CUDALIB ./profiler
TMO=120 rec torch python3 torch_step.py
for f in "$R"/*.txt; do echo "== $f"; tail -5 "$f"; done
du -sh "$R"; gzip -9 "$R"/trace-*.log
tar -C "$W" -czf "$OUT/traces.tar.gz" out
ls -la "$OUT"
