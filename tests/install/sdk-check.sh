#!/bin/sh
# The installed tree is a self-contained tool and plugin SDK: a policy author's path, from an install
# prefix alone (no source or build tree):
#   nvemu --version, man page, bash completion; <nvemu/policy.h> with no internal header;
#   the example plugin (examples/policy) built out of tree with find_package(nvemu) and with pkg-config;
#   `nvemu policy` accepts it; a scenario runs it and writes its reports; a bundled policy is found by
#   name; the recorder library and nvemu-ext-task are found relative to bin/nvemu; no build path inside.
# usage: sdk-check.sh PREFIX WORKDIR SOURCE_DIR BUILD_DIR
set -eu
prefix=$(cd "$1" && pwd) work=$2 src=$3 build=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work/cm" "$work/pc" "$work/out" && mkdir -p "$work/pc"
nvemu=$prefix/bin/nvemu
"$nvemu" --version | grep -q '^nvemu [0-9]' || fail "nvemu --version"
[ -x "$prefix/bin/nvemu-ext-task" ] || fail "nvemu-ext-task is not installed beside nvemu"
[ -s "$prefix/share/man/man1/nvemu.1" ] || fail "no man page"
grep -q '^\.SH "nvemu scenario"' "$prefix/share/man/man1/nvemu.1" || fail "man page lacks the scenario help"
bash -c ". '$prefix/share/bash-completion/completions/nvemu' && complete -p nvemu" >/dev/null || fail "bash completion"
hdr=$prefix/include/nvemu/policy.h
[ -f "$hdr" ] || fail "no <nvemu/policy.h>"
! grep -n '#include "' "$hdr" || fail "policy.h includes an internal header"

# find_package(nvemu): the CMake package of the install.
cmake -S "$src/examples/policy" -B "$work/cm" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" \
  >"$work/cm.log" 2>&1 || { cat "$work/cm.log"; fail "configuring the example plugin against $prefix"; }
cmake --build "$work/cm" >>"$work/cm.log" 2>&1 || { cat "$work/cm.log"; fail "building the example plugin"; }
# pkg-config: the same source with the installed nvemu-policy.pc.
pcdir=$(dirname "$(find "$prefix" -name nvemu-policy.pc | head -n1)")
cflags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags nvemu-policy) || fail "pkg-config nvemu-policy"
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC $cflags -o "$work/pc/short_be.so" "$src/examples/policy/short_be.c" ||
  fail "building the example plugin with pkg-config"

"$nvemu" policy "$work/cm/short_be.so" lc=lc | grep -q '^accepted: policy short_be' || fail "nvemu policy refuses the example"
"$nvemu" policy "$work/pc/short_be.so" be_us=0 lc=lc | grep -q "^refused: .*be_us=.0. must be" || fail "nvemu policy accepts be_us=0"
"$nvemu" policy gpreempt lc=a be=b | grep -q '^accepted: policy gpreempt' || fail "bundled policy not found by name"
cp "$src/examples/policy/scenario.yaml" "$work/cm/"
"$nvemu" scenario run "$work/cm/scenario.yaml" --quiet --out "$work/out" || fail "the example scenario failed"
for f in results.json junit.xml trace.json report.html; do [ -s "$work/out/$f" ] || fail "no $f"; done
"$nvemu" record -o "$work/rec.log" -- /bin/true || fail "nvemu record cannot find its library"

# Nothing refers back to the build tree (strings of the loadable sections, not debug info).
for f in "$nvemu" "$prefix"/lib*/nvemu/policies/*.so "$prefix"/lib*/nvemu/libnvemu-record.so; do
  [ -f "$f" ] || continue
  # (sanitizer builds keep source file names, generated sources included, for their reports: not lookups)
  if readelf -p .rodata "$f" 2>/dev/null | grep -F "$build/" | grep -v '\.[ch]$'; then fail "$f names the build tree"; fi
done
echo "installed tree at $prefix: ok"
