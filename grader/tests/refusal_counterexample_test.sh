#!/bin/sh
# refusal_counterexample_test.sh ATTNLAB SOURCE_DIR DATA_DIR
# The counterexample shown is the case answered, and a refused valid input
# is charged once, by the owner of answering (score_shape for attention): a
# submission written for self-attention only (data/f3_self_attention_only.py
# and its C++ twin) refuses every faulty input, and also every valid case
# with T_q != T_v. score_shape fails on such a valid case, and its block must
# show that valid case throughout: the shape line (T_q != T_v), the pasted
# reproduction, which, run beside the file, raises (Python) or throws (C++)
# the submission's own refusal of T_q != T_v and nothing else, and the
# refusal shown as the answer. Each refusal property (F3's
# dk_mismatch_refused and fully_forbidden_refused; with attnlab check also
# shape_mismatch_refused) judges the refusals on the cases whose valid twin
# was answered, passes, and says that the others were left to score_shape.
# The Python file is named my-attention.py (not a module name: it is
# imported by path); the C++ one is built with the report's own command line.
set -u
attnlab=$1
src=$2
data=$3
tmp=$(mktemp -d /tmp/attnlab-refusal-cex-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
own='self-attention needs as many queries as keys'
fail() { echo "refusal_counterexample_test: $*" >&2; exit 1; }

# The block of property $2 in report $1: from its [FAIL] line to the next verdict.
block() { awk -v id="$2" '/^\[[A-Z ]+\] / {on = index($0, "] " id ":") > 0} on' "$1"; }
# "T_q=1, T_v=3, d_k=2, d_v=1" of the counterexample line, as "1 3 2 1".
shape_of() {
  sed -n 's/.*counterexample after [0-9]* passing cases, shrunk to T_q=\([0-9]*\), T_v=\([0-9]*\), d_k=\([0-9]*\), d_v=\([0-9]*\):.*/\1 \2 \3 \4/p' "$1" | head -n 1
}

mkdir -p "$tmp/py"
cp "$data/f3_self_attention_only.py" "$tmp/py/my-attention.py"
NO_COLOR=1 "$attnlab" grade "$tmp/py/my-attention.py" --cases 30 > "$tmp/py.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/py.txt"; fail "the self-attention attempt did not exit 1"; }
for id in dk_mismatch_refused fully_forbidden_refused; do  # F3's refusal properties
  block "$tmp/py.txt" "$id" > "$tmp/b.txt"
  grep -q "^\[PASS\] $id:" "$tmp/b.txt" || { cat "$tmp/py.txt"; fail "Python: $id did not pass (the refused valid case is score_shape's)"; }
  grep -q "^  not judged here: a refused valid input, charged to score_shape alone ([0-9]* cases*)" "$tmp/b.txt" ||
    { cat "$tmp/b.txt"; fail "Python: $id does not say its refused valid cases were left to score_shape"; }
done
id=score_shape
block "$tmp/py.txt" "$id" > "$tmp/b.txt"
grep -q "^\[FAIL\] $id:" "$tmp/b.txt" || { cat "$tmp/py.txt"; fail "Python: $id did not fail"; }
grep -q "^  refused a valid input: ValueError: $own" "$tmp/b.txt" ||
  { cat "$tmp/b.txt"; fail "Python: $id did not fail on the refused valid case"; }
set -- $(shape_of "$tmp/b.txt")
[ $# = 4 ] || { cat "$tmp/b.txt"; fail "Python: $id has no shape line"; }
T_q=$1 T_v=$2 d_k=$3 d_v=$4
[ "$T_q" != "$T_v" ] || { cat "$tmp/b.txt"; fail "Python: $id: the case shown has T_q = T_v"; }
grep -q "^  answered: refused with ValueError: $own" "$tmp/b.txt" ||
  { cat "$tmp/b.txt"; fail "Python: $id: the answer shown is not the valid case's refusal"; }
sed -n '/reproduce it (paste into Python/,/^  [a-z]/p' "$tmp/b.txt" | sed -n 's/^    //p' > "$tmp/py/repro.py"
[ -s "$tmp/py/repro.py" ] || { cat "$tmp/b.txt"; fail "Python: $id has no reproduction"; }
cat >> "$tmp/py/repro.py" <<PY
raise SystemExit("answered: the reproduction is not the refused valid case")
PY
(cd "$tmp/py" && /usr/bin/python3 repro.py > "$tmp/out.txt" 2>&1) &&
  { cat "$tmp/b.txt" "$tmp/out.txt"; fail "Python: $id: the pasted reproduction did not raise"; }
grep -q "ValueError: $own" "$tmp/out.txt" ||
  { cat "$tmp/b.txt" "$tmp/out.txt"; fail "Python: $id: the reproduction raised something else (it is not the valid case)"; }
echo "Python $id: the block and its reproduction are the ${T_q}x${T_v} valid case"

mkdir -p "$tmp/cpp"
cp "$data/cpp/f3_self_attention_only.cpp" "$tmp/cpp/self.cpp"
NO_COLOR=1 "$attnlab" grade "$tmp/cpp/self.cpp" --cases 30 > "$tmp/cpp.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/cpp.txt"; fail "the C++ self-attention attempt did not exit 1"; }
for id in dk_mismatch_refused fully_forbidden_refused; do
  block "$tmp/cpp.txt" "$id" > "$tmp/b.txt"
  grep -q "^\[PASS\] $id:" "$tmp/b.txt" || { cat "$tmp/cpp.txt"; fail "C++: $id did not pass (the refused valid case is score_shape's)"; }
  grep -q "^  not judged here: a refused valid input, charged to score_shape alone ([0-9]* cases*)" "$tmp/b.txt" ||
    { cat "$tmp/b.txt"; fail "C++: $id does not say its refused valid cases were left to score_shape"; }
