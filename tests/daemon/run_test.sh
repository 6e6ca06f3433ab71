#!/bin/sh
# Runs a daemon test, or skips it (exit 77, ctest SKIP_RETURN_CODE) with the reason
# when this machine cannot mount FUSE file systems as root.
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: daemon tests need root (FUSE mount with allow_other, private mount namespace)"
    exit 77
fi
if [ ! -c /dev/fuse ]; then
    echo "SKIP: no /dev/fuse"
    exit 77
fi
exec "$@"
