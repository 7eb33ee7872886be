#!/bin/sh
# class_teacher_files_test.sh ATTNLAB SOURCE_DIR
# A teacher keeps the course's configuration and an answer key directly in the
# class folder (beside the students' folders) and grades it with that
# configuration. A .json there that names no "exercise" is no answers file
# (the rule a student's own folder follows): it is ignored with its reason, is
# nobody's row, and the run ends as the students' grades say (0 here). A
# loose .json that names its exercise is still a student's answers file. A
# file ignored inside a student's archive is named by the archive and its
# member ("dave.tar: hw/README.txt"), not by the temporary folder it was
# unpacked into.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-teacher-files-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_teacher_files_test: $*" >&2; [ -f "$tmp/stdout.txt" ] && cat "$tmp/stdout.txt" >&2; exit 1; }

class="$tmp/class"
mkdir -p "$class/alice"
cp "$src/solutions/F3/attention.py" "$class/alice/"
cp "$src/grader/examples/attnlab-config.json" "$class/attnlab-config.json"
printf '{"seed": 5, "A": [[1, 0], [0, 1]]}\n' > "$class/key.json"
cp "$src/solutions/F2/answers.json" "$class/carol.json"
mkdir -p "$tmp/dave/hw"
cp "$src/solutions/F3/attention.py" "$tmp/dave/hw/"
printf 'my homework\n' > "$tmp/dave/hw/README.txt"
tar -C "$tmp/dave" -cf "$class/dave.tar" hw

"$attnlab" grade "$class" --config "$class/attnlab-config.json" --cases 20 --out "$tmp/out" \
  > "$tmp/stdout.txt" 2>&1
code=$?
[ "$code" = 0 ] || fail "expected exit status 0, got $code"
for f in attnlab-config.json key.json; do
  grep -q "ignored .*$f (not an answers file: its \"exercise\" is not F2 or F4)" "$tmp/stdout.txt" ||
    fail "$f is not said to be ignored with its reason"
done
grep -q "carol.json" "$tmp/stdout.txt" || fail "the loose answers file naming F2 is not graded"
grep -qF "ignored $class/dave.tar: hw/README.txt (not .py" "$tmp/stdout.txt" ||
  fail "the README.txt of dave.tar is not named by the archive and its member"
if grep -q "attnlab-notebooks-" "$tmp/stdout.txt"; then fail "a message names the temporary folder"; fi
/usr/bin/python3 - "$tmp/out/summary.csv" <<'PY' || fail "summary.csv's rows are not alice's and carol's"
import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
assert sorted(rows) == ["alice", "carol.json", "dave"], sorted(rows)
assert rows["dave"]["status"] == "graded" and rows["dave"]["score"] == rows["dave"]["max_score"], rows["dave"]
assert rows["alice"]["status"] == "graded" and rows["alice"]["score"] == rows["alice"]["max_score"], rows["alice"]
assert rows["carol.json"]["exercises"] == "F2", rows["carol.json"]
PY
echo "class_teacher_files_test: passed"
