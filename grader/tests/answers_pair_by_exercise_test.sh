#!/bin/sh
# answers_pair_by_exercise_test.sh ATTNLAB SOURCE_DIR
# `attnlab grade FILE --answers answers.json`, FILE defining F2 and F3 (F3
# building on the file's own masked_softmax) and the answers naming F2: the
# file is graded as F2, the exercise of the answers file, answers included
# (not "exercise F3 has no answers file", exit 2).
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-answers-pair-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "answers_pair_by_exercise_test: $*" >&2; exit 1; }
/usr/bin/python3 "$src/grader/tests/make_f2_and_f3.py" "$src" "$tmp/attention.py" || fail "make_f2_and_f3.py"
"$attnlab" grade "$tmp/attention.py" --answers "$src/solutions/F2/answers.json" --cases 5 > "$tmp/run.txt" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$tmp/run.txt"; fail "exit $rc, expected 0 (the F2 model solution with its answers)"; }
grep -q '^attnlab grade: exercise F2:' "$tmp/run.txt" || { cat "$tmp/run.txt"; fail "not graded as F2"; }
grep -q '\[PASS\] answers' "$tmp/run.txt" || { cat "$tmp/run.txt"; fail "the answers were not graded"; }
# An F4 fix without its "# exercise: F4" line defines only F3's interface;
# given F4's answers it is graded as F4 (as a class folder pairs them), not
# refused with "exercise F3 has no answers file".
grep -v 'exercise: F4' "$src/solutions/F4/masked_attention.py" > "$tmp/my_fix.py"
"$attnlab" grade "$tmp/my_fix.py" --answers "$src/solutions/F4/answers.json" --cases 5 > "$tmp/run4.txt" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$tmp/run4.txt"; fail "untagged F4 fix: exit $rc, expected 0 (the F4 model solution with its answers)"; }
grep -q '^attnlab grade: exercise F4:' "$tmp/run4.txt" || { cat "$tmp/run4.txt"; fail "untagged F4 fix not graded as F4"; }
grep -q '\[PASS\] answers' "$tmp/run4.txt" || { cat "$tmp/run4.txt"; fail "the F4 answers were not graded"; }
echo "answers_pair_by_exercise_test: passed"
