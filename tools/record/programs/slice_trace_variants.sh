#!/bin/sh
# slice_trace_variants.sh DIR OUT: on the GPU machine, the recorder's kernel variants (slice_trace.c,
# SLICE_TRACE_KERNEL) at 200 us slices with 200 KiB a block, 1024 and 64 threads, then `nvemu scenario run --hw` of
# the shapes scenarios in DIR/suite (DIR: tests/hw/device/prepare.sh's bundle with slice_trace, slice_trace.sh and
# libnvemu-timeslice.so beside run.sh), then both again in reverse order. OUT/summary.txt: per variant, the kernels
# and requests the two processes completed in 0.6 s, and the calibration line.
D=$1 O=$2
mkdir -p $O
one() { # NAME VARIANT THREADS
  SLICE_TRACE_KERNEL=$2 sh $D/slice_trace.sh $O/$1 $D/slice_trace $D/libnvemu-timeslice.so 0.6 \
    "v 2000 132 4 200 200 2 $3" >> $O/st.log 2>&1
  echo "$1 $(grep -h requests $O/$1/v.p*.log | awk '{k += $2; r += $4} END {print k, r}') $(grep -h calibration $O/$1/v.p1.log)" >> $O/summary.txt
}
for pass in a b; do
  set -- "base||1024" "store|store|1024" "chains40|chains40|1024" "quiet|quiet|1024" "hwlike|chains40,store,quiet|1024" \
         "t64-base||64" "t64-hwlike|chains40,store,quiet|64"
  [ $pass = a ] || set -- "t64-hwlike|chains40,store,quiet|64" "t64-base||64" "hwlike|chains40,store,quiet|1024" \
         "quiet|quiet|1024" "chains40|chains40|1024" "store|store|1024" "base||1024"
  for c in "$@"; do
    n=${c%%|*} rest=${c#*|}; v=${rest%%|*} t=${rest#*|}
    one $pass-$n "$v" $t
  done
  OUT=$O/hw-$pass bash $D/run.sh >> $O/hw.log 2>&1
done
