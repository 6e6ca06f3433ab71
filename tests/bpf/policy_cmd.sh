#!/bin/sh
# A command (`nvemu policy`, `nvemu scenario check`): its exit status and a line of its output.
# usage: policy_cmd.sh EXPECTED_STATUS REGEX NVEMU ARGS...
want=$1 regex=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne "$want" ]; then
    echo "exit status $rc, expected $want" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq "$regex"; then
    echo "output lacks /$regex/" >&2
    exit 1
fi
