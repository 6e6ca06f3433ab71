#!/bin/sh
# Every document a bundled scenario's description or a GPU profile's comment cites (a path ending in .md)
# is in the repository (and so installed with the documentation): no reference to a page a user cannot read.
# usage: doc_refs.sh SOURCE_DIR
set -u
src=$1
cd "$src" || exit 1
bad=0
for ref in $(grep -oh '[A-Za-z0-9_./-]*\.md' scenarios/*.yaml emu/profiles/*.yaml | sort -u); do
  [ -f "$ref" ] || { echo "FAIL: $(grep -l -- "$ref" scenarios/*.yaml emu/profiles/*.yaml | tr '\n' ' ')cite $ref, which is not in the repository"; bad=1; }
done
for sec in $(grep -oh 'docs/sources.md §S[0-9.]*[0-9]' scenarios/*.yaml emu/profiles/*.yaml | sed 's/.*§//' | sort -u); do
  grep -q "^##* $sec[. ]" docs/sources.md || { echo "FAIL: docs/sources.md has no section $sec"; bad=1; }
done
[ $bad -eq 0 ] && echo "documents cited by scenarios and profiles: all present"
exit $bad
