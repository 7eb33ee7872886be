#!/bin/sh
# attnlab check --junit FILE --report FILE: one <testcase> per property of
# the operation (13 for attention), a <failure> for the one that fails, and
# the text report written as printed.
# Usage: check_junit_test.sh ATTNLAB SOURCE_DIR
set -eu
attnlab="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
"$attnlab" check "$src/exercises/mutants/f3_forbidden_row_zeros.py" --cases 20 \
  --junit "$tmp/j.xml" --report "$tmp/r.txt" >"$tmp/out.txt" 2>&1 || status=$?
[ "$status" = 1 ] || { echo "expected exit 1, got $status"; cat "$tmp/out.txt"; exit 1; }
cases=$(grep -o '<testcase ' "$tmp/j.xml" | wc -l)
failures=$(grep -o '<failure ' "$tmp/j.xml" | wc -l)
[ "$cases" = 13 ] || { echo "expected 13 testcases, got $cases"; cat "$tmp/j.xml"; exit 1; }
[ "$failures" = 1 ] || { echo "expected 1 failure, got $failures"; exit 1; }
grep -q 'fully_forbidden_refused' "$tmp/j.xml" || { echo "no fully_forbidden_refused testcase"; exit 1; }
cmp -s "$tmp/out.txt" "$tmp/r.txt" || { echo "--report differs from stdout"; diff "$tmp/out.txt" "$tmp/r.txt"; exit 1; }
echo "check --junit: 13 testcases, 1 failure; --report as printed"
