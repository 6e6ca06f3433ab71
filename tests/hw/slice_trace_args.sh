#!/bin/sh
# slice_trace_args.sh SLICE_TRACE_C OUT: the slice recorder (tools/record/programs/slice_trace.c) builds warning-free
# and refuses what it cannot run before touching the GPU: a wrong argument count (usage), each bad argument, and a
# machine without libcuda.so.1 (the GPU-less CI), each with its exit status and a line saying why.
set -eu
src=$1 out=$2
rm -rf "$out" && mkdir -p "$out/empty"
bin=$out/slice_trace
${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -O2 -o "$bin" "$src" -ldl
fail() { echo "FAIL: $*"; exit 1; }
expect() { # STATUS PATTERN ARGS...: the recorder exits STATUS and its stderr matches PATTERN
  want=$1 pat=$2
  shift 2
  set +e
  LD_LIBRARY_PATH=$out/empty "$bin" "$@" 2>"$out/err" >/dev/null
  got=$?
  set -e
  [ "$got" -eq "$want" ] || fail "slice_trace $*: exit $got, not $want ($(cat "$out/err"))"
  grep -q "$pat" "$out/err" || fail "slice_trace $*: stderr '$(cat "$out/err")' lacks '$pat'"
}
r=$out/ready g=$out/go t=$out/t.tsv
expect 2 "usage: slice_trace" 30 132
expect 2 "2 <= D_US" 1 132 50 0 0.5 "$r" "$g" "$t"
expect 2 "1 <= BLOCKS" 30 0 50 0 0.5 "$r" "$g" "$t"
expect 2 "NKERNEL >= 1" 30 132 0 0 0.5 "$r" "$g" "$t"
expect 2 "SMEM_KB" 30 132 50 2000 0.5 "$r" "$g" "$t"
expect 2 "SECONDS" 30 132 50 0 0 "$r" "$g" "$t"
expect 2 "THREADS" 30 132 50 0 0.5 "$r" "$g" "$t" 48
expect 2 "THREADS" 30 132 50 0 0.5 "$r" "$g" "$t" 2048
[ ! -e "$r" ] && [ ! -e "$t" ] || fail "a refused run left files behind"
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  expect 1 "libcuda.so.1" 30 132 50 0 0.5 "$r" "$g" "$t"
fi
echo "ok: slice_trace refuses bad arguments and a machine without libcuda"
