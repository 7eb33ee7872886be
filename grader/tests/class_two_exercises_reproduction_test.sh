#!/bin/sh
# class_two_exercises_reproduction_test.sh ATTNLAB SOURCE_DIR
# A file graded as each of the two exercises it defines (F2 and F3 in one
# attention.py) is shown "attention.py (F2)" in a class folder's gradebook,
# but the code to paste into Python opens the file itself (`from attention
# import masked_softmax`, not runpy.run_path("attention.py (F2)"), a file
# that does not exist), in the text report and in results.json.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-two-repro-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_two_exercises_reproduction_test: $*" >&2; exit 1; }
mkdir -p "$tmp/class/ivan"
/usr/bin/python3 "$src/grader/tests/make_f2_and_f3.py" "$src" "$tmp/class/ivan/attention.py" || fail "make_f2_and_f3.py"
# A wrong masked_softmax (uniform weights) after the right one: F2 fails, with a reproduction.
printf '\n\ndef masked_softmax(S, mask=None):\n    return np.full(np.shape(S), 1.0 / np.shape(S)[1])\n' >> "$tmp/class/ivan/attention.py"
cp "$src/solutions/F2/answers.json" "$tmp/class/ivan/answers.json"
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/out" > "$tmp/run.txt" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$tmp/run.txt"; fail "exit $rc, expected 1 (F2 fails)"; }
report="$tmp/out/students/ivan%2Fattention.py (F2).txt"
[ -f "$report" ] || { ls "$tmp/out/students"; fail "no report $report"; }
grep -q '^    from attention import masked_softmax$' "$report" ||
  { cat "$report"; fail "the reproduction does not import attention.py"; }
if grep -q 'run_path("attention.py (' "$report" "$tmp/out/students/ivan%2Fattention.py (F2).results.json"; then
  fail "a reproduction opens a file named with the exercise: attention.py (F2)"
fi
grep -q 'from attention import masked_softmax' "$tmp/out/students/ivan%2Fattention.py (F2).results.json" ||
  fail "results.json's reproduction does not import attention.py"
echo "class_two_exercises_reproduction_test: passed"
