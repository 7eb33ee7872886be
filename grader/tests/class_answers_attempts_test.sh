#!/bin/sh
# class_answers_attempts_test.sh ATTNLAB SOURCE_DIR
# Two answers files of one exercise beside its code are two attempts, and
# the attempt policy picks one as it does among code files: "latest" (the
# default) grades the newer a2.json (wrong) with the code, says so in the
# choice and the report's note, and grades a1.json (right, older) nowhere,
# not as a row of its own.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-answers-attempts-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_answers_attempts_test: $*" >&2; exit 1; }
d="$tmp/class/twoans"
mkdir -p "$d"
cp "$src/solutions/F4/masked_attention.py" "$d/fix.py"
cp "$src/solutions/F4/answers.json" "$d/a1.json"
printf '{"exercise": "F4", "buggy_row_sum": 0.9}\n' > "$d/a2.json"
touch -d 2026-01-01 "$d/fix.py" "$d/a1.json"
touch -d 2026-01-02 "$d/a2.json"
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/out" > "$tmp/run.txt" 2>&1
rc=$?
[ $rc -le 1 ] || { cat "$tmp/run.txt"; fail "exit $rc"; }
/usr/bin/python3 - "$tmp/out" "$src" <<'PY' || { cat "$tmp/run.txt"; fail "the attempt policy did not pick the latest answers file"; }
import csv, json, os, sys
out, src = sys.argv[1], sys.argv[2]
s = json.load(open(os.path.join(out, "summary.json")))
files = [r["file"] for r in s["submissions"]]
assert files == ["twoans/fix.py"], files
row = s["submissions"][0]
full = sum(json.load(open(os.path.join(src, "exercises", "F4", "points.json")))["points"].values())
student = s["students"][0]
answers = student["points"]["F4:answers"]
assert answers == 0, student["points"]
assert student["score"] < full, student
said = "graded a2.json: latest of 2 answers files of F4 by modification time (not graded: a1.json)"
assert said in row["choice"], row["choice"]
report = open(os.path.join(out, row["report"])).read()
assert "note:        " + said in report, report[:1500]
assert "the best one counts" not in student["note"], student["note"]
with open(os.path.join(out, "summary.csv"), newline="") as f:
    csv_note = next(csv.DictReader(f))["note"]
assert said in csv_note, ("summary.csv's note lacks the attempt", csv_note)
PY
# Equal modification times: the last by name (a2.json) is graded, and the
# note says that the name decided.
touch -d 2026-01-03 "$d/a1.json" "$d/a2.json"
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/out2" > "$tmp/run2.txt" 2>&1
grep -q "graded a2.json: latest of 2 answers files of F4 by modification time (equal times: the last by name) (not graded: a1.json)" "$tmp/out2/summary.json" ||
  { cat "$tmp/run2.txt"; fail "equal times: the note does not say the last by name was graded"; }
echo "class_answers_attempts_test: passed"
