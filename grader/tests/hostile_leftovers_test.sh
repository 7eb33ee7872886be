#!/bin/sh
# hostile_leftovers_test.sh SOURCE_DIR
# check_hostile.py's look for processes a submission left running counts the
# processes its own run started, and only those: a stand-in for attnlab
# that leaves a detached process behind (its parent gone, the submission's
# name on its command line) is reported; a process with the same name that
# this run did not start (another checkout's ctest grading the same file)
# is not.
set -u
src=$1
fail() { echo "hostile_leftovers_test: $*" >&2; cleanup; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/attnlab-leftovers-XXXXXX") || exit 1
cleanup() {
  for f in "$tmp"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
  rm -rf "$tmp"
}
sub="$tmp/leftover_probe.py"
printf '# expect-exit: 2\n' > "$sub"
# The stand-in: exits 2 (no reports expected); with LEAK=1 it first starts
# a process in a session of its own, out of its stdout's way.
cat > "$tmp/attnlab" <<'SH'
#!/bin/sh
if [ "${LEAK:-0}" = 1 ]; then
  setsid python3 -c 'import time; time.sleep(60)' "$2" </dev/null >/dev/null 2>&1 &
  echo $! > "$(dirname "$2")/leaked.pid"
fi
echo "usage" >&2
exit 2
SH
chmod +x "$tmp/attnlab"

out=$(LEAK=1 python3 "$src/grader/tests/hostile/check_hostile.py" "$tmp/attnlab" "$sub" 2>&1)
status=$?
[ $status = 1 ] || fail "a process the run left was not reported (exit $status): $out"
echo "$out" | grep -q "processes left running (leftover_probe" ||
  fail "the report does not name the leftover: $out"

python3 -c 'import time; time.sleep(60)' "$sub" </dev/null >/dev/null 2>&1 &
echo $! > "$tmp/outside.pid"
out=$(python3 "$src/grader/tests/hostile/check_hostile.py" "$tmp/attnlab" "$sub" 2>&1)
status=$?
[ $status = 0 ] || fail "a process another run started was counted (exit $status): $out"
cleanup
echo "hostile_leftovers_test: ok"
