#!/bin/sh
# `nvemu replay` on what users hand it: an empty file, a file that is not a trace, a directory and an
# unknown profile are input errors (exit 2) with one line on stderr and nothing on stdout; a trace of another
# board of the same kind replays with its per-board answers classed as board identity (exit 0, no hint); a
# trace of another kind of GPU replays with mismatches (exit 1) and a hint naming the profile it matches,
# while the right profile replays a trace cleanly without a hint.
# usage: cli_messages.sh NVEMU FIXTURES_HW_DIR WORKDIR
set -u
nvemu=$1 hw=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
: >"$work/empty.log"
printf '# comment only\n\n' >"$work/comments.log"
input_error() { # WHAT ARGS...
  what=$1; shift
  "$nvemu" replay "$@" >"$work/out" 2>"$work/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2"
  [ ! -s "$work/out" ] || fail "$what: wrote to stdout: $(cat "$work/out")"
  [ "$(wc -l <"$work/err")" -eq 1 ] || fail "$what: expected one message, got: $(cat "$work/err")"
  ! grep -qi 'owner\|parse error' "$work/err" || fail "$what: internal wording: $(cat "$work/err")"
}
input_error "empty trace" "$work/empty.log"
grep -q 'empty' "$work/err" || fail "the empty trace is not called empty: $(cat "$work/err")"
input_error "comments only" "$work/comments.log"
input_error "a text file" "$hw/README.md"
grep -q 'not an RM trace' "$work/err" || fail "a text file is not called a non-trace: $(cat "$work/err")"
input_error "a binary file" "$nvemu"
input_error "a directory" "$work"
input_error "an unknown profile" --profile no-such-gpu "$hw/trace-streams.log"
grep -q 'h200-dev' "$work/err" || fail "the unknown profile message lists no built-in profile: $(cat "$work/err")"

"$nvemu" replay "$hw/trace-streams.log" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -eq 0 ] || fail "another H200 board's trace on the default profile: exit $rc, expected 0"
grep -q 'board identity (floorsweeping: SM order)' "$work/out" "$work/err" ||
    fail "the other board's SM order is not board identity: $(cat "$work/out" "$work/err")"
! grep -q 'hint' "$work/err" || fail "a hint on a replay without mismatches: $(cat "$work/err")"
"$nvemu" replay "$hw/../h100-580.159.04/trace-streams.log.gz" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" -eq 1 ] || fail "an H100's trace on the default profile: exit $rc, expected 1"
grep -q 'hint: with --profile h100 ' "$work/err" || fail "no hint naming --profile h100: $(cat "$work/err")"
"$nvemu" replay --profile h200-dev "$hw/trace-streams.log" >"$work/out" 2>"$work/err" || fail "the right profile"
! grep -q 'hint' "$work/err" || fail "a hint on a clean replay: $(cat "$work/err")"
! grep -qi 'owner' "$work/out" "$work/err" || fail "internal wording in the output"
echo "replay: input errors are one message with exit 2; another H200 board is board identity; an H100's trace names --profile h100"
