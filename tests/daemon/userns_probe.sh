#!/bin/sh
# Runs the hostile client as uid 65534 inside its own user namespace (unshare -Ur: CapEff full there,
# none in the daemon's namespace). Skips (77) where this kernel does not let a user create one.
hostile=$1
if ! setpriv --reuid 65534 --regid 65534 --clear-groups unshare -Ur true 2>/dev/null; then
    echo "SKIP: uid 65534 cannot create a user namespace here"
    exit 77
fi
exec setpriv --reuid 65534 --regid 65534 --clear-groups unshare -Ur "$hostile" userns
