#!/bin/sh
# eval "$(nvemu daemon --mount DIR)" as documented: the variables are exported (a child process sees them),
# the socket name carries the daemon's own pid, `nvemu status` finds the daemon through them; a second
# daemon on the mounted directory and --mount naming a regular file are refused; the preload library says
# why it does nothing when NVEMU_MOUNT is missing.
# usage: eval_env.sh NVEMU PRELOAD_SO WORKDIR   (run through run_test.sh: needs root and FUSE)
set -u
nvemu=$1 preload=$2 work=$3
fail() { [ -n "${NVEMU_DAEMON_PID:-}" ] && kill "$NVEMU_DAEMON_PID" 2>/dev/null; echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
out=$("$nvemu" daemon --mount "$work/m" --log-file "$work/daemon.log") || fail "nvemu daemon: exit $?"
eval "$out"
[ -n "${NVEMU_DAEMON_PID:-}" ] || fail "no NVEMU_DAEMON_PID in: $out"
kill -0 "$NVEMU_DAEMON_PID" || fail "daemon $NVEMU_DAEMON_PID is not running"
case $NVEMU_SOCKET in *"nvemu-$NVEMU_DAEMON_PID.sock") ;; *) fail "socket $NVEMU_SOCKET lacks the daemon's pid";; esac
[ "$(sh -c 'echo "$NVEMU_MOUNT"')" = "$(cd "$work/m" && pwd -P)" ] || fail "NVEMU_MOUNT is not exported"
sh -c 'exec "$0" status' "$nvemu" | grep -q "daemon pid $NVEMU_DAEMON_PID" || fail "nvemu status does not find the daemon"
"$nvemu" daemon --mount "$work/m" >/dev/null 2>"$work/second.err" && fail "a second daemon on $work/m started"
grep -q "already a mount point" "$work/second.err" || fail "second daemon: $(cat "$work/second.err")"
: >"$work/file"
"$nvemu" daemon --mount "$work/file" >/dev/null 2>"$work/file.err" && fail "--mount on a regular file started"
grep -q "not a directory" "$work/file.err" || fail "--mount on a file: $(cat "$work/file.err")"
kill "$NVEMU_DAEMON_PID"
for _ in $(seq 50); do kill -0 "$NVEMU_DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
msg=$(env -u NVEMU_MOUNT LD_PRELOAD="$preload" sh -c 'exec 3</dev/nvidiactl' 2>&1)
echo "$msg" | grep -q "libnvemu-preload: /dev/nvidiactl goes to the real driver: NVEMU_MOUNT is not set" ||
  { echo "FAIL: the preload library is silent without NVEMU_MOUNT: $msg"; exit 1; }
echo "eval \"\$(nvemu daemon --mount DIR)\": ok"
