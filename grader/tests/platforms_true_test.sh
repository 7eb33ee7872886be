#!/bin/sh
# platforms_true_test.sh ATTNLAB SOURCE_DIR
# What each platform is told is true of the run:
# - Gradescope's execution_time is the whole grading, measured: a submission
#   that sleeps 2 s when imported reports at least 2 (whole seconds);
# - `attnlab gradescope-zip -o DIR` makes DIR (and its parents) and writes
#   DIR/autograder.zip;
# - PrairieLearn publishes nothing later: its message says how many tests are
#   hidden from students, never that they wait for grades to be "published".
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-platforms-true-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "platforms_true_test: $*" >&2; exit 1; }

{ echo 'import time'; echo 'time.sleep(2)'; cat "$src/solutions/F3/attention.py"; } > "$tmp/sleepy.py"
"$attnlab" grade "$tmp/sleepy.py" --exercise F3 --cases 3 --results-json "$tmp/results.json" \
  --prairielearn-json "$tmp/pl.json" > "$tmp/grade.txt" 2>&1
[ $? = 0 ] || { cat "$tmp/grade.txt"; fail "the sleepy solution did not pass"; }
/usr/bin/python3 - "$tmp/results.json" "$tmp/pl.json" <<'PY' || { cat "$tmp/grade.txt"; fail "results.json or PrairieLearn's results are not true"; }
import json, sys
gs = json.load(open(sys.argv[1]))
assert isinstance(gs["execution_time"], int) and gs["execution_time"] >= 2, gs["execution_time"]
pl = json.load(open(sys.argv[2]))
assert "publish" not in pl["message"], pl["message"]
assert "hidden from students" in pl["message"], pl["message"]
PY

sed 's/"cases": 300/"cases": 10/' "$src/grader/examples/attnlab-config.json" > "$tmp/config.json"
"$attnlab" gradescope-zip --config "$tmp/config.json" --exercise F3 -o "$tmp/not/yet/there" > "$tmp/zip.txt" 2>&1 ||
  { cat "$tmp/zip.txt"; fail "gradescope-zip -o into a missing folder failed"; }
[ -s "$tmp/not/yet/there/autograder.zip" ] || { cat "$tmp/zip.txt"; fail "no autograder.zip in the folder made"; }
unzip -l "$tmp/not/yet/there/autograder.zip" | grep -q run_autograder || fail "the zip has no run_autograder"
echo "platforms_true_test: ok"
