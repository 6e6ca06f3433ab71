#!/bin/sh
# nvemu-xuser under `nvemu run` against its recording on the real driver: case lines must be identical.
#   xuser-diff.sh NVEMU NVEMU_XUSER FIXTURE_DIR
set -u
nvemu=$1 xuser=$2 fix=$3
got=$(mktemp) want=$(mktemp)
trap 'rm -f "$got" "$want"' EXIT
"$nvemu" run -- "$xuser" "$fix/libcuda-objects.txt" | grep -v '^#' > "$got"
grep -v '^#' "$fix/xuser.txt" > "$want"
diff -u "$want" "$got" && echo "xuser: emulator answers as the H200 did"
