#!/bin/sh
# upload_exercises_test.sh ATTNLAB SOURCE_DIR
# One student's upload (Gradescope's /autograder/submission, PrairieLearn's
# /grade/student) holding several exercises (grading/upload.hpp):
# - a file of F2 and F3 with F2's answers: both graded, each property a
#   test named with its exercise first, score = max_score = the sum of the
#   maxima the class gradebook's columns have for F2 and F3 (the same
#   folder graded as a class, its summary.json "columns"); PrairieLearn's
#   score 1 with the tests of both; JUnit one suite per exercise;
# - the configuration's "exercises" naming F2 and F3, an upload with F3
#   only: "F2: no submission", 0 of F2's maximum, the total out of both;
# - an F2 file that does not load beside a correct F3 file: "F2: not
#   gradable", 0 of F2's maximum, F3 scored; PrairieLearn gradable, its
#   score F3's share of the total;
# - two attempts at F3 with "attempts": "best": the better counts;
# - gradescope-zip --exercise F2,F3: its configuration names both, and its
#   run_autograder grades both exercises of one upload.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-upload-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "upload_exercises_test: $*" >&2; exit 1; }
py=/usr/bin/python3

# The F2 solution and the F3 solution calling it, in one file (as a student writes it).
mkdir -p "$tmp/class/alice"
$py "$src/grader/tests/make_f2_and_f3.py" "$src" "$tmp/class/alice/attention.py" || fail "cannot write the F2+F3 file"
cp "$src/solutions/F2/answers.json" "$tmp/class/alice/answers.json"

# 1. Both exercises of the upload, each out of the gradebook's maximum.
"$attnlab" grade "$tmp/class/alice" --cases 10 --results-json "$tmp/gs1.json" \
  --prairielearn-json "$tmp/pl1.json" --junit "$tmp/j1.xml" > "$tmp/u1.txt" 2>&1
code=$?
[ "$code" = 0 ] || { cat "$tmp/u1.txt"; fail "F2+F3 upload: expected exit status 0, got $code"; }
"$attnlab" grade "$tmp/class" --cases 10 --out "$tmp/out1" > "$tmp/c1.txt" 2>&1 ||
  { cat "$tmp/c1.txt"; fail "the same folder as a class did not pass"; }
$py - "$tmp/gs1.json" "$tmp/pl1.json" "$tmp/out1/summary.json" "$tmp/j1.xml" <<'PY' || { cat "$tmp/u1.txt"; fail "F2+F3 upload: results not as expected"; }
import json, sys
import xml.etree.ElementTree as ET
gs = json.load(open(sys.argv[1]))
pl = json.load(open(sys.argv[2]))
columns = {c["exercise"]: c["max_score"] for c in json.load(open(sys.argv[3]))["columns"]}
assert set(columns) == {"F2", "F3"}, columns
total = columns["F2"] + columns["F3"]
assert gs["max_score"] == total and gs["score"] == total, (gs["score"], gs["max_score"], columns)
for ex in ("F2", "F3"):
    mine = [t for t in gs["tests"] if t["name"].startswith(ex + " ")]
    assert mine, (ex, [t["name"] for t in gs["tests"]])
    assert sum(t["max_score"] for t in mine) == columns[ex], (ex, [(t["name"], t["max_score"]) for t in mine])
assert any(t["name"].startswith("F2 answers") for t in gs["tests"]), [t["name"] for t in gs["tests"]]
assert len(gs["tests"]) == sum(t["name"][:3] in ("F2 ", "F3 ") for t in gs["tests"])
assert "== F2 ==" in gs["output"] and "== F3 ==" in gs["output"], gs["output"]
assert isinstance(gs["execution_time"], int)
assert pl["gradable"] is True and pl["score"] == 1.0, pl
assert {t["name"].split(" ")[0] for t in pl["tests"]} <= {"F2", "F3"}, [t["name"] for t in pl["tests"]]
assert "F2 " in pl["message"] and "F3 " in pl["message"], pl["message"]
suites = ET.parse(sys.argv[4]).getroot().findall("testsuite")
assert len(suites) == 2, len(suites)
PY

