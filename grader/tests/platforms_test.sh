#!/bin/sh
# platforms_test.sh ATTNLAB SOURCE_DIR
# Gradescope: `attnlab gradescope-zip` builds an autograder zip (setup.sh,
# run_autograder, the configuration with the exercise fixed, attnlab's
# sources); its run_autograder runs in a simulated /autograder layout:
# - a correct my_attention.py beside helpers.py (first in name order) gets
#   full marks: the entry is the file that defines the function;
# - an empty upload gets a results.json with score 0 that says what to upload;
# - an F1 file uploaded to the F3 assignment is graded as F3 (the
#   configuration fixes the exercise) and fails;
# - results.json has execution_time and a top-level visibility no more
#   visible than its tests'.
# PrairieLearn: --prairielearn-json writes the documented fields (gradable,
# score in [0, 1], message, output, tests with name, description, points,
# max_points, message, output), and gradable=false for a file that does not load.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-platforms-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "platforms_test: $*" >&2; exit 1; }

sed 's/"cases": 300/"cases": 10/' "$src/grader/examples/attnlab-config.json" > "$tmp/config.json"
# In a git checkout only the tracked files are shipped: a student's file
# (or a gradebook) kept in the checkout must not reach the autograder.
probe=""
if git -C "$src" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  probe="$src/attnlab-untracked-probe-$$.py"
  echo "# a student's submission kept in the checkout" > "$probe"
  trap 'rm -rf "$tmp"; rm -f "$probe"' EXIT
fi
"$attnlab" gradescope-zip --config "$tmp/config.json" --exercise f3 -o "$tmp/autograder.zip" > "$tmp/zip.txt" 2>&1 ||
  { cat "$tmp/zip.txt"; fail "gradescope-zip failed"; }
[ -n "$probe" ] && rm -f "$probe"
"$attnlab" gradescope-zip --config "$tmp/config.json" --exercise F9 -o "$tmp/bad.zip" > /dev/null 2>&1 &&
  fail "gradescope-zip accepted exercise F9"

ag="$tmp/autograder"
mkdir -p "$ag/source" "$ag/results"
(cd "$ag/source" && unzip -q "$tmp/autograder.zip") || fail "the zip does not unpack"
for f in setup.sh run_autograder attnlab-config.json attnlab-src.tar.gz; do
  [ -f "$ag/source/$f" ] || fail "the zip has no $f"
done
[ -x "$ag/source/run_autograder" ] && [ -x "$ag/source/setup.sh" ] || fail "setup.sh or run_autograder is not executable"
bash -n "$ag/source/setup.sh" || fail "setup.sh is not valid bash"
grep -q "scripts/install-deps" "$ag/source/setup.sh" && grep -q "scripts/build" "$ag/source/setup.sh" ||
  fail "setup.sh does not install attnlab with the README's steps"
tar -tzf "$ag/source/attnlab-src.tar.gz" > "$tmp/shipped.txt"
grep -q "grader/src/commands/main.cpp" "$tmp/shipped.txt" || fail "the sources are not in the zip"
if [ -n "$probe" ]; then
  grep -q "attnlab-untracked-probe-$$" "$tmp/shipped.txt" && fail "an untracked file of the checkout is in attnlab-src.tar.gz"
  grep -q "^\(\./\)\?scripts/build$" "$tmp/shipped.txt" || fail "scripts/build (tracked) is not shipped"
fi
/usr/bin/python3 -c "import json,sys; c=json.load(open(sys.argv[1])); assert c['exercise']=='F3', c" \
  "$ag/source/attnlab-config.json" || fail "the zip's configuration does not fix the exercise"

