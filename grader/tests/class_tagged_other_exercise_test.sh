#!/bin/sh
# class_tagged_other_exercise_test.sh ATTNLAB SOURCE_DIR
# A student's file tagged `# exercise: F4` (with F4's answers) is graded
# without --exercise as F4; with --exercise F2,F3 (several exercises, none
# its own) it is no work of the class's exercises, so the student has "no
# submission" of each, the note naming the file and its exercise ("it
# holds no work of F2/F3 (fix.py: F4, ...)"), as a student with F2 work
# only has under --exercise F3: never an error row (exit 2, an absolute
# path). (With F3 alone fixed it is graded as F3: one interface.) Through
# an upload (--results-json: Gradescope's path) likewise "no work of F2/F3".
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-tagged-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_tagged_other_exercise_test: $*" >&2; exit 1; }
mkdir -p "$tmp/class/carol" "$tmp/class/dave"
{ echo "# exercise: F4"; cat "$src/solutions/F4/masked_attention.py"; } > "$tmp/class/carol/fix.py"
cp "$src/solutions/F4/answers.json" "$tmp/class/carol/answers.json"
cp "$src/solutions/F2/masked_softmax.py" "$tmp/class/dave/masked.py"

check() {  # check OUT LOG CLASS_EXERCISES(/-joined)
  /usr/bin/python3 - "$1" "$3" <<'PY' || { cat "$2"; fail "--exercise $3: carol's F4 work is not 'no submission' of $3"; }
import csv, sys
out, exercises = sys.argv[1], sys.argv[2].split("/")
text = open(out + "/summary.csv", newline="").read()
assert "/tmp/" not in text, "an absolute path in summary.csv"
rows = {r["student"]: r for r in csv.DictReader(text.splitlines())}
carol = rows["carol"]
for ex in exercises:
    assert carol[ex + " status"] == "no submission", (ex, carol)
assert carol["status"] == "no submission", carol
assert "it holds no work of " + "/".join(exercises) + " (fix.py: F4" in carol["note"], carol["note"]
PY
}
for ex in F2,F3; do
  "$attnlab" grade "$tmp/class" --exercise "$ex" --cases 5 --out "$tmp/out-$ex" > "$tmp/run-$ex.txt" 2>&1
  rc=$?
  [ $rc -le 1 ] || { cat "$tmp/run-$ex.txt"; fail "--exercise $ex: exit $rc, expected 0 or 1"; }
  check "$tmp/out-$ex" "$tmp/run-$ex.txt" "$(echo "$ex" | tr , /)"
done
# Without --exercise: F4, answers included (15 of 15).
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/out-all" > "$tmp/run-all.txt" 2>&1
/usr/bin/python3 - "$tmp/out-all" <<'PY' || { cat "$tmp/run-all.txt"; fail "without --exercise carol is not F4 with her answers"; }
import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1] + "/summary.csv", newline=""))}
assert rows["carol"]["F4 status"] == "graded" and rows["carol"]["F4:answers (3)"] == "3", rows["carol"]
PY
# An upload graded as F2 and F3 (Gradescope's path) is one with nothing of
# the assignment, as an upload of F2 work only under --exercise F3 is: its
# results.json says it holds no work of F2/F3 (exit 2, the documented
# status of an upload with nothing to grade), not "looks like exercise F4".
"$attnlab" grade "$tmp/class/carol" --exercise F2,F3 --cases 5 --results-json "$tmp/gs.json" > "$tmp/gs.txt" 2>&1
rc=$?
[ $rc = 2 ] || { cat "$tmp/gs.txt"; fail "upload --exercise F2,F3: exit $rc, expected 2 (nothing of the assignment)"; }
grep -q "holds no work of F2/F3 (fix.py: F4" "$tmp/gs.json" ||
  { cat "$tmp/gs.txt" "$tmp/gs.json"; fail "upload: results.json does not say the upload holds no work of F2/F3"; }
echo "class_tagged_other_exercise_test: passed"
