#!/bin/sh
# class_cli_refusals_test.sh ATTNLAB SOURCE_DIR
# `attnlab grade CLASS --out OUT` refuses what would silently grade wrong
# (docs/MANUAL.md, "Grading a class"), on a class of three F1 solutions:
# 1. a regrade of some students (--students) into a gradebook graded with
#    other settings (another --config, --seed or --cases; without the
#    configuration) is refused with exit 2, naming what differs, and leaves
#    every file of the gradebook byte-identical; so is one that would drop
#    summary-anonymous.csv (no salt) or mix two salts in it. The same
#    settings regrade; a full regrade with other settings replaces every row.
# 2. --exercise F9 on a class is exit 2 naming F9 (not everyone 0/0);
#    --exercise F2,F3 grades a class as F2 and F3 (as gradescope-zip's
#    F2,F3), and on one file is exit 2 saying several go with a class.
# 3. a student folder or file, or a file directly in the class folder, the
#    grader may not read (mode 000, as nobody)
#    is "not gradable" naming the path and "permission denied" (a blank
#    Canvas cell), not "no submission: the folder is empty" (0 points).
# 4. a malformed answers.json (truncated, NaN, 1e400, "exercise" given
#    twice) is graded as the student's answers: the report says it is not
#    valid JSON and where, and the answers points are lost for that.
# 5. --anonymise-salt abc is refused (exit 2), as the configuration's is.
# 6. an --out inside the class folder (this run's or an earlier one's) is
#    skipped with a note, never graded as a student.
# 7. gradescope-zip leaves anonymise_salt and signing_key out of the zip; a
#    configuration that is not JSON is "FILE is not valid JSON: line L
#    column C: ..."; error messages go to stderr.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-class-refusals-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_cli_refusals_test: $*" >&2; exit 1; }

class="$tmp/class"
for who in ann bob cid; do
  mkdir -p "$class/$who"
  cp "$src/solutions/F1/softmax_rows.py" "$class/$who/softmax.py"
done
salt="a teacher's secret salt"
printf '{"cases": 5, "anonymise_salt": "%s"}\n' "$salt" > "$tmp/a.json"
printf '{"cases": 6, "anonymise_salt": "%s"}\n' "$salt" > "$tmp/b.json"
printf '{"cases": 5}\n' > "$tmp/nosalt.json"

# --- 1. a regrade of some students keeps only rows of its own settings ---
out="$tmp/out"
"$attnlab" grade "$class" --config "$tmp/a.json" --jobs 2 --out "$out" > "$tmp/run.txt" 2>&1 ||
  { cat "$tmp/run.txt"; fail "the first run did not grade the class"; }
[ -f "$out/summary-anonymous.csv" ] || fail "no summary-anonymous.csv with a salt"
snapshot() { (cd "$out" && cat summary.json summary.csv summary.txt gradebook-canvas.csv \
  gradebook-moodle.csv summary-anonymous.csv) > "$tmp/$1"; }
snapshot before
cp "$out/summary.csv" "$tmp/summary-before.csv"
refused() {  # refused WHAT... -- ARGS: exit 2, stderr has each WHAT, nothing changed
  expect=""
  while [ "$1" != "--" ]; do expect="$expect
$1"; shift; done
  shift
  "$attnlab" grade "$class" --jobs 2 --out "$out" --students ann "$@" > "$tmp/o.txt" 2> "$tmp/e.txt"
  rc=$?
  [ $rc = 2 ] || { cat "$tmp/o.txt" "$tmp/e.txt"; fail "$*: exit $rc, expected 2 (refused)"; }
  echo "$expect" | while IFS= read -r w; do
    [ -z "$w" ] || grep -qF -- "$w" "$tmp/e.txt" ||
      { cat "$tmp/e.txt"; fail "$*: the refusal does not say '$w'"; }
  done || exit 1
  grep -qF -- "--out" "$tmp/e.txt" || { cat "$tmp/e.txt"; fail "$*: the refusal does not say how to proceed"; }
  snapshot after
  cmp -s "$tmp/before" "$tmp/after" || fail "$*: a refused regrade changed the gradebook"
}
refused "cases 6 vs 5" "configuration differs" "bob" -- --config "$tmp/b.json"
refused "seed 99 vs" -- --config "$tmp/a.json" --seed 99
refused "configuration differs" -- --cases 5
refused "summary-anonymous.csv" "--anonymise-salt" -- --config "$tmp/nosalt.json"
refused "another anonymisation salt" -- --config "$tmp/nosalt.json" --anonymise-salt "another salt!"

