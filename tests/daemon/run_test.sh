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
if ! grep -qw fuse /proc/filesystems; then
    echo "SKIP: the kernel has no fuse file system"
    exit 77
fi
if command -v unshare >/dev/null && ! unshare -m true 2>/dev/null; then
    echo "SKIP: cannot create mount namespaces here (container without CAP_SYS_ADMIN?)"
    exit 77
fi
exec "$@"
