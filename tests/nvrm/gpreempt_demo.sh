#!/bin/sh
# nvemu-gpreempt demo against a private emulator (`nvemu run --gpreempt-compat`):
# every action must succeed and the query escape must find both contexts.
# Skips (exit 77) where FUSE cannot be mounted as root.
# usage: gpreempt_demo.sh NVEMU NVEMU_GPREEMPT
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: needs root (nvemu run: private mount namespace + FUSE)"
    exit 77
fi
if [ ! -c /dev/fuse ]; then
    echo "SKIP: no /dev/fuse"
    exit 77
fi
out=$("$1" run --gpreempt-compat -- "$2" demo --iterations 5 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
[ "$(echo "$out" | grep -c 'matches the context')" -eq 2 ] || { echo "FAIL: the query did not find both contexts"; exit 1; }
echo "$out" | grep -q 'gpreempt result=ok failures=0' || { echo "FAIL: no result=ok line"; exit 1; }
[ "$(echo "$out" | grep -c 'action=preempt ')" -eq 10 ] || { echo "FAIL: expected 10 preempt actions"; exit 1; }
exit 0