# The same settings: ann's row replaced, bob's and cid's lines the same bytes.
"$attnlab" grade "$class" --config "$tmp/a.json" --jobs 2 --out "$out" --students ann > "$tmp/run2.txt" 2>&1 ||
  { cat "$tmp/run2.txt"; fail "a regrade with the gradebook's settings was refused"; }
for f in summary.csv summary-anonymous.csv gradebook-canvas.csv; do
  [ -f "$out/$f" ] || fail "a regrade with the same settings removed $f"
done
grep -E '^(bob|cid),' "$tmp/summary-before.csv" > "$tmp/kept-before"
grep -E '^(bob|cid),' "$out/summary.csv" > "$tmp/kept-after"
cmp -s "$tmp/kept-before" "$tmp/kept-after" || fail "the kept rows of summary.csv changed"
# A full regrade with other settings replaces every row.
"$attnlab" grade "$class" --config "$tmp/b.json" --jobs 2 --out "$out" > "$tmp/run3.txt" 2>&1 ||
  { cat "$tmp/run3.txt"; fail "a full regrade with other settings was refused"; }
/usr/bin/python3 - "$out" <<'PY' || fail "the full regrade left rows of the old settings"
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
assert s["cases"] == 6, s["cases"]
hashes = {r["settings_hash"] for r in s["submissions"]}
assert len(hashes) == 1 and len(s["submissions"]) == 3, hashes
PY

# --- 2. --exercise on a class folder: an unknown id is a usage error; several
# (F2,F3) mean what gradescope-zip's do: each file graded as the one of them
# it is, every student out of each one's maximum ---
"$attnlab" grade "$class" --exercise F9 --cases 5 --out "$tmp/out-f9" > "$tmp/o.txt" 2> "$tmp/e.txt"
rc=$?
[ $rc = 2 ] && grep -q "F9" "$tmp/e.txt" ||
  { cat "$tmp/o.txt" "$tmp/e.txt"; fail "--exercise F9 on a class: exit $rc, expected 2 naming F9"; }
[ -e "$tmp/out-f9/summary.json" ] && fail "--exercise F9 wrote a gradebook"
"$attnlab" grade "$src/solutions/F1/softmax_rows.py" --exercise F2,F3 --cases 5 > "$tmp/o.txt" 2> "$tmp/e.txt"
rc=$?
[ $rc = 2 ] && grep -q "several" "$tmp/e.txt" ||
  { cat "$tmp/o.txt" "$tmp/e.txt"; fail "--exercise F2,F3 on one file: exit $rc, expected 2 saying how"; }
class2="$tmp/class2"
mkdir -p "$class2/ann" "$class2/bob"
cp "$src/solutions/F2/masked_softmax.py" "$class2/ann/masked.py"
cp "$src/solutions/F2/answers.json" "$class2/ann/answers.json"
cp "$src/solutions/F3/attention.py" "$class2/bob/attention.py"
"$attnlab" grade "$class2" --exercise f2,F3 --cases 5 --jobs 2 --out "$tmp/out-f2f3" > "$tmp/o.txt" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$tmp/o.txt"; fail "--exercise f2,F3 on a class: exit $rc, expected 0"; }
/usr/bin/python3 - "$tmp/out-f2f3" "$src" <<'PY' || { cat "$tmp/o.txt"; fail "--exercise F2,F3: the gradebook is not F2's and F3's"; }
import json, os, sys
out, src = sys.argv[1], sys.argv[2]
m = lambda ex: sum(json.load(open(os.path.join(src, "exercises", ex, "points.json")))["points"].values())
s = json.load(open(os.path.join(out, "summary.json")))
assert [c["exercise"] for c in s["columns"]] == ["F2", "F3"], s["columns"]
rows = {r["student"]: r for r in s["students"]}
assert rows["ann"]["exercise_scores"]["F2"]["score"] == m("F2"), rows["ann"]
assert rows["bob"]["exercise_scores"]["F3"]["score"] == m("F3"), rows["bob"]
assert rows["ann"]["max_score"] == m("F2") + m("F3"), rows["ann"]
assert s["settings"]["exercises"] == ["F2", "F3"], s["settings"]
PY

# --- 3. work the grader may not read is "not gradable: permission denied",
# naming the path (a blank LMS cell), not "no submission" (0 points). As
# root nothing is denied, so the grader runs as nobody (setpriv). ---
if [ "$(id -u)" != 0 ]; then
  as_user() { "$@"; }
elif command -v setpriv > /dev/null 2>&1 && id nobody > /dev/null 2>&1; then
  as_user() { setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups env HOME="$perm" "$@"; }
else
  as_user=""
