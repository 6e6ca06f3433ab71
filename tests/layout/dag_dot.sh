#!/bin/sh
# dag_dot.sh DOT MODULES_FILE: docs/module-dag.dot draws exactly the module edges and the folder edges the build
# links (the "module NAME DEPS..." and "folder PATH DEPS..." lines CMake writes), no more, no fewer.
set -u
dot=$1 modules=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -n 's/^[[:space:]]*"nvemu_\([a-z]*\)" -> "nvemu_\([a-z]*\)";.*/\1 \2/p' "$dot" | sort -u > "$tmp/drawn"
awk '$1 == "module" { for (i = 3; i <= NF; i++) print $2, $i }' "$modules" | sort -u > "$tmp/linked"
# nvemu_front links nvemu_inproc: both are module "front", whose edge the drawing names by target
grep -q '"nvemu_front" -> "nvemu_inproc"' "$dot" || { echo "front -> inproc missing"; exit 1; }
grep -v '^front inproc$' "$tmp/drawn" | sed 's/^inproc /front /' | sort -u > "$tmp/drawn2"
if ! cmp -s "$tmp/drawn2" "$tmp/linked"; then
  echo "docs/module-dag.dot differs from the linked module edges (< drawn, > linked):"
  diff "$tmp/drawn2" "$tmp/linked"
  exit 1
fi
sed -n 's/^[[:space:]]*"\([a-z][^"_]*\)" -> "\([^"]*\)";.*/\1 \2/p' "$dot" | sort -u > "$tmp/fdrawn"
awk '$1 == "folder" { for (i = 3; i <= NF; i++) print $2, $i }' "$modules" | sort -u > "$tmp/flinked"
if ! cmp -s "$tmp/fdrawn" "$tmp/flinked"; then
  echo "docs/module-dag.dot differs from the linked folder edges (< drawn, > linked):"
  diff "$tmp/fdrawn" "$tmp/flinked"
  exit 1
fi
echo "ok: $(wc -l < "$tmp/linked") module edges, $(wc -l < "$tmp/flinked") folder edges"
