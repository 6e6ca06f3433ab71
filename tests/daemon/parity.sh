#!/bin/sh
# Front-end parity: the same ioctl sequence (parity_client.c) through the in-process fd table, the FUSE daemon
# (`nvemu run`) and the preload library on a daemon's mount must get the same answers, line for line.
# usage: parity.sh NVEMU LIBPRELOAD PARITY_RAW PARITY_INPROC WORKDIR
nvemu=$1 lib=$2 raw=$3 inproc=$4 work=$5
rm -rf "$work" && mkdir -p "$work" || exit 1
"$inproc" > "$work/inproc.txt" || { echo "FAIL: in-process run"; exit 1; }
"$nvemu" run -- "$raw" > "$work/daemon.txt" || { echo "FAIL: run under the FUSE daemon"; exit 1; }
. "$(dirname "$0")/daemon_mount.sh"
mount_daemon "$nvemu" || exit 1
LD_PRELOAD="$lib" NVEMU_MOUNT="$top/m" "$raw" > "$work/preload.txt"
rc=$?
kill $daemon
wait $daemon
rmdir "$top/m" "$top"
[ $rc = 0 ] || { echo "FAIL: preload run"; exit 1; }
[ -s "$work/inproc.txt" ] || { echo "FAIL: the in-process run printed nothing"; exit 1; }
status=0
for fe in daemon preload; do
    if ! diff -u "$work/inproc.txt" "$work/$fe.txt"; then
        echo "FAIL: $fe answers differ from the in-process front-end"
        status=1
    fi
done
[ $status = 0 ] && echo "parity: $(wc -l < "$work/inproc.txt") answers identical through in-process, FUSE daemon and preload"
exit $status
