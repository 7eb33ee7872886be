#!/bin/sh
# platforms_setup_test.sh ATTNLAB SOURCE_DIR WORK_DIR
# The Gradescope zip's setup.sh itself, in a simulated /autograder layout
# (AUTOGRADER=WORK_DIR/autograder): it unpacks attnlab's sources from the
# zip, runs scripts/install-deps (a no-op where every package is installed)
# and builds the grader without the test suite; then the run_autograder of
# the zip, with the attnlab that setup.sh built (its own default path
# below the layout), gives the model solution full marks and a wrong file
# less, and the configuration is left readable by its owner only.
set -u
attnlab=$1 src=$2 work=$3
fail() { echo "platforms_setup_test: $*" >&2; exit 1; }
ag="$work/autograder"
rm -rf "$ag"
mkdir -p "$ag/source" "$ag/results" || fail "cannot make $ag"
sed 's/"cases": 300/"cases": 10/' "$src/grader/examples/attnlab-config.json" > "$work/config.json"
"$attnlab" gradescope-zip --config "$work/config.json" --exercise F3 -o "$work/autograder.zip" > "$work/zip.txt" 2>&1 ||
  { cat "$work/zip.txt"; fail "gradescope-zip failed"; }
(cd "$ag/source" && unzip -q "$work/autograder.zip") || fail "the zip does not unpack"
start=$(date +%s)
AUTOGRADER="$ag" bash "$ag/source/setup.sh" > "$work/setup.txt" 2>&1 ||
  { tail -n 40 "$work/setup.txt"; fail "setup.sh failed"; }
echo "setup.sh took $(( $(date +%s) - start )) s"
built="$ag/source/attnlab/build/grader/attnlab"
[ -x "$built" ] || fail "setup.sh did not build $built"
[ ! -e "$ag/source/attnlab/build/lib/lib_tests" ] || fail "setup.sh built the test suite too"
mode=$(stat -c %a "$ag/source/attnlab-config.json")
[ "$mode" = 600 ] || fail "the configuration is mode $mode, not 600"

grade() {  # grade NAME FILE: one upload graded by the zip's run_autograder
  mkdir -p "$ag/$1"
  cp "$2" "$ag/$1/"
  ATTNLAB="$built" SUBMISSION_DIR="$ag/$1" RESULTS="$ag/$1.json" \
    CONFIG="$ag/source/attnlab-config.json" bash "$ag/source/run_autograder" > "$ag/$1.out" 2>&1 ||
    { cat "$ag/$1.out"; fail "run_autograder ($1) failed"; }
}
grade good "$src/solutions/F3/attention.py"
grade wrong "$src/exercises/F4/post_softmax_mask.py"
/usr/bin/python3 - "$ag" <<'PY' || fail "results.json is not as expected"
import json, os, sys
ag = sys.argv[1]
good = json.load(open(os.path.join(ag, "good.json")))
wrong = json.load(open(os.path.join(ag, "wrong.json")))
assert good["score"] == good["max_score"] > 0, (good["score"], good["max_score"])
assert wrong["score"] < wrong["max_score"], wrong["score"]
failed = [t["name"] for t in wrong["tests"] if t["status"] == "failed"]
assert any(n.startswith("row_stochastic") for n in failed), failed
print("setup.sh ok: good %s/%s, post-softmax masking %s/%s" % (good["score"], good["max_score"], wrong["score"], wrong["max_score"]))
PY
rm -rf "$ag"
