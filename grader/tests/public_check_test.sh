#!/bin/sh
# public_check_test.sh ATTNLAB FILE STATUS PROPS [--expect-diagnosis=TEXT] [CHECK-OPTIONS...]
# Checks a reimplementation of public attention code (data/public/) and
# asserts the verdict decided before attnlab was run on it: the exit status
# STATUS (0 pass, 1 fail) and every property of PROPS (space-separated, "-"
# for none) reported FAIL. With --expect-diagnosis=TEXT, every failure's
# diagnosis must begin with TEXT (the output's line breaks and runs of
# spaces read as one space), for the names verified by hand
# (README.md of data/public); other diagnosis text is not asserted.
set -u
attnlab=$1 file=$2 want=$3 props=$4
shift 4
expect=
case "${1-}" in --expect-diagnosis=*) expect=${1#--expect-diagnosis=}; shift ;; esac
out=$("$attnlab" check "$file" --cases 50 "$@" 2>&1)
rc=$?
if [ "$rc" != "$want" ]; then
  echo "exit status $rc, expected $want"; echo "$out" | tail -40; exit 1
fi
if [ -n "$expect" ]; then
  flat=$(echo "$out" | tr '\n' ' ' | tr -s ' ')
  n=$(echo "$flat" | grep -o "diagnosis: " | wc -l)
  k=$(echo "$flat" | grep -oF "diagnosis: $expect" | wc -l)
  if [ "$n" -eq 0 ] || [ "$n" != "$k" ]; then
    echo "$k of $n diagnoses begin with: $expect"; echo "$out" | grep -A2 "diagnosis:"; exit 1
  fi
fi
[ "$props" = "-" ] && { echo ok; exit 0; }
for p in $props; do
  echo "$out" | grep -q "^FAIL  $p:" || { echo "property $p did not fail"; echo "$out" | grep -E '^(PASS|FAIL)'; exit 1; }
done
echo ok
