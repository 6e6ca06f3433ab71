#!/bin/sh
# Runs the conformance probe under the emulator and compares it with the real-hardware recording.
#   hwdiff.sh NVEMU CONFORMANCE HWDIR root|user ALLOWLIST OUTFILE
# HWDIR is fixtures/hw/<gpu>-<driver>/ (libcuda-objects.txt, conformance-root.txt, conformance-user.txt).
# "user" runs the probe as uid 65534 without capabilities, as on the GPU machine.
# Needs root and /dev/fuse (nvemu run); otherwise exits 77 (ctest SKIP) and says why.
set -u
NVEMU=$1 CONF=$2 HW=$3 MODE=$4 ALLOW=$5 OUTFILE=$6
if [ "$(id -u)" != 0 ]; then
    echo "hwdiff: SKIP: needs root (nvemu run uses a private mount namespace)"
    exit 77
fi
if [ ! -c /dev/fuse ]; then
    echo "hwdiff: SKIP: no /dev/fuse (nvemu run serves the driver nodes through FUSE)"
    exit 77
fi
case "$MODE" in
    root) set -- "$CONF" "$HW/libcuda-objects.txt" ;;
    user) set -- setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$CONF" "$HW/libcuda-objects.txt" ;;
    *) echo "hwdiff: mode must be root or user"; exit 2 ;;
esac
"$NVEMU" run --profile h200 -- "$@" >"$OUTFILE" 2>"$OUTFILE.stderr"
echo "hwdiff: probe exit status $? under nvemu run (output: $OUTFILE)"
awk -f "$(dirname "$0")/compare.awk" -v allow="$ALLOW" "$HW/conformance-$MODE.txt" "$OUTFILE"
