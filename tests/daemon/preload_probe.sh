#!/bin/sh
# Preload path, as a user without `nvemu run` would do it: a daemon on a mount,
# then the foreign client with LD_PRELOAD=libnvemu-preload.so NVEMU_MOUNT=DIR.
# usage: preload_probe.sh NVEMU LIBPRELOAD RAWCLIENT
nvemu=$1 lib=$2 client=$3
. "$(dirname "$0")/daemon_mount.sh"
mount_daemon "$nvemu" || exit 1
LD_PRELOAD="$lib" NVEMU_MOUNT="$top/m" "$client"
rc=$?
NVEMU_SOCKET="$top/s" "$nvemu" status || rc=1
kill $daemon
wait $daemon || rc=1
rmdir "$top/m" "$top"
exit $rc
