#!/bin/sh
# expect_all.sh CODE [REGEX...] -- CMD...
# Runs CMD; passes (exit 0) iff CMD exits with status CODE and its output
# (stdout and stderr) matches every REGEX (grep -E, each on some line).
want=$1
shift
n=0
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  n=$((n + 1))
  eval "pattern_$n=\$1"
  shift
done
if [ "$1" != "--" ]; then
  echo "expect_all: usage: expect_all.sh CODE [REGEX...] -- CMD..." >&2
  exit 2
fi
shift
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$got" != "$want" ]; then
  echo "expect_all: expected exit status $want, got $got" >&2
  exit 1
fi
k=1
while [ "$k" -le "$n" ]; do
  eval "pattern=\$pattern_$k"
  if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
    echo "expect_all: the output does not match /$pattern/" >&2
    exit 1
  fi
  k=$((k + 1))
done
exit 0
