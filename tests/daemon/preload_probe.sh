#!/bin/sh
# Preload path, as a user without `nvemu run` would do it: a daemon on a mount,
# then the foreign client with LD_PRELOAD=libnvemu-preload.so NVEMU_MOUNT=DIR.
# usage: preload_probe.sh NVEMU LIBPRELOAD RAWCLIENT
nvemu=$1 lib=$2 client=$3
top=$(mktemp -d /tmp/nvemu-preload-XXXXXX)
"$nvemu" daemon --foreground --mount "$top/m" --socket "$top/s" >/dev/null &
daemon=$!
i=0
while [ ! -e "$top/m/nvidiactl" ]; do
    i=$((i + 1))
    if [ $i -gt 100 ] || ! kill -0 $daemon 2>/dev/null; then
        echo "FAIL: daemon did not start"
        kill $daemon 2>/dev/null
        exit 1
    fi
    sleep 0.1
done
LD_PRELOAD="$lib" NVEMU_MOUNT="$top/m" "$client"
rc=$?
NVEMU_SOCKET="$top/s" "$nvemu" status || rc=1
kill $daemon
wait $daemon || rc=1
rmdir "$top/m" "$top"
exit $rc
