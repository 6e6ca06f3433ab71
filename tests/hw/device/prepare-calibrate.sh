#!/bin/sh
# prepare-calibrate.sh BUILD_DIR DEST: prepare.sh's folder (nvemu, its shared libraries, the policies, the
# validation scenarios) plus the hardware backend's helper nvemu-hw-task beside nvemu, and calibrate.sh as run.sh.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sh "$here/prepare.sh" "$1" "$2"
cp "$1/nvemu-hw-task" "$2/"
cp "$here/calibrate.sh" "$2/run.sh"