fi
perm="$tmp/perm"
if command -v as_user > /dev/null 2>&1; then
  mkdir -p "$perm/class/ann" "$perm/class/bob" "$perm/class/cid" "$perm/out"
  cp "$src/solutions/F1/softmax_rows.py" "$perm/class/ann/softmax.py"
  cp "$src/solutions/F1/softmax_rows.py" "$perm/class/bob/softmax.py"
  cp "$src/solutions/F1/softmax_rows.py" "$perm/class/cid/softmax.py"
  cp "$src/solutions/F1/softmax_rows.py" "$perm/class/dee.py"
  chmod 755 "$tmp" "$perm" "$perm/class" "$perm/class/ann" "$perm/class/cid"
  chmod 644 "$perm/class/ann/softmax.py"
  [ "$(id -u)" = 0 ] && chown nobody "$perm/out"
  chmod 000 "$perm/class/bob" "$perm/class/cid/softmax.py" "$perm/class/dee.py"
  as_user "$attnlab" grade "$perm/class" --exercise F1 --cases 5 --no-sandbox --jobs 2 \
    --out "$perm/out" > "$tmp/o.txt" 2>&1
  rc=$?
  chmod 755 "$perm/class/bob"
  [ $rc = 1 ] || { cat "$tmp/o.txt"; fail "unreadable work: exit $rc, expected 1 (not gradable)"; }
  /usr/bin/python3 - "$perm/out" "$perm/class" <<'PY' || { cat "$tmp/o.txt"; fail "unreadable work is not 'not gradable: permission denied'"; }
import csv, json, os, sys
out, klass = sys.argv[1], sys.argv[2]
s = json.load(open(os.path.join(out, "summary.json")))
rows = {r["student"]: r for r in s["submissions"]}
assert rows["ann"]["status"] == "graded", rows["ann"]
for who, path in (("bob", os.path.join(klass, "bob")), ("cid", os.path.join(klass, "cid", "softmax.py")),
                  ("dee.py", os.path.join(klass, "dee.py"))):
    r = rows[who]
    assert r["status"] == "not gradable", r
    assert "permission denied" in r["note"] and path in r["note"], (path, r)
    report = open(os.path.join(out, r["report"])).read()
    assert "permission denied" in report and "0 points" not in report, report
with open(os.path.join(out, "gradebook-canvas.csv"), newline="") as f:
    table = list(csv.reader(f))
header = table[0]
col = next(k for k, h in enumerate(header) if h.startswith("attnlab F1"))
cells = {r[0]: r[col] for r in table[2:]}
# Canvas takes an empty cell beside an existing grade as "no grade": the
# students whose work could not be read are left out of its file.
assert not {"bob", "cid", "dee.py"} & set(cells), cells
summary = open(os.path.join(out, "summary.txt")).read()
assert "leave out 3 students" in summary, summary
PY
else
  echo "class_cli_refusals_test: part 3 skipped: running as root without setpriv or the user nobody"
fi

# --- 4. a malformed answers.json beside F2 code is the student's answers file:
# its report says it is not valid JSON (where: line and column), and the
# answers points are lost for that reason (not "no answers file was given") ---
class4="$tmp/class4"
for who in ann bob cid dan; do
  mkdir -p "$class4/$who"
  cp "$src/solutions/F2/masked_softmax.py" "$class4/$who/masked.py"
done
head -c 40 "$src/solutions/F2/answers.json" > "$class4/ann/answers.json"
/usr/bin/python3 - "$src/solutions/F2/answers.json" "$class4" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
a = json.loads(text)
first = next(k for k in a if k != "exercise")
def put(who, t): open(sys.argv[2] + "/" + who + "/answers.json", "w").write(t)
b = dict(a); b[first] = float("nan")
put("bob", json.dumps(b))                           # NaN: not JSON
c = json.dumps(a).replace('"exercise": "F2"', '"exercise": "F2", "scale": 1e400')
assert c != json.dumps(a)
put("cid", c)                                       # a number past double
put("dan", '{"exercise": "F4", ' + json.dumps(a)[1:])  # "exercise" given twice
PY
"$attnlab" grade "$class4" --cases 5 --jobs 2 --out "$tmp/out4" > "$tmp/o.txt" 2>&1
/usr/bin/python3 - "$tmp/out4" "$src" <<'PY' || { cat "$tmp/o.txt"; fail "a malformed answers file is not reported as such"; }
import json, os, sys
out, src = sys.argv[1], sys.argv[2]
pts = json.load(open(os.path.join(src, "exercises/F2/points.json")))["points"]
s = json.load(open(os.path.join(out, "summary.json")))
rows = {r["student"]: r for r in s["submissions"]}
for who, says in (("ann", " column "), ("bob", "line 1 column"), ("cid", "1e400"),
                  ("dan", 'the member "exercise" is given twice')):
    r = rows[who]
    assert r["status"] == "graded" and r["exercise"] == "F2", r
    assert r["score"] == sum(pts.values()) - pts["answers"], r
    report = open(os.path.join(out, r["report"])).read()
    assert "not valid JSON" in report and says in report, (who, report)
    assert "no answers file was given" not in report, (who, report)
