#!/bin/sh
# CUSE path: serve real character devices through /dev/cuse and run the foreign
# client against them. Skips (77) with the reason where the kernel has no CUSE.
# usage: cuse_probe.sh NVEMU RAWCLIENT
if [ ! -c /dev/cuse ]; then
    echo "SKIP: no /dev/cuse (kernel built without CONFIG_CUSE or cuse.ko not loaded)"
    exit 77
fi
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: CUSE needs root"
    exit 77
fi
if [ -e /dev/nvidiactl ]; then
    echo "SKIP: /dev/nvidiactl already exists (a real driver?); CUSE would collide with it"
    exit 77
fi
nvemu=$1 client=$2
sock=$(mktemp -u /tmp/nvemu-cuse-XXXXXX.sock)
"$nvemu" daemon --cuse --foreground --socket "$sock" >/dev/null &
daemon=$!
i=0
while [ ! -c /dev/nvidiactl ] || [ ! -c /dev/nvidia-uvm ]; do
    i=$((i + 1))
    if [ $i -gt 100 ] || ! kill -0 $daemon 2>/dev/null; then
        echo "FAIL: CUSE devices did not appear"
        kill $daemon 2>/dev/null
        exit 1
    fi
    sleep 0.1
done
"$client"
rc=$?
kill $daemon
wait $daemon
exit $rc
