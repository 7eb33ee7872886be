#!/bin/sh
# refusal_counterexample_test.sh ATTNLAB SOURCE_DIR DATA_DIR
# The counterexample shown is the case answered: a submission whose only
# fault is a value mistake (an epsilon in the softmax denominator, so it
# fails on every case, the shrunk ones included) refuses every faulty input,
# so each refusal property (F3's dk_mismatch_refused and
# fully_forbidden_refused; with attnlab check also shape_mismatch_refused)
# fails on the valid case it was made from. Its block must show that valid
# case throughout: the shape line, the pasted
# reproduction (whose Q, K, V and mask have those shapes, with no fully
# forbidden row) and the answer (A is T_q x T_v of that case); and the
# reproduction, pasted beside the file, must run without raising (Python)
# or throwing (C++). The Python file is named my-attention.py (not a module
# name: it is imported by path); the C++ one is built with the report's own command line.
set -u
attnlab=$1
src=$2
data=$3
tmp=$(mktemp -d /tmp/attnlab-refusal-cex-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "refusal_counterexample_test: $*" >&2; exit 1; }

# The block of property $2 in report $1: from its [FAIL] line to the next verdict.
block() { awk -v id="$2" '/^\[[A-Z ]+\] / {on = index($0, "] " id ":") > 0} on' "$1"; }
# "T_q=1, T_v=3, d_k=2, d_v=1" of the counterexample line, as "1 3 2 1".
shape_of() {
  sed -n 's/.*counterexample after [0-9]* passing cases, shrunk to T_q=\([0-9]*\), T_v=\([0-9]*\), d_k=\([0-9]*\), d_v=\([0-9]*\):.*/\1 \2 \3 \4/p' "$1" | head -n 1
}