PY
grep -q "ignored .*answers.json" "$tmp/o.txt" && { cat "$tmp/o.txt"; fail "a malformed answers file was ignored"; }

# --- 5. --anonymise-salt has the configuration's rule: at least 8 characters ---
"$attnlab" grade "$class" --anonymise-salt abc --cases 5 --out "$tmp/out-salt" > "$tmp/o.txt" 2> "$tmp/e.txt"
rc=$?
[ $rc = 2 ] && grep -q "at least 8 characters" "$tmp/e.txt" ||
  { cat "$tmp/o.txt" "$tmp/e.txt"; fail "--anonymise-salt abc: exit $rc, expected 2 saying at least 8 characters"; }
[ -e "$tmp/out-salt" ] && fail "--anonymise-salt abc wrote an output folder"
# --- 6. an --out inside the class folder is never a student, in this run or a later one ---
class6="$tmp/class6"
mkdir -p "$class6/ann"
cp "$src/solutions/F1/softmax_rows.py" "$class6/ann/softmax.py"
"$attnlab" grade "$class6" --cases 5 --out "$class6/reports" > "$tmp/o.txt" 2>&1 ||
  { cat "$tmp/o.txt"; fail "--out inside the class folder: the first run failed"; }
"$attnlab" grade "$class6" --cases 5 --out "$tmp/out6" > "$tmp/o.txt" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$tmp/o.txt"; fail "the second run (another --out): exit $rc, expected 0"; }
grep -q "skipped $class6/reports" "$tmp/o.txt" || { cat "$tmp/o.txt"; fail "the earlier --out is not said to be skipped"; }
/usr/bin/python3 - "$tmp/out6" <<'PY' || { cat "$tmp/o.txt"; fail "an earlier --out inside the class folder was graded as a student"; }
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
assert [r["student"] for r in s["students"]] == ["ann"], s["students"]
PY
# --- 7. gradescope-zip uploads no secret the autograder does not need; a
# configuration that is not JSON says where, plainly; errors go to stderr ---
printf '{"cases": 5, "anonymise_salt": "%s", "signing_key": "a signing key of my own"}\n' "$salt" > "$tmp/secrets.json"
"$attnlab" gradescope-zip --config "$tmp/secrets.json" --exercise F1 -o "$tmp/zip/autograder.zip" > "$tmp/o.txt" 2>&1 ||
  { cat "$tmp/o.txt"; fail "gradescope-zip failed"; }
unzip -p "$tmp/zip/autograder.zip" attnlab-config.json > "$tmp/zipped.json" || fail "no attnlab-config.json in the zip"
/usr/bin/python3 - "$tmp/zipped.json" <<'PY' || { cat "$tmp/zipped.json"; fail "the zip's configuration is not the teacher's minus the secrets"; }
import json, sys
c = json.load(open(sys.argv[1]))
assert "anonymise_salt" not in c and "signing_key" not in c, c
assert c["cases"] == 5 and c["exercise"] == "F1", c
PY
printf '{"cases": 5,\n "seed": NaN}\n' > "$tmp/notjson.json"
"$attnlab" grade "$class" --config "$tmp/notjson.json" --out "$tmp/out7" > "$tmp/o.txt" 2> "$tmp/e.txt"
rc=$?
[ $rc = 2 ] && grep -q "$tmp/notjson.json is not valid JSON: line 2 column [0-9]*: " "$tmp/e.txt" &&
  ! grep -q "json.exception" "$tmp/e.txt" ||
  { cat "$tmp/o.txt" "$tmp/e.txt"; fail "a configuration that is not JSON: not said as FILE is not valid JSON: line L column C"; }
[ -s "$tmp/o.txt" ] && { cat "$tmp/o.txt"; fail "the configuration error went to stdout"; }
# A gradebook that cannot be read (an error, not progress): on stderr, not stdout.
mkdir -p "$tmp/out7b" && echo '{' > "$tmp/out7b/summary.json"
"$attnlab" grade "$class" --cases 5 --out "$tmp/out7b" > "$tmp/o.txt" 2> "$tmp/e.txt"
rc=$?
[ $rc = 2 ] && grep -q "cannot read the gradebook" "$tmp/e.txt" && ! grep -q "cannot read the gradebook" "$tmp/o.txt" ||
  { cat "$tmp/o.txt" "$tmp/e.txt"; fail "an unreadable gradebook: exit $rc, its error not on stderr"; }

echo "class_cli_refusals_test: ok"
