#!/bin/sh
# examples_test.sh ATTNLAB SOURCE_DIR
# The manual's examples (docs/MANUAL.md) work as written:
# - grader/examples/run_autograder, with Gradescope's paths redirected to a
#   temporary folder, grades a model solution (full marks) and the F4 variant
#   (partial credit) and writes a results.json with every documented field;
# - grader/examples/attnlab-config.json is a valid teacher configuration.
# (The CI examples, grader/examples/ci.yml and ci-python.yml, are run step
# by step by ci_workflow_test.sh.)
set -u
attnlab=$1
src=$2
ex="$src/grader/examples"
tmp=$(mktemp -d /tmp/attnlab-examples-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "examples_test: $*" >&2; exit 1; }

check_results() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
path, want = sys.argv[1], sys.argv[2]
r = json.load(open(path))
for key in ("score", "max_score", "output", "tests"):
    assert key in r, "results.json has no " + key
assert isinstance(r["score"], (int, float)) and isinstance(r["max_score"], (int, float))
assert r["max_score"] > 0 and r["tests"], r
for t in r["tests"]:
    for key in ("name", "score", "max_score", "status", "output", "visibility"):
        assert key in t, "a test has no " + key + ": " + repr(t)
    assert t["status"] in ("passed", "failed"), t
    assert t["visibility"] in ("visible", "hidden", "after_due_date", "after_published"), t
assert sum(t["score"] for t in r["tests"]) == r["score"]
assert sum(t["max_score"] for t in r["tests"]) == r["max_score"]
visible = [t for t in r["tests"] if t["visibility"] == "visible"]
assert any(t["name"].startswith("textbook_example") for t in visible), "the text's example is not visible"
if want == "full":
    assert r["score"] == r["max_score"], r["score"]
else:
    assert 0 <= r["score"] < r["max_score"], r["score"]
    failing = [t for t in r["tests"] if t["status"] == "failed"]
    assert failing and all("hint:" in t["output"] for t in failing)
    # Every failed test carries the diagnosis keys (a list, empty when none fits).
    assert all(isinstance(t["extra_data"]["misconceptions"], list) for t in failing)
# The configuration's override (oracle_agreement: 4 points) is in force.
oa = [t for t in r["tests"] if t["name"].startswith("oracle_agreement")]
assert oa and oa[0]["max_score"] == 4, oa
print(path, "ok:", r["score"], "/", r["max_score"])
PY
}

# run_autograder with the example configuration, its case count cut for the test.
sed 's/"cases": 300/"cases": 10/' "$ex/attnlab-config.json" > "$tmp/config.json"
for kind in full partial; do
  mkdir -p "$tmp/$kind/submission" "$tmp/$kind/results"
  if [ $kind = full ]; then cp "$src/solutions/F3/attention.py" "$tmp/$kind/submission/"
  else cp "$src/exercises/F4/post_softmax_mask.py" "$tmp/$kind/submission/"; fi
  ATTNLAB="$attnlab" SUBMISSION_DIR="$tmp/$kind/submission" RESULTS="$tmp/$kind/results/results.json" \
    CONFIG="$tmp/config.json" EXERCISE=F3 bash "$ex/run_autograder" > "$tmp/$kind/out.txt" 2>&1
  code=$?
  [ "$code" = 0 ] || { cat "$tmp/$kind/out.txt"; fail "run_autograder ($kind) exited with $code"; }
  check_results "$tmp/$kind/results/results.json" $kind || fail "results.json ($kind) lacks a documented field or value"
done
# No code uploaded: still a results.json (score 0) saying so.
mkdir -p "$tmp/none/submission"
ATTNLAB="$attnlab" SUBMISSION_DIR="$tmp/none/submission" RESULTS="$tmp/none/results.json" \
  CONFIG="$tmp/config.json" bash "$ex/run_autograder" > /dev/null 2>&1 || fail "run_autograder without a file failed"
grep -q "no .py, .cpp or .ipynb file was uploaded" "$tmp/none/results.json" || fail "results.json without a file does not say why"

echo "examples_test: ok"
