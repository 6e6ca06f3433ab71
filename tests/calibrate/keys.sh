# Sourced by the calibrate tests: a fitted profile's timing keys and how near they are to a value.
# fitted_value FILE KEY: KEY's number as `nvemu calibrate` wrote it under timing (us, or ns without the unit), or
# nothing when the file has no such key.
fitted_value() {
  sed -n "s/^  $2: *\([0-9.]*\)\(ns\)\{0,1\} .*/\1/p" "$1"
}
# near V WANT TOL: succeeds when V lies within TOL of WANT, relative to WANT.
near() {
  awk -v v="$1" -v h="$2" -v t="$3" 'BEGIN { d = (v - h) / h; if (d < 0) d = -d; exit (d <= t) ? 0 : 1 }'
}
