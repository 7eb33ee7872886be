#!/bin/sh
# gradebook_lock_test.sh ATTNLAB SOURCE_DIR
# Two graders into one --out at once: the first holds the folder's lock
# (out_folder.hpp) while a submission of its class waits on a flag file;
# the second, a regrade of another student into the same folder, must exit
# 2 at once, saying that another attnlab grade is writing to that folder.
# Afterwards the first one's gradebook parses, has every student, and no
# temporary file is left in the folder.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-lock-test-XXXXXX)
trap 'rm -f "$tmp/hold"; rm -rf "$tmp"' EXIT
fail() { echo "gradebook_lock_test: $*" >&2; exit 1; }

class="$tmp/class"
for s in ana ben; do mkdir -p "$class/$s"; cp "$src/solutions/F1/softmax_rows.py" "$class/$s/softmax.py"; done
mkdir -p "$class/cleo"
# cleo's module waits while the flag exists (graded without the sandbox, so it sees the flag).
{ printf 'import os, time\nwhile os.path.exists("%s"):\n    time.sleep(0.05)\n' "$tmp/hold"
  cat "$src/solutions/F1/softmax_rows.py"; } > "$class/cleo/softmax.py"
touch "$tmp/hold"
chmod 755 "$tmp"  # the submission may run as another uid (the sandbox's, as root): it must see the flag
out="$tmp/out"
"$attnlab" grade "$class" --no-sandbox --cases 5 --jobs 1 --timeout 300 --out "$out" > "$tmp/first.txt" 2>&1 &
first=$!
# The first grader holds the lock once its pid is in the lock file.
n=0
until [ "$(cat "$out/.attnlab-lock" 2>/dev/null)" = "$first" ]; do
  n=$((n + 1)); [ $n -lt 1200 ] || { cat "$tmp/first.txt"; fail "the first grader never took the lock"; }
  kill -0 $first 2>/dev/null || { cat "$tmp/first.txt"; fail "the first grader ended early"; }
  sleep 0.1
done
timeout 120 "$attnlab" grade "$class" --students ana --no-sandbox --cases 5 --out "$out" > "$tmp/second.out" 2> "$tmp/second.txt"
code=$?
rm -f "$tmp/hold"
wait $first
first_code=$?
[ "$code" = 2 ] || { cat "$tmp/second.txt"; fail "the second grader: expected exit status 2, got $code"; }
# The refusal is an error: on stderr, not among stdout's progress lines.
grep -q "another attnlab grade (or merge) is writing to $out" "$tmp/second.txt" ||
  { cat "$tmp/second.out" "$tmp/second.txt"; fail "the second grader does not say on stderr that another attnlab grade writes to $out"; }
grep -q "^\[1/" "$tmp/second.out" "$tmp/second.txt" && fail "the second grader graded someone"
[ "$first_code" = 0 ] || { cat "$tmp/first.txt"; fail "the first grader: expected exit status 0, got $first_code"; }
/usr/bin/python3 - "$out" <<'PY' || fail "the gradebook after the two graders is not whole"
import json, os, sys
out = sys.argv[1]
s = json.load(open(os.path.join(out, "summary.json")))
assert sorted(r["student"] for r in s["students"]) == ["ana", "ben", "cleo"], s["students"]
assert s["run"]["complete"] is True, s["run"]
left = [f for f in os.listdir(out) if f.startswith(".") and f != ".attnlab-lock"]
left += [f for f in os.listdir(os.path.join(out, "students")) if f.startswith(".")]
assert not left, left  # no temporary file left behind
PY
# The lock is released with its process: a third grader into the folder works
# (with the first one's settings: a regrade keeping rows of others is refused).
"$attnlab" grade "$class" --students ana --no-sandbox --cases 5 --timeout 300 --out "$out" > "$tmp/third.txt" 2>&1 ||
  { cat "$tmp/third.txt"; fail "a grader after the first one finished could not write to $out"; }
echo "gradebook_lock_test: ok"
