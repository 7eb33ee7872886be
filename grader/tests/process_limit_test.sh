#!/bin/sh
# process_limit_test.sh ATTNLAB FORKS_FIXTURE
# A submission that forks 200 processes must hit the process limit (RLIMIT_NPROC
# of a uid of its own in the sandbox; the user's count plus an allowance when
# not root). Where the limit cannot hold (root without a working sandbox) the
# report says "not enforced" and this test is skipped (exit 77).
set -u
out=$("$1" grade "$2" --cases 3 --max-processes 32 --sandbox-uid 64200 --verbose 2>&1)
code=$?
printf '%s\n' "$out"
if printf '%s\n' "$out" | grep -q "processes: *not enforced"; then
  echo "process_limit_test: the limit is not enforced here (root without the sandbox): skipped"
  exit 77
fi
[ "$code" = 1 ] || { echo "process_limit_test: expected exit status 1, got $code" >&2; exit 1; }
n=$(printf '%s\n' "$out" | sed -n 's/.*fork failed after \([0-9]*\) processes.*/\1/p' | head -n 1)
[ -n "$n" ] || { echo "process_limit_test: fork() never failed" >&2; exit 1; }
[ "$n" -lt 200 ] || { echo "process_limit_test: $n processes started" >&2; exit 1; }
echo "process_limit_test: ok (fork failed after $n processes)"
