#!/bin/sh
# The installed tree is a self-contained tool and plugin SDK: a policy author's path, from an install
# prefix alone (no source or build tree):
#   nvemu --version, man page, bash completion; <nvemu/policy.h> with no internal header;
#   the example plugin (examples/policy) built out of tree with find_package(nvemu) and with pkg-config;
#   `nvemu policy` accepts it; a scenario runs it and writes its reports; a bundled policy is found by
#   name; the recorder library and nvemu-ext-task are found relative to bin/nvemu; no build path inside.
# Then the README's steps as written, in a scratch directory outside the source tree with only the prefix's
# bin/ on PATH: the installed documentation, examples, headers and profiles; `nvemu init c` and
# `nvemu init bpf` projects built and passed with make and with CMake (find_package through PATH alone,
# ctest running the scenario); the C helpers through pkg-config; the preload library's full path from
# `nvemu daemon` (where FUSE works).
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

# ---- the README's steps from the installed tree alone ----
PATH="$prefix/bin:$PATH"
PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name nvemu-policy.pc | head -n1)")"
export PATH PKG_CONFIG_PATH
doc=$prefix/share/doc/nvemu ex=$prefix/share/nvemu/examples
for f in README.md scenarios.md policy-guide.md profiles.md policies.md sources.md cli.txt; do
  [ -s "$doc/$f" ] || fail "no $doc/$f"
done
grep -q '^== nvemu scenario ==' "$doc/cli.txt" || fail "cli.txt lacks the scenario help"
for h in policy_util.h nv_gpu_sched.bpf.h; do [ -f "$prefix/include/nvemu/$h" ] || fail "no <nvemu/$h>"; done
nvemu scenario --help | grep -q 'share/doc/nvemu/scenarios.md' || fail "scenario --help does not point at the installed schema"
grep -q '^\.SH FILES' "$prefix/share/man/man1/nvemu.1" || fail "the man page names no installed files"
nvemu profile check "$prefix"/share/nvemu/profiles/*.yaml >/dev/null || fail "an installed profile does not check"
[ -f "$prefix/share/nvemu/profiles/h200.yaml" ] || fail "no installed h200 profile"
nvemu scenario check "$ex"/scenarios/*.yaml >/dev/null 2>&1 || fail "an installed example scenario does not check"
for d in c-policy bpf-policy policy ci; do [ -d "$ex/$d" ] || fail "no $ex/$d"; done
scratch=$(mktemp -d /tmp/nvemu-sdk.XXXXXX)
# (a failing command in an EXIT trap would be the script's status under set -e: the cleanup must not decide it)
trap 'rm -rf "$scratch" 2>/dev/null || true' EXIT
cd "$scratch" || fail "scratch directory"
for kind in c bpf; do
  nvemu init "$kind" "$kind-make" >/dev/null || fail "nvemu init $kind"
  for f in Makefile CMakeLists.txt scenario.yaml .github/workflows/nvemu.yml; do
    [ -s "$kind-make/$f" ] || fail "nvemu init $kind wrote no $f"
  done
  diff -r "$ex/$kind-policy" "$kind-make" >/dev/null || fail "nvemu init $kind differs from the installed example"
  (cd "$kind-make" && make check) >"$kind-make.log" 2>&1 || { cat "$kind-make.log"; fail "init $kind: make check"; }
  grep -q 'PASS' "$kind-make/results/junit.xml" 2>/dev/null || grep -q '<testcase' "$kind-make/results/junit.xml" ||
    fail "init $kind: make check wrote no junit.xml"
  nvemu init "$kind" "$kind-cmake" >/dev/null || fail "nvemu init $kind (cmake)"
  (cd "$kind-cmake" && cmake -S . -B build && cmake --build build && ctest --test-dir build --output-on-failure) \
    >"$kind-cmake.log" 2>&1 || { cat "$kind-cmake.log"; fail "init $kind: cmake, build and ctest (find_package through PATH)"; }
  grep -q '100% tests passed' "$kind-cmake.log" || fail "init $kind: ctest ran no scenario"
done
nvemu init c c-make 2>/dev/null && fail "init over an existing project did not refuse"
# pkg-config: the C project's source with the helpers' library (the README's PKG_CONFIG_PATH line)
cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden $(pkg-config --cflags nvemu-policy) \
  -o pc_policy.so c-make/my_policy.c $(pkg-config --libs nvemu-policy) || fail "the init project with pkg-config"
nvemu policy ./pc_policy.so lc=lc be=be | grep -q '^accepted: policy my_policy' || fail "the pkg-config build is refused"
! nm -D --defined-only pc_policy.so | grep -q ' pu_' || fail "the helpers are exported from the plugin"
# the daemon hands out the preload library's full path (the bare name is not on the loader's path)
if env_out=$(nvemu daemon --mount "$scratch/mnt" 2>/dev/null); then
  eval "$env_out"
  kill "$NVEMU_DAEMON_PID" 2>/dev/null
  # the daemon unmounts on its way out: wait for it before the scratch directory goes
  n=0; while mountpoint -q "$scratch/mnt" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
  if mountpoint -q "$scratch/mnt" 2>/dev/null; then fusermount3 -u -z "$scratch/mnt" 2>/dev/null || true; fi
  [ -n "${NVEMU_PRELOAD:-}" ] && [ -f "$NVEMU_PRELOAD" ] || fail "nvemu daemon exports no NVEMU_PRELOAD"
  case $NVEMU_PRELOAD in "$prefix"/*) ;; *) fail "NVEMU_PRELOAD=$NVEMU_PRELOAD is not the installed library" ;; esac
fi
echo "installed tree at $prefix: ok"
