#!/bin/sh
# `nvemu run` contract: CMD sees the emulator's nodes and the host's other /dev
# entries, NVEMU_SOCKET works inside, CMD's exit status (or 128+signal, 127 for
# a missing program) comes back, and the host's /dev is left untouched.
# usage: run_status.sh NVEMU
nvemu=$1
fail() { echo "run_status: FAIL: $*"; exit 1; }
before=$(ls -A /dev | sort | md5sum)
had_ctl=no; [ -e /dev/nvidiactl ] && had_ctl=yes

"$nvemu" run -- sh -c 'test -e /dev/nvidiactl && test -e /dev/nvidia0 && test -e /dev/nvidia-uvm &&
                       test -c /dev/null && test -d /dev/pts && exit 7'
rc=$?; [ $rc = 7 ] || fail "exit status $rc, want 7"

"$nvemu" run -- sh -c 'kill -TERM $$'
rc=$?; [ $rc = 143 ] || fail "signalled command gave $rc, want 143"

"$nvemu" run -- /nonexistent/program 2>/dev/null
rc=$?; [ $rc = 127 ] || fail "missing program gave $rc, want 127"

out=$("$nvemu" run -- "$nvemu" status --json) || fail "nvemu status inside run failed"
echo "$out" | grep -q '"transport":[[:space:]]*"fuse"' || fail "status has no daemon section: $out"

[ "$(ls -A /dev | sort | md5sum)" = "$before" ] || fail "the host's /dev changed"
[ $had_ctl = yes ] || [ ! -e /dev/nvidiactl ] || fail "/dev/nvidiactl appeared on the host"
echo "run_status: OK"
