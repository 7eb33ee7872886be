#!/bin/sh
# class_answers_too_large_test.sh ATTNLAB SOURCE_DIR
# An answers file over the 1 MiB an answers file may have (exercises/
# answers.hpp kAnswersMaxBytes), beside F2 code in a class folder, is said to
# be too large, with the limit, where the run lists what it ignored and in
# the student's note; not "not an answers file: its exercise is not F2 or F4"
# (its "exercise" is F2: it was never read).
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-answers-large-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_answers_too_large_test: $*" >&2; exit 1; }
mkdir -p "$tmp/class/bigans"
cp "$src/solutions/F2/masked_softmax.py" "$tmp/class/bigans/masked.py"
/usr/bin/python3 - "$src/solutions/F2/answers.json" "$tmp/class/bigans/answers.json" <<'PY'
import sys
text = open(sys.argv[1]).read().rstrip()
assert text.endswith("}")
open(sys.argv[2], "w").write(text[:-1] + " " * (2 << 20) + "}\n")  # the right answers, 2 MiB
PY
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/out" > "$tmp/run.txt" 2>&1
rc=$?
[ $rc -le 1 ] || { cat "$tmp/run.txt"; fail "exit $rc, expected 0 or 1 (graded)"; }
if grep -q 'is not F2 or F4' "$tmp/run.txt"; then
  cat "$tmp/run.txt"; fail "a too large answers file is said to be of another exercise"
fi
grep -q 'answers.json (not read as an answers file: .*larger than 1048576 bytes, the limit of an answers file)' \
  "$tmp/run.txt" || { cat "$tmp/run.txt"; fail "the run does not say the answers file is too large"; }
/usr/bin/python3 - "$tmp/out/summary.csv" <<'PY' || fail "the student's note does not say the answers file is too large"
import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
note = rows["bigans"]["note"]
assert "answers.json: not read as an answers file: larger than 1048576 bytes" in note, note
assert "the limit of an answers file: 1 MiB" in note, note
PY
echo "class_answers_too_large_test: passed"