done
id=score_shape
block "$tmp/cpp.txt" "$id" > "$tmp/b.txt"
grep -q "^  refused a valid input: .*$own" "$tmp/b.txt" ||
  { cat "$tmp/b.txt"; fail "C++: $id did not fail on the refused valid case"; }
set -- $(shape_of "$tmp/b.txt")
[ $# = 4 ] || { cat "$tmp/b.txt"; fail "C++: $id has no shape line"; }
T_q=$1 T_v=$2 d_k=$3 d_v=$4
[ "$T_q" != "$T_v" ] || { cat "$tmp/b.txt"; fail "C++: $id: the case shown has T_q = T_v"; }
for m in "Q($T_q, $d_k)" "K($T_v, $d_k)" "V($T_v, $d_v)"; do
  grep -qF "f3::Matrix $m;" "$tmp/b.txt" || { cat "$tmp/b.txt"; fail "C++: $id: the reproduction has no $m"; }
done
awk '/reproduce it \(C\+\+/ {on = 1; next} on && /^    / {print substr($0, 5); next} on {exit}' \
  "$tmp/b.txt" > "$tmp/cpp/repro.cpp"
build=$(sed -n 's/^  \$ //p' "$tmp/b.txt")
[ -n "$build" ] || { cat "$tmp/b.txt"; fail "C++: $id: no command line to build the reproduction"; }
(cd "$tmp/cpp" && sh -c "$build" > "$tmp/out.txt" 2>&1) &&
  { cat "$tmp/b.txt" "$tmp/out.txt"; fail "C++: $id: the reproduction did not throw"; }
grep -q "$own" "$tmp/out.txt" ||
  { cat "$tmp/b.txt" "$tmp/out.txt"; fail "C++: $id: the reproduction did not build, or threw something else"; }
echo "C++ $id: the block and its reproduction are the ${T_q}x${T_v} valid case"
# attnlab check (the kernel properties, shape_mismatch_refused too): the
# matrices printed are the valid case's, of the shapes its line says.
NO_COLOR=1 "$attnlab" check "$tmp/py/my-attention.py" --cases 30 > "$tmp/check.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/check.txt"; fail "check: the self-attention kernel did not exit 1"; }
for id in dk_mismatch_refused fully_forbidden_refused shape_mismatch_refused; do
  awk -v id="$id" '/^(PASS|FAIL|SKIP) / {on = index($0, " " id " ") > 0 || index($0, " " id ":") > 0} on' "$tmp/check.txt" > "$tmp/b.txt"
  grep -q "^PASS  $id " "$tmp/b.txt" || { cat "$tmp/check.txt"; fail "check: $id did not pass"; }
  grep -q "^    not judged here: a refused valid input, charged to score_shape alone" "$tmp/b.txt" ||
    { cat "$tmp/check.txt"; fail "check: $id does not say its refused valid cases were left to score_shape"; }
done
id=score_shape
awk -v id="$id" '/^(PASS|FAIL|SKIP) / {on = index($0, " " id ":") > 0} on' "$tmp/check.txt" > "$tmp/b.txt"
grep -q "^FAIL  $id: refused a valid input: ValueError: $own" "$tmp/b.txt" ||
  { cat "$tmp/check.txt"; fail "check: $id did not fail on the refused valid case"; }
set -- $(shape_of "$tmp/b.txt")
[ $# = 4 ] || { cat "$tmp/b.txt"; fail "check: $id has no shape line"; }
T_q=$1 T_v=$2 d_k=$3 d_v=$4
[ "$T_q" != "$T_v" ] || { cat "$tmp/b.txt"; fail "check: $id: the case shown has T_q = T_v"; }
for m in "Q (${T_q}x${d_k}) =" "K (${T_v}x${d_k}) =" "V (${T_v}x${d_v}) ="; do
  grep -qF "$m" "$tmp/b.txt" || { cat "$tmp/b.txt"; fail "check: $id: no '$m' (not the valid case)"; }
done
grep -q "params" "$tmp/b.txt" && { cat "$tmp/b.txt"; fail "check: $id prints the property's params as inputs"; }
echo "check $id: the matrices are the ${T_q}x${T_v} valid case"
echo "refusal_counterexample_test: ok"
