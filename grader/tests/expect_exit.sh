#!/bin/sh
# expect_exit.sh CODE REGEX CMD...
# Runs CMD; passes (exit 0) iff CMD exits with status CODE and, when REGEX is
# not empty, its output (stdout and stderr) matches REGEX (grep -E).
want=$1
pattern=$2
shift 2
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$got" != "$want" ]; then
  echo "expect_exit: expected exit status $want, got $got" >&2
  exit 1
fi
if [ -n "$pattern" ] && ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
  echo "expect_exit: the output does not match /$pattern/" >&2
  exit 1
fi
exit 0
