# Sourced by record-frameworks.sh and record-heldout.sh: the one way a program is recorded. The caller sets
# N (nvemu's folder), P (the programs' folder), R (the output folder), LDP (the programs' LD_LIBRARY_PATH),
# SEL (the NAMEs asked for; empty: all) and WIDTH (the name column of the summary line).

# want NAME: whether NAME was asked for.
want() { [ ${#SEL[@]} = 0 ] && return 0; local s; for s in "${SEL[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

# record NAME TIMEOUT CMD...: CMD under `nvemu record`, one trace per process (trace-NAME.log, or trace-NAME-pN.log
# numbered in the order their traces were last written), its output and exit status in NAME.txt.
record() {
  local name=$1 tmo=$2; shift 2
  local t0=$SECONDS
  (cd "$P" && LD_LIBRARY_PATH=$N/lib timeout "$tmo" "$N/nvemu" record -o "$R/trace-$name-%p.log" -- env LD_LIBRARY_PATH="$LDP" "$@") > "$R/$name.txt" 2>&1
  local rc=$? files i=0 f
  echo "rc=$rc" >> "$R/$name.txt"
  files=$(ls -tr "$R"/trace-$name-[0-9]*.log 2>/dev/null)
  for f in $files; do
    if [ "$(echo "$files" | wc -w)" = 1 ]; then mv "$f" "$R/trace-$name.log"; else mv "$f" "$R/trace-$name-p$i.log"; fi
    i=$((i+1))
  done
  printf "%-${WIDTH}s rc=%s %3ss lines=%s\n" "$name" "$rc" $((SECONDS - t0)) "$(cat "$R"/trace-$name*.log 2>/dev/null | wc -l)"
}
