# Sourced by the daemon test scripts: mount_daemon NVEMU starts `nvemu daemon` in the foreground on a fresh
# mount ($top/m, control socket $top/s) and waits until /dev/nvidiactl appears there; $daemon is its pid.
# Returns 1 (daemon stopped, "FAIL" printed) when it does not come up within 10 s.
mount_daemon() {
    top=$(mktemp -d /tmp/nvemu-mount-XXXXXX)
    "$1" daemon --foreground --mount "$top/m" --socket "$top/s" >/dev/null &
    daemon=$!
    i=0
    while [ ! -e "$top/m/nvidiactl" ]; do
        i=$((i + 1))
        if [ $i -gt 100 ] || ! kill -0 $daemon 2>/dev/null; then
            echo "FAIL: daemon did not start"
            kill $daemon 2>/dev/null
            return 1
        fi
        sleep 0.1
    done
}
