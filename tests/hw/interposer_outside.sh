#!/bin/sh
# interposer_outside.sh NVEMU HELPER: the hardware backend's `ioctl` interposer is in the helper it execs
# (nvemu-hw-task), not in nvemu: nvemu defines no ioctl of its own (every command, the daemon included,
# calls libc's), the helper defines and exports one for the libcuda it loads.
set -u
nvemu=$1 helper=$2
if nm --defined-only "$nvemu" | grep -qw 'ioctl$'; then
  echo "nvemu defines ioctl: the interposer is compiled into every command"; exit 1
fi
nm -D --defined-only "$helper" | grep -qw 'ioctl$' || { echo "the helper exports no ioctl for libcuda"; exit 1; }
echo "ok: ioctl interposed in $(basename "$helper") only"
