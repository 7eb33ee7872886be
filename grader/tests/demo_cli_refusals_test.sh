#!/bin/sh
# attnlab demo: every option it would ignore is refused on stderr with exit
# status 2, naming the option, and an unknown demonstration is said as such
# (before any complaint about its inputs). The list alone goes to stdout;
# stdout that cannot be written is an error (exit 2), for every command.
#   demo_cli_refusals_test.sh ATTNLAB
set -u
attnlab=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect CODE STDERR-REGEX STDOUT-MUST-BE-EMPTY(yes|no) ARGS...
expect() {
  code=$1 pattern=$2 quiet=$3
  shift 3
  "$attnlab" "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" != "$code" ]; then
    echo "FAIL: attnlab $*: exit $got, expected $code"; cat "$tmp/out" "$tmp/err"; fail=1; return
  fi
  if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$tmp/err"; then
    echo "FAIL: attnlab $*: stderr does not match /$pattern/"; cat "$tmp/err"; fail=1; return
  fi
  if [ "$quiet" = yes ] && [ -s "$tmp/out" ]; then
    echo "FAIL: attnlab $*: a refusal wrote to stdout:"; cat "$tmp/out"; fail=1; return
  fi
  echo "ok: attnlab $* -> $got"
}

# The list: stdout, exit 0.
expect 0 "" no demo
grep -q "masking" "$tmp/out" || { echo "FAIL: the list does not name masking"; fail=1; }
# Options without a demonstration would be ignored: refused, naming the option.
expect 2 "--size needs a demonstration" yes demo --size 4
expect 2 "--font-scale needs a demonstration" yes demo --font-scale 2
expect 2 "--format needs a demonstration" yes demo --format csv
expect 2 "--svg needs a demonstration" yes demo --svg "$tmp/x.svg"
[ -e "$tmp/x.svg" ] && { echo "FAIL: a refused command left $tmp/x.svg"; fail=1; }
# An unknown demonstration: said on stderr, with or without inputs.
expect 2 "unknown demonstration 'nosuch'" yes demo nosuch
expect 2 "unknown demonstration 'nosuch'" yes demo nosuch --size 3
grep -q "masking" "$tmp/err" || { echo "FAIL: the refusal does not list the demonstrations"; fail=1; }
# A known demonstration with an input it does not read.
expect 2 "does not read --mask" yes demo scaling --mask causal
# Output paths that cannot be written: said first, naming the option, nothing printed.
: > "$tmp/afile"
expect 2 "--html .*afile: not a folder" yes demo --html "$tmp/afile"
expect 2 "--svg .*: cannot write" yes demo masking --svg "$tmp/no/such/dir/x.svg"
expect 2 "--html needs a folder" yes demo --html ""
expect 2 "--html .*afile/sub: cannot make the folder" yes demo --html "$tmp/afile/sub"
# An empty NAME is an unknown one, not the list.
expect 2 "unknown demonstration ''" yes demo ""
grep -q "masking" "$tmp/err" || { echo "FAIL: demo '': the refusal does not list the demonstrations"; fail=1; }
# Values: the range said, and an option given twice said as such.
expect 2 "--size must be a whole number from 1 to 64, got '-3'" yes demo masking --size -3
expect 2 "--size given twice \\(give it once\\)" yes demo masking --size 4 --size 5
expect 2 "--size given 3 times" yes demo masking --size 4 --size 5 --size 6
# A failed write to standard output is a failure, said (as --svg /dev/full is).
if [ -w /dev/full ]; then
  for args in "demo masking --format csv" "demo masking" "demo scaling-sweep --format json --seeds 1" \
              "demo scaling-sweep --seeds 1" "demo" "check $src/solutions/F3/attention.py --list-properties"; do
    # shellcheck disable=SC2086
    "$attnlab" $args > /dev/full 2> "$tmp/err"
    got=$?
    if [ "$got" != 2 ] || ! grep -q "cannot write standard output" "$tmp/err"; then
      echo "FAIL: attnlab $args > /dev/full: exit $got"; cat "$tmp/err"; fail=1
    else
      echo "ok: attnlab $args > /dev/full -> 2"
    fi
  done
fi
# The valid forms still run.
expect 0 "" no demo masking --size 3
expect 0 "" no demo weights

exit $fail
