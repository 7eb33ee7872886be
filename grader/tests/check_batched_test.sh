#!/bin/sh
# attnlab check --op batched_attention on a kernel with one mistake: exit 1,
# the property named FAIL with the head and row of the counterexample
# (n = , h = , query row), the fact about the answer the property states,
# and no misconception named (misconceptions/ models none of this operation).
# Usage: check_batched_test.sh ATTNLAB KERNEL PROPERTY FACT [ARGS...]
set -eu
attnlab="$1"
kernel="$2"
property="$3"
fact="$4"
shift 4
status=0
out=$("$attnlab" check "$kernel" --op batched_attention --entry gqa --cases 30 "$@" 2>&1) || status=$?
printf '%s\n' "$out"
fail() { echo "check_batched_test: $1" >&2; exit 1; }
[ "$status" = 1 ] || fail "expected exit status 1, got $status"
printf '%s\n' "$out" | grep -Eq -- "^FAIL  $property: " || fail "no FAIL line for $property"
printf '%s\n' "$out" | grep -E -- "^FAIL  $property: " | grep -Fq -- "$fact" ||
  fail "the FAIL line of $property does not say: $fact"
printf '%s\n' "$out" | grep -Eq -- "Q\[n=[0-9]+, h=[0-9]+\]" || fail "no per-head slice of Q shown"
printf '%s\n' "$out" | grep -Eq -- "<- row [0-9]+" || fail "no query row marked"
if printf '%s\n' "$out" | grep -Eiq -- "misconception"; then fail "a misconception is named"; fi
echo "check_batched_test: $property fails as expected, head and row shown, no misconception"
