#!/bin/sh
# public_check_test.sh ATTNLAB FILE STATUS PROPS [CHECK-OPTIONS...]
# Checks a reimplementation of public attention code (data/public/) and
# asserts the verdict decided before attnlab was run on it: the exit status
# STATUS (0 pass, 1 fail) and every property of PROPS (space-separated, "-"
# for none) reported FAIL. The diagnosis text is not asserted (README.md of
# data/public lists where it was judged wrong).
set -u
attnlab=$1 file=$2 want=$3 props=$4
shift 4
out=$("$attnlab" check "$file" --cases 50 "$@" 2>&1)
rc=$?
if [ "$rc" != "$want" ]; then
  echo "exit status $rc, expected $want"; echo "$out" | tail -40; exit 1
fi
[ "$props" = "-" ] && { echo ok; exit 0; }
for p in $props; do
  echo "$out" | grep -q "^FAIL  $p:" || { echo "property $p did not fail"; echo "$out" | grep -E '^(PASS|FAIL)'; exit 1; }
done
echo ok
