#!/bin/sh
# sandbox_fallback_test.sh ATTNLAB SOLUTION
# With bubblewrap unavailable (ATTNLAB_BWRAP names a missing program), failing
# its self-test (/bin/false), or switched off (--no-sandbox): the report says
# so in exactly one line and grading continues to a full result.
set -u
attnlab=$1
solution=$2
fail() { echo "sandbox_fallback_test: $*" >&2; exit 1; }
check() {
  what=$1
  expect=$2
  shift 2
  out=$("$@" 2>&1)
  code=$?
  printf '%s\n' "$out"
  [ "$code" = 0 ] || fail "$what: expected exit status 0, got $code"
  printf '%s\n' "$out" | grep -Eq "[0-9]+ passed, 0 failed" || fail "$what: grading did not complete"
  n=$(printf '%s\n' "$out" | grep -c "sandbox:")
  [ "$n" = 1 ] || fail "$what: expected one sandbox line, got $n"
  printf '%s\n' "$out" | grep "sandbox:" | grep -q "OFF: $expect" || fail "$what: the sandbox line does not say '$expect'"
  printf '%s\n' "$out" | grep "sandbox:" | grep -q "grading continues under the resource limits alone" ||
    fail "$what: the sandbox line does not say grading continues"
}
check "bwrap missing" "bubblewrap is not available" \
  env ATTNLAB_BWRAP=/nonexistent/bwrap "$attnlab" grade "$solution" --cases 5
check "bwrap failing" "bubblewrap (/bin/false) failed its self-test" \
  env ATTNLAB_BWRAP=/bin/false "$attnlab" grade "$solution" --cases 5
check "--no-sandbox" "switched off by --no-sandbox" "$attnlab" grade "$solution" --cases 5 --no-sandbox
echo "sandbox_fallback_test: ok"