# f2_zero LOG GS PL TEST: results.json GS has F2 as the one test TEST, 0 of
# F2's maximum, beside F3's full marks, the total out of both maxima (the
# class gradebook's columns of step 1); PrairieLearn's results PL are
# gradable, their score F3's share, F2 a test of 0 points.
f2_zero() {
  $py - "$2" "$3" "$tmp/out1/summary.json" "$4" <<'PY' || { cat "$1"; fail "$4: F2 is not 0 of its maximum beside F3"; }
import json, sys
gs = json.load(open(sys.argv[1]))
pl = json.load(open(sys.argv[2]))
columns = {c["exercise"]: c["max_score"] for c in json.load(open(sys.argv[3]))["columns"]}
zero = [t for t in gs["tests"] if t["name"] == sys.argv[4]]
assert len(zero) == 1 and zero[0]["score"] == 0 and zero[0]["max_score"] == columns["F2"], gs["tests"]
assert gs["max_score"] == columns["F2"] + columns["F3"] and gs["score"] == columns["F3"], gs
assert pl["gradable"] is True and abs(pl["score"] - columns["F3"] / (columns["F2"] + columns["F3"])) < 1e-12, pl
assert any(t["name"] == "F2" and t["points"] == 0 and t["max_points"] == columns["F2"] for t in pl["tests"]), pl["tests"]
PY
}

# 2. The configuration grades F2 and F3; the upload has F3 only.
mkdir -p "$tmp/bob"
cp "$src/solutions/F3/attention.py" "$tmp/bob/attention.py"
printf '{"cases": 10, "exercises": {"F2": {}, "F3": {}}}\n' > "$tmp/both.json"
"$attnlab" grade "$tmp/bob" --config "$tmp/both.json" --results-json "$tmp/gs2.json" \
  --prairielearn-json "$tmp/pl2.json" > "$tmp/u2.txt" 2>&1
code=$?
[ "$code" = 1 ] || { cat "$tmp/u2.txt"; fail "F3 only, F2 configured: expected exit status 1, got $code"; }
f2_zero "$tmp/u2.txt" "$tmp/gs2.json" "$tmp/pl2.json" "F2: no submission"

# 2b. The same configuration, an empty upload: nothing to grade (exit 2),
# score 0 out of both maxima, as every other upload of the class.
mkdir -p "$tmp/empty"
"$attnlab" grade "$tmp/empty" --config "$tmp/both.json" --results-json "$tmp/gs2b.json" > "$tmp/u2b.txt" 2>&1
code=$?
[ "$code" = 2 ] || { cat "$tmp/u2b.txt"; fail "empty upload, F2 and F3 configured: expected exit status 2, got $code"; }
$py - "$tmp/gs2b.json" "$tmp/out1/summary.json" <<'PY' || { cat "$tmp/u2b.txt"; fail "empty upload: max_score is not the configured exercises' total"; }
import json, sys
gs = json.load(open(sys.argv[1]))
columns = {c["exercise"]: c["max_score"] for c in json.load(open(sys.argv[2]))["columns"]}
assert gs["score"] == 0 and gs["max_score"] == columns["F2"] + columns["F3"], (gs["score"], gs["max_score"], columns)
PY

# 3. An F2 file that does not load beside a correct F3 file.
mkdir -p "$tmp/carol"
cp "$src/solutions/F3/attention.py" "$tmp/carol/attention.py"
printf 'import numpy as np\n\ndef masked_softmax(S, mask)\n    return S\n' > "$tmp/carol/softmax.py"
cp "$src/solutions/F2/answers.json" "$tmp/carol/answers.json"
"$attnlab" grade "$tmp/carol" --cases 10 --results-json "$tmp/gs3.json" \
  --prairielearn-json "$tmp/pl3.json" > "$tmp/u3.txt" 2>&1
code=$?
[ "$code" = 1 ] || { cat "$tmp/u3.txt"; fail "a broken F2 beside F3: expected exit status 1, got $code"; }
f2_zero "$tmp/u3.txt" "$tmp/gs3.json" "$tmp/pl3.json" "F2: not gradable"
grep -q "NOT GRADABLE" "$tmp/gs3.json" || fail "a broken F2 beside F3: results.json does not say F2 is not gradable"

