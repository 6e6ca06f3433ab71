#!/bin/sh
# After a daemon is killed with SIGKILL: a new daemon on its mount says the mount is stale and how to clear it
# (exit 1, nothing mounted), --force unmounts it and serves, and the dead daemon's control socket is removed.
# Skips (77) where FUSE cannot mount.
# usage: stale_mount.sh NVEMU WORKDIR
set -u
nvemu=$1 work=$2
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" 2>/dev/null; mkdir -p "$work/mnt" || { fusermount3 -u -z "$work/mnt" 2>/dev/null; mkdir -p "$work/mnt"; }
sockdir=$work/run
mkdir -p "$sockdir"
export XDG_RUNTIME_DIR=$sockdir
env_out=$("$nvemu" daemon --mount "$work/mnt" 2>"$work/first.err") || { cat "$work/first.err"; echo "SKIP: no FUSE"; exit 77; }
eval "$env_out"
dead_sock=$NVEMU_SOCKET
[ -S "$dead_sock" ] || fail "the first daemon has no socket"
kill -9 "$NVEMU_DAEMON_PID"
n=0; while kill -0 "$NVEMU_DAEMON_PID" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
ls "$work/mnt" >/dev/null 2>&1 && fail "the killed daemon's mount is not stale (premise)"
timeout 20 "$nvemu" daemon --mount "$work/mnt" >"$work/second.out" 2>"$work/second.err"
[ $? -eq 1 ] || fail "a daemon on a stale mount did not refuse (exit 1)"
grep -q 'is the mount of a daemon that is gone.*fusermount3 -u .*--force' "$work/second.err" ||
  { cat "$work/second.err"; fail "no clear message for a stale mount"; }
env_out=$(timeout 20 "$nvemu" daemon --mount "$work/mnt" --force 2>"$work/third.err") ||
  { cat "$work/third.err"; fail "--force did not clear the stale mount"; }
eval "$env_out"
grep -q 'unmounted .*mnt, the mount of a daemon that is gone' "$work/third.err" || fail "--force says nothing"
[ -e "$work/mnt/nvidiactl" ] || fail "the new daemon serves no nvidiactl"
[ ! -e "$dead_sock" ] || fail "the dead daemon's socket $dead_sock is left"
grep -q "removed $dead_sock" "$work/third.err" || fail "the socket's removal is not reported"
kill "$NVEMU_DAEMON_PID"
n=0; while mountpoint -q "$work/mnt" 2>/dev/null && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
echo "stale mount: refused with a message, cleared with --force, dead socket removed"
