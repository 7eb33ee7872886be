#!/bin/sh
# student_first_screen_test.sh ATTNLAB SOURCE_DIR
# A first-time student grades a wrong attempt (F4's post-softmax masking, and
# a C++ one: the F3 attention without the max shift) with `attnlab grade FILE`:
# within the first 40 lines of the report stand the failed property, a
# counterexample to paste (NumPy: `Q = np.array(...)` and the call; C++: an
# Eigen initializer and the call) and the diagnosis or hint. The C++ attempt
# fails one property only (one fault, one charge: the overflow is
# oracle_agreement's), after five passes of three or four lines each, so its
# screen is the 40 lines from its [FAIL] line. The report ends with the list
# of failed properties and their points; the sandbox and limit details are
# behind --verbose; no colour codes when NO_COLOR is set.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-first-screen-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "student_first_screen_test: $*" >&2; exit 1; }

cp "$src/exercises/F4/post_softmax_mask.py" "$tmp/my_attention.py"
NO_COLOR=1 "$attnlab" grade "$tmp/my_attention.py" --student > "$tmp/py.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/py.txt"; fail "the wrong attempt did not exit 1"; }
head -n 40 "$tmp/py.txt" > "$tmp/py40.txt"
grep -q '^\[FAIL\] ' "$tmp/py40.txt" || { cat "$tmp/py.txt"; fail "no failed property in the first 40 lines"; }
grep -q 'Q = np.array(\[\[' "$tmp/py40.txt" || { cat "$tmp/py.txt"; fail "no NumPy counterexample in the first 40 lines"; }
grep -q 'from my_attention import scaled_dot_product_attention' "$tmp/py40.txt" || fail "the paste block does not import the student's file"
grep -q 'O, A = scaled_dot_product_attention(Q, K, V, mask)' "$tmp/py40.txt" || fail "no call to paste"
grep -Eq '(diagnosis|hint): ' "$tmp/py40.txt" || { cat "$tmp/py.txt"; fail "no diagnosis or hint in the first 40 lines"; }
grep -q 'sandbox: *bubblewrap' "$tmp/py.txt" && fail "the sandbox details are not behind --verbose"
grep -q '(more with --verbose: runtime, limits, sandbox)' "$tmp/py.txt" || fail "the header does not say where the details are"
grep -q "$(printf '\033')" "$tmp/py.txt" && fail "colour codes despite NO_COLOR"
grep -A3 '^failed (fix these first' "$tmp/py.txt" | grep -q -- '- row_stochastic: 0 / 3 points' ||
  { tail -n 12 "$tmp/py.txt"; fail "no closing list of the failed properties with their points"; }

# The pasted reproduction runs and shows the bug (a row that does not sum to 1).
block=$(sed -n '/reproduce it (paste into Python/,/^  [a-z]/p' "$tmp/py.txt" | sed -n 's/^    //p')
(cd "$tmp" && printf '%s\n' "$block" | /usr/bin/python3 - > "$tmp/repro.txt" 2>&1) ||
  { printf '%s\n' "$block"; cat "$tmp/repro.txt"; fail "the pasted reproduction does not run"; }

cp "$src/exercises/mutants/f3_no_max_shift.cpp" "$tmp/attention.cpp"
NO_COLOR=1 "$attnlab" grade "$tmp/attention.cpp" > "$tmp/cpp.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/cpp.txt"; fail "the C++ attempt did not exit 1"; }
sed -n '/^\[FAIL\] /,$p' "$tmp/cpp.txt" | head -n 40 > "$tmp/cpp40.txt"
[ "$(grep -c '^\[FAIL\] ' "$tmp/cpp.txt")" = 1 ] || { cat "$tmp/cpp.txt"; fail "C++: the missing max shift was charged to more than one property"; }
grep -q '^\[FAIL\] ' "$tmp/cpp40.txt" || { cat "$tmp/cpp.txt"; fail "C++: no failed property in the first 40 lines"; }
grep -q 'f3::Matrix Q(' "$tmp/cpp40.txt" && grep -Eq '^ *(f3::Matrix Q\(.*\); )?Q << ' "$tmp/cpp40.txt" ||
  { cat "$tmp/cpp.txt"; fail "C++: no Eigen initializer in the first 40 lines"; }
grep -q 'auto r = f3::attention(Q, K, V' "$tmp/cpp.txt" || fail "C++: no call to paste"
grep -Eq '(diagnosis|hint): ' "$tmp/cpp40.txt" || { cat "$tmp/cpp.txt"; fail "C++: no diagnosis or hint in the first 40 lines"; }
echo "student_first_screen_test: ok"
