#!/bin/sh
# prepare.sh BUILD_DIR DEST: what `run-suite.sh` needs on a GPU machine that has the NVIDIA driver but
# neither libyaml nor libcjson nor libfuse3 nor libbpf: the nvemu executable of BUILD_DIR, the shared
# libraries it links beyond glibc (the Debian 12 packages libyaml-0-2, libcjson1, libfuse3-3, libbpf1 and
# their libelf1/zlib1g, as installed here by ci/install-deps), the hardware backend's helper nvemu-hw-task beside
# nvemu, the policy plugins, and the scenarios
# (scenarios/validation and the GPreempt livelock).
set -eu
build=$1 dest=$2 src=$(cd "$(dirname "$0")/../../.." && pwd)
rm -rf "$dest" && mkdir -p "$dest/lib" "$dest/policies" "$dest/suite"
cp "$build/nvemu" "$build/nvemu-hw-task" "$dest/"
for l in libyaml-0.so.2 libcjson.so.1 libfuse3.so.3 libbpf.so.1 libelf.so.1 libz.so.1; do
  cp -L "$(ldd "$build/nvemu" | awk -v l=$l '$1 == l {print $3}')" "$dest/lib/"
done
cp "$build"/policies/*.so "$dest/policies/"
cp "$src"/scenarios/validation/*.yaml "$src/scenarios/gpreempt-livelock.yaml" "$dest/suite/"
cp "$src/tests/hw/device/run-suite.sh" "$dest/run.sh"