mkdir -p "$tmp/py"
cp "$src/exercises/mutants/f3_epsilon_denominator.py" "$tmp/py/my-attention.py"
NO_COLOR=1 "$attnlab" grade "$tmp/py/my-attention.py" --cases 30 > "$tmp/py.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/py.txt"; fail "the epsilon attempt did not exit 1"; }
for id in dk_mismatch_refused fully_forbidden_refused; do  # F3's refusal properties
  block "$tmp/py.txt" "$id" > "$tmp/b.txt"
  grep -q "^\[FAIL\] $id:" "$tmp/b.txt" || { cat "$tmp/py.txt"; fail "Python: $id did not fail"; }
  grep -q "^  refused .*, but did not answer .* correctly" "$tmp/b.txt" ||
    { cat "$tmp/b.txt"; fail "Python: $id did not fail on its valid case alone"; }
  set -- $(shape_of "$tmp/b.txt")
  [ $# = 4 ] || { cat "$tmp/b.txt"; fail "Python: $id has no shape line"; }
  T_q=$1 T_v=$2 d_k=$3 d_v=$4
  grep -q "^  answered A (${T_q}x${T_v}) =" "$tmp/b.txt" ||
    { cat "$tmp/b.txt"; fail "Python: $id: the answer shown is not to a ${T_q}x${T_v} case"; }
  sed -n '/reproduce it (paste into Python/,/^  [a-z]/p' "$tmp/b.txt" | sed -n 's/^    //p' > "$tmp/py/repro.py"
  [ -s "$tmp/py/repro.py" ] || { cat "$tmp/b.txt"; fail "Python: $id has no reproduction"; }
  cat >> "$tmp/py/repro.py" <<PY
assert Q.shape == ($T_q, $d_k) and K.shape == ($T_v, $d_k) and V.shape == ($T_v, $d_v), (Q.shape, K.shape, V.shape)
assert mask is None or (mask.shape == ($T_q, $T_v) and not mask.all(axis=1).any()), mask
assert A.shape == ($T_q, $T_v) and O.shape == ($T_q, $d_v)
PY
  (cd "$tmp/py" && /usr/bin/python3 repro.py > "$tmp/out.txt" 2>&1) ||
    { cat "$tmp/b.txt" "$tmp/out.txt"; fail "Python: $id: the pasted reproduction raised (it is not the valid case)"; }
  echo "Python $id: the block and its reproduction are the ${T_q}x${T_v} valid case"
done

mkdir -p "$tmp/cpp"
cp "$data/cpp/f3_epsilon_denominator.cpp" "$tmp/cpp/epsilon.cpp"
NO_COLOR=1 "$attnlab" grade "$tmp/cpp/epsilon.cpp" --cases 30 > "$tmp/cpp.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/cpp.txt"; fail "the C++ epsilon attempt did not exit 1"; }
for id in dk_mismatch_refused fully_forbidden_refused; do
  block "$tmp/cpp.txt" "$id" > "$tmp/b.txt"
  grep -q "^  refused .*, but did not answer .* correctly" "$tmp/b.txt" ||
    { cat "$tmp/b.txt"; fail "C++: $id did not fail on its valid case alone"; }
  set -- $(shape_of "$tmp/b.txt")
  [ $# = 4 ] || { cat "$tmp/b.txt"; fail "C++: $id has no shape line"; }
  T_q=$1 T_v=$2 d_k=$3 d_v=$4
  for m in "Q($T_q, $d_k)" "K($T_v, $d_k)" "V($T_v, $d_v)"; do
    grep -qF "f3::Matrix $m;" "$tmp/b.txt" || { cat "$tmp/b.txt"; fail "C++: $id: the reproduction has no $m"; }
  done
  awk '/reproduce it \(C\+\+/ {on = 1; next} on && /^    / {print substr($0, 5); next} on {exit}' \
    "$tmp/b.txt" > "$tmp/cpp/repro.cpp"
  build=$(sed -n 's/^  \$ //p' "$tmp/b.txt")
  [ -n "$build" ] || { cat "$tmp/b.txt"; fail "C++: $id: no command line to build the reproduction"; }
  (cd "$tmp/cpp" && sh -c "$build" > "$tmp/out.txt" 2>&1) ||
    { cat "$tmp/b.txt" "$tmp/out.txt"; fail "C++: $id: the reproduction did not build or it threw"; }
  echo "C++ $id: the block and its reproduction are the ${T_q}x${T_v} valid case"
done
# attnlab check (the kernel properties, shape_mismatch_refused too): the
# matrices printed are the valid case's, of the shapes its line says.
NO_COLOR=1 "$attnlab" check "$tmp/py/my-attention.py" --cases 30 > "$tmp/check.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/check.txt"; fail "check: the epsilon kernel did not exit 1"; }
for id in dk_mismatch_refused fully_forbidden_refused shape_mismatch_refused; do
  awk -v id="$id" '/^(PASS|FAIL|SKIP) / {on = index($0, " " id ":") > 0} on' "$tmp/check.txt" > "$tmp/b.txt"
  grep -q "^FAIL  $id: refused .*, but did not answer .* correctly" "$tmp/b.txt" ||
    { cat "$tmp/check.txt"; fail "check: $id did not fail on its valid case alone"; }
  set -- $(shape_of "$tmp/b.txt")
  [ $# = 4 ] || { cat "$tmp/b.txt"; fail "check: $id has no shape line"; }
  T_q=$1 T_v=$2 d_k=$3 d_v=$4
  for m in "Q (${T_q}x${d_k}) =" "K (${T_v}x${d_k}) =" "V (${T_v}x${d_v}) =" "answered A (${T_q}x${T_v}) ="; do
    grep -qF "$m" "$tmp/b.txt" || { cat "$tmp/b.txt"; fail "check: $id: no '$m' (not the valid case)"; }
  done
  grep -q "params" "$tmp/b.txt" && { cat "$tmp/b.txt"; fail "check: $id prints the property's params as inputs"; }
  echo "check $id: the matrices are the ${T_q}x${T_v} valid case"
done
echo "refusal_counterexample_test: ok"
