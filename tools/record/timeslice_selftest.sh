#!/bin/sh
# libnvemu-timeslice.so against the emulator: an external scenario task (nvemu-ext-task: libcuda's context
# over the runner's FUSE-served nodes, plain ioctl(2)) started under the interposer with
# NVEMU_TSG_TIMESLICE_US=777. Its compute channel group must get 777 us at allocation, after its first
# channel and in place of libcuda's own 2048 us (every call answered status 0, and the emulator's trace
# shows only 777); without the variable the same task keeps libcuda's 2048 us. Skips (77) without root or FUSE.
# usage: timeslice_selftest.sh NVEMU EXT_TASK LIBTIMESLICE WORKDIR
set -u
nvemu=$1 task=$2 lib=$3 work=$4
[ "$(id -u)" = 0 ] || { echo "SKIP: process tasks need root (FUSE mount)"; exit 77; }
[ -c /dev/fuse ] && grep -qw fuse /proc/filesystems || { echo "SKIP: no FUSE"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
# a sanitized task needs its runtime loaded before the interposer
asan=$(ldd "$task" | awk '/libasan/ {print $3}')
for mode in set unset; do
  if [ $mode = set ]; then env="NVEMU_TSG_TIMESLICE_US=777"; else env="NVEMU_TSG_TIMESLICE_US="; fi
  cat >"$work/task-$mode" <<SH
#!/bin/sh
LD_PRELOAD="$asan $lib" $env NVEMU_TSG_LOG="$work/$mode.log" exec "$task" "\$@"
SH
  chmod +x "$work/task-$mode"
  cat >"$work/$mode.yaml" <<YAML
name: timeslice-$mode
duration: 200ms
tasks:
  - name: be
    class: BE
    process:
      binary: ./task-$mode
      args: [--rate, "0", --kernel, 1ms, --blocks, "132", --repeat, "2"]
YAML
  "$nvemu" scenario run "$work/$mode.yaml" --quiet --csv --out "$work/$mode" 2>"$work/$mode.err"
  rc=$?
  if [ $rc -eq 3 ] && grep -q "served through FUSE" "$work/$mode.err"; then
    echo "SKIP: $(grep -m1 'served through FUSE' "$work/$mode.err")"; exit 77
  fi
  [ $rc -eq 0 ] || { cat "$work/$mode.err"; echo "$mode: exit $rc"; exit 1; }
done
fail=0
for when in alloc channel rewrite; do
  grep -q "tsg 0x[0-9a-f]* at $when us 777 status 0x0$" "$work/set.log" ||
    { echo "no successful '$when' decision:"; cat "$work/set.log"; fail=1; }
done
# the trace's timeslice_set rows: field a is the timeslice in us
got=$(awk -F, '$3 == "timeslice_set" {print $9}' "$work/set/trace.csv" | sort -u | tr '\n' ' ')
[ "$got" = "777 " ] || { echo "with the interposer the group's timeslices were: $got"; fail=1; }
got=$(awk -F, '$3 == "timeslice_set" {print $9}' "$work/unset/trace.csv" | sort -u | tr '\n' ' ')
[ "$got" = "2048 " ] || { echo "without NVEMU_TSG_TIMESLICE_US the timeslices were: $got"; fail=1; }
[ ! -s "$work/unset.log" ] || { echo "decisions taken without NVEMU_TSG_TIMESLICE_US"; fail=1; }
[ $fail = 0 ] && echo "ok: the compute group ran at 777 us, libcuda's 2048 us without the variable"
exit $fail
