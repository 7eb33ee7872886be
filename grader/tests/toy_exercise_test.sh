#!/bin/sh
# Adding an exercise is its spec, its data folder and its harness entry
# (docs/ARCHITECTURE.md, "Add an exercise"): the toy exercise X1 of
# data/toy_exercise (F3's operation under a course's own names) is added to a
# copy of attnlab's exercises/ and graded end to end, Python and C++, through
# ATTNLAB_EXERCISES_DIR. Its C++ harness library is built by the test build
# from its spec, by the function that builds the registry's
# (attnlab_add_exercise_harness, grader/CMakeLists.txt).
#   toy_exercise_test.sh ATTNLAB SOURCE_DIR
set -u
attnlab=$1 src=$2
toy=$src/grader/tests/data/toy_exercise
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# The course's exercises: attnlab's, plus X1's spec and folder, nothing else.
cp -r "$src/exercises" "$tmp/exercises"
python3 - "$tmp/exercises/registry.json" "$toy/spec.json" <<'PY' || exit 1
import json, sys
registry = json.load(open(sys.argv[1]))
registry["exercises"].append(json.load(open(sys.argv[2])))
json.dump(registry, open(sys.argv[1], "w"), indent=2)
PY
cp -r "$toy/X1" "$tmp/exercises/X1"

# One solution in each language: F3's model solution under X1's names.
mkdir "$tmp/work"
sed -e 's/def scaled_dot_product_attention(/def course_attention(/' \
  "$src/solutions/F3/attention.py" >"$tmp/work/solution.py"
sed -e 's/"attention.hpp"/"course_attention.hpp"/' -e 's/^namespace f3 {/namespace x1 {/' \
    -e 's/^}  \/\/ namespace f3/}  \/\/ namespace x1/' \
    -e 's/^AttentionResult attention(/AttentionResult course_attention(/' \
  "$src/solutions/F3/attention.cpp" >"$tmp/work/solution.cpp"
cp "$tmp/exercises/X1/skeleton.py" "$tmp/exercises/X1/skeleton.cpp" "$tmp/work/"

# expect CODE STDOUT-REGEX ARGS...: attnlab with the course's exercises.
expect() {
  code=$1 pattern=$2
  shift 2
  ATTNLAB_EXERCISES_DIR="$tmp/exercises" "$attnlab" "$@" >"$tmp/out" 2>&1
  got=$?
  if [ "$got" != "$code" ]; then
    echo "FAIL: attnlab $*: exit $got, expected $code"; cat "$tmp/out"; fail=1; return
  fi
  if ! grep -Eq -- "$pattern" "$tmp/out"; then
    echo "FAIL: attnlab $*: output does not match /$pattern/"; cat "$tmp/out"; fail=1; return
  fi
  echo "ok: attnlab $* -> $got"
}

cases="--cases 20"
# Recognised from the file (the spec's names), every property of the
# operation passes with full points.
expect 0 'recognised: +X1 \(it defines course_attention\(\)\)' grade "$tmp/work/solution.py" $cases
expect 0 'score: 12 / 12' grade "$tmp/work/solution.py" $cases
expect 0 'recognised: +X1 \(it defines namespace x1' grade "$tmp/work/solution.cpp" $cases
expect 0 'score: 12 / 12' grade "$tmp/work/solution.cpp" $cases
expect 0 'exercise X1: Attention under a course' grade --exercise X1 "$tmp/work/solution.py" $cases
expect 0 'score: 12 / 12' grade --exercise X1 "$tmp/work/solution.cpp" $cases
# The skeletons refuse everything: graded, nothing earned.
expect 1 'score: 0 / 12' grade "$tmp/work/skeleton.py" $cases
expect 1 'score: 0 / 12' grade "$tmp/work/skeleton.cpp" $cases
# Its title and the list of graded exercises come from the spec.
expect 2 'and the library operations T1, M1, C1, B1, X1' grade --exercise X9 "$tmp/work/solution.py"

# A file that names no exercise is told every id of the course's registry.
printf 'def helper(x):\n    return x\n' >"$tmp/work/nothing.py"
expect 2 'name the exercise with --exercise F1\|F2\|F3\|F4\|T1\|M1\|C1\|B1\|X1, or put' grade "$tmp/work/nothing.py"

# Without the course's folder attnlab does not know X1.
"$attnlab" grade --exercise X1 "$tmp/work/solution.py" >"$tmp/out" 2>&1
got=$?
if [ "$got" != 2 ] || ! grep -q "unknown exercise X1" "$tmp/out"; then
  echo "FAIL: X1 graded without ATTNLAB_EXERCISES_DIR (exit $got)"; cat "$tmp/out"; fail=1
else
  echo "ok: X1 unknown without the course's folder"
fi
exit $fail