run() {  # run NAME: grades $ag/NAME as an upload, results in $ag/NAME.results.json
  ATTNLAB="$attnlab" SUBMISSION_DIR="$ag/$1" RESULTS="$ag/$1.results.json" \
    CONFIG="$ag/source/attnlab-config.json" bash "$ag/source/run_autograder" > "$ag/$1.out" 2>&1
  rc=$?
  [ "$rc" = 0 ] || { cat "$ag/$1.out"; fail "run_autograder ($1) exited with $rc"; }
}
mkdir -p "$ag/good" "$ag/empty" "$ag/wrong"
cp "$src/solutions/F3/attention.py" "$ag/good/my_attention.py"
printf 'def shape(x):\n    return x.shape\n' > "$ag/good/helpers.py"
cp "$src/solutions/F1/softmax_rows.py" "$ag/wrong/attention.py"
for u in good empty wrong; do run $u; done
grep -q "entry my_attention.py" "$ag/good.out" || { cat "$ag/good.out"; fail "the entry choice is not reported"; }

/usr/bin/python3 - "$ag" <<'PY' || fail "results.json is not as expected"
import json, os, sys
ag = sys.argv[1]
order = ["visible", "after_due_date", "after_published", "hidden"]
good = json.load(open(os.path.join(ag, "good.results.json")))
assert good["score"] == good["max_score"] > 0, good["score"]
assert isinstance(good["execution_time"], int) and good["execution_time"] >= 0
least = max(order.index(t["visibility"]) for t in good["tests"])
assert order.index(good["visibility"]) >= min(least, 2), (good["visibility"], least)
assert any(t["name"].startswith("oracle_agreement") and t["max_score"] == 4 for t in good["tests"])
empty = json.load(open(os.path.join(ag, "empty.results.json")))
assert empty["score"] == 0 and empty["max_score"] > 0, empty
assert "nothing to grade" in empty["output"] and "Upload" in empty["output"], empty["output"]
wrong = json.load(open(os.path.join(ag, "wrong.results.json")))
assert wrong["score"] < wrong["max_score"], wrong
assert "exercise F3" in wrong["output"], wrong["output"]
print("gradescope ok")
PY

# PrairieLearn, with the generated tests visible.
mkdir -p "$tmp/pl/student" "$tmp/pl/broken"
cp "$src/exercises/F4/post_softmax_mask.py" "$tmp/pl/student/attention.py"
"$attnlab" grade "$tmp/pl/student" --exercise F3 --cases 10 --visibility visible \
  --prairielearn-json "$tmp/pl/results.json" > "$tmp/pl/out.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/pl/out.txt"; fail "the F4 variant did not fail"; }
printf 'import numpy as np\nthis is not python\n' > "$tmp/pl/broken/attention.py"
"$attnlab" grade "$tmp/pl/broken" --exercise F3 --cases 10 --prairielearn-json "$tmp/pl/broken.json" > /dev/null 2>&1
/usr/bin/python3 - "$tmp/pl/results.json" "$tmp/pl/broken.json" <<'PY' || fail "PrairieLearn results lack a documented field"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["gradable"] is True and isinstance(r["score"], float) and 0 <= r["score"] < 1, r
for key in ("message", "output", "tests"):
    assert isinstance(r[key], (str, list)), key
assert r["tests"]
for t in r["tests"]:
    assert set(t) == {"name", "description", "points", "max_points", "message", "output"}, t
    assert 0 <= t["points"] <= t["max_points"]
assert any(t["points"] < t["max_points"] and t["message"] for t in r["tests"])
b = json.load(open(sys.argv[2]))
assert b["gradable"] is False and b["format_errors"], b
print("prairielearn ok")
PY
# An empty upload is not graded: PrairieLearn's gradable false with the
# reason, never a scored 0 (the run still exits 2: nothing to grade).
mkdir -p "$tmp/pl/empty"
"$attnlab" grade "$tmp/pl/empty" --exercise F3 --cases 10 --prairielearn-json "$tmp/pl/empty.json" > /dev/null 2>&1
rc=$?
[ $rc = 2 ] || fail "empty PrairieLearn upload: exit $rc, expected 2"
/usr/bin/python3 - "$tmp/pl/empty.json" <<'PY' || fail "an empty PrairieLearn upload is scored, not 'gradable: false'"
import json, sys
e = json.load(open(sys.argv[1]))
assert e["gradable"] is False and "nothing to grade" in e["format_errors"][0], e
assert "score" not in e, e
PY
echo "platforms_test: ok"