# 4. Two attempts at F3, "attempts": "best": the better one counts.
mkdir -p "$tmp/dave"
cp "$src/exercises/F3/skeleton.py" "$tmp/dave/attention_v1.py"
cp "$src/solutions/F3/attention.py" "$tmp/dave/attention_v2.py"
touch -d '2024-01-02 10:00' "$tmp/dave/attention_v1.py"
touch -d '2024-01-01 10:00' "$tmp/dave/attention_v2.py"
printf '{"cases": 10, "attempts": "best"}\n' > "$tmp/best.json"
"$attnlab" grade "$tmp/dave" --config "$tmp/best.json" --results-json "$tmp/gs4.json" > "$tmp/u4.txt" 2>&1
$py - "$tmp/gs4.json" "$tmp/out1/summary.json" <<'PY' || { cat "$tmp/u4.txt"; fail "attempts best: the better attempt does not count"; }
import json, sys
gs = json.load(open(sys.argv[1]))
columns = {c["exercise"]: c["max_score"] for c in json.load(open(sys.argv[2]))["columns"]}
assert gs["max_score"] == columns["F3"] and gs["score"] == columns["F3"], (gs["score"], gs["max_score"])
PY
grep -q "attention_v1.py" "$tmp/u4.txt" && grep -q "attention_v2.py" "$tmp/u4.txt" ||
  { cat "$tmp/u4.txt"; fail "attempts best: not every attempt was graded"; }
# 5. An assignment of F2 and F3 on Gradescope: gradescope-zip --exercise F2,F3
# writes a configuration whose "exercises" names just them (no "exercise"),
# and its run_autograder grades both exercises of the F2+F3 upload.
printf '{"cases": 10, "exercises": {"F3": {"points": {"oracle_agreement": 4}}, "F4": {}}}\n' > "$tmp/course.json"
"$attnlab" gradescope-zip --config "$tmp/course.json" --exercise f2,F3 -o "$tmp/zip" > "$tmp/zip.txt" 2>&1 ||
  { cat "$tmp/zip.txt"; fail "gradescope-zip --exercise F2,F3 failed"; }
grep -q "(exercises F2, F3)" "$tmp/zip.txt" || { cat "$tmp/zip.txt"; fail "gradescope-zip does not name both exercises"; }
mkdir -p "$tmp/ag"
(cd "$tmp/ag" && unzip -q "$tmp/zip/autograder.zip" run_autograder attnlab-config.json) || fail "the zip does not unpack"
$py - "$tmp/ag/attnlab-config.json" <<'PY' || fail "the zip's configuration does not name F2 and F3 alone"
import json, sys
c = json.load(open(sys.argv[1]))
assert "exercise" not in c and list(c["exercises"]) == ["F2", "F3"], c
assert c["exercises"]["F3"] == {"points": {"oracle_agreement": 4}} and c["exercises"]["F2"] == {}, c
PY
ATTNLAB="$attnlab" SUBMISSION_DIR="$tmp/class/alice" RESULTS="$tmp/gs5.json" CONFIG="$tmp/ag/attnlab-config.json" \
  bash "$tmp/ag/run_autograder" > "$tmp/u5.txt" 2>&1 || { cat "$tmp/u5.txt"; fail "run_autograder of F2,F3 failed"; }
$py - "$tmp/gs5.json" "$tmp/out1/summary.json" <<'PY' || { cat "$tmp/u5.txt"; fail "run_autograder of F2,F3: not both exercises in full"; }
import json, sys
gs = json.load(open(sys.argv[1]))
columns = {c["exercise"]: c["max_score"] for c in json.load(open(sys.argv[2]))["columns"]}
# F3's oracle_agreement is worth 4 in the course's configuration.
f3 = [t for t in gs["tests"] if t["name"].startswith("F3 oracle_agreement")]
assert len(f3) == 1 and f3[0]["max_score"] == 4, f3
assert {t["name"][:3] for t in gs["tests"]} == {"F2 ", "F3 "}, [t["name"] for t in gs["tests"]]
assert gs["score"] == gs["max_score"] == sum(t["max_score"] for t in gs["tests"]) > columns["F2"], gs["max_score"]
PY
echo "upload_exercises_test: ok"
