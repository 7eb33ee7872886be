#!/bin/sh
# precision_hint_test.sh ATTNLAB SOURCE_DIR
# A hint states only what the answers support. Code that computes the
# definition right but in float32 while float64 is graded
# (data/outside/torch_float32.py) fails row_stochastic and oracle_agreement
# at float64's bounds; on its counterexample each holds at float32's, so the
# hint says the departure is float32 rounding, never "normalise each row".
# A logic error (the F4 post-softmax mask, the F3 mutant without the max
# shift) keeps its property's own hint and no within_precision, and so does
# one the diagnosis names (the F3 mutants with a wrong scale: wrong_scale),
# even where the shrunk counterexample's numbers are small enough to hold at
# float32's bound.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-precision-hint-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "precision_hint_test: $*" >&2; exit 1; }

"$attnlab" grade "$src/grader/tests/data/outside/torch_float32.py" --cases 100 \
  --results-json "$tmp/f32.json" > "$tmp/f32.txt" 2>&1
grep -q "hint: the departure is float32 rounding" "$tmp/f32.txt" || { cat "$tmp/f32.txt"; fail "no float32 hint"; }
if grep -q "Normalise each row" "$tmp/f32.txt"; then cat "$tmp/f32.txt"; fail "a float32 drift told to normalise"; fi
"$attnlab" grade "$src/exercises/F4/post_softmax_mask.py" --cases 100 \
  --results-json "$tmp/post.json" > "$tmp/post.txt" 2>&1
"$attnlab" grade "$src/exercises/mutants/f3_no_max_shift.cpp" --cases 100 \
  --results-json "$tmp/shift.json" > "$tmp/shift.txt" 2>&1
for m in f3_no_scale f3_scale_twice; do
  "$attnlab" grade "$src/exercises/mutants/$m.py" --cases 100 \
    --results-json "$tmp/$m.json" > "$tmp/$m.txt" 2>&1
done
/usr/bin/python3 - "$tmp" <<'PY' || fail "results.json's hints are not as expected"
import json, os, sys
tmp = sys.argv[1]
def failed(name):
    r = json.load(open(os.path.join(tmp, name)))
    return {t["name"].split(":")[0].split(" ")[-1]: t["extra_data"] for t in r["tests"] if t["status"] == "failed"}
f32 = failed("f32.json")
assert f32, "torch_float32.py failed nothing"
for name, x in f32.items():
    assert x.get("within_precision") == "float32" and x.get("hint") == "within_float32", (name, x)
for logic in ("post.json", "shift.json", "f3_no_scale.json", "f3_scale_twice.json"):
    bad = failed(logic)
    assert bad, logic + " failed nothing"
    for name, x in bad.items():
        assert "within_precision" not in x and x.get("hint") != "within_float32", (logic, name, x)
for named in ("f3_no_scale.json", "f3_scale_twice.json"):
    assert any("wrong_scale" in x.get("misconceptions", []) for x in failed(named).values()), named
print("float32 drift:", sorted(f32), "logic errors keep their hints")
PY
echo "precision_hint_test: ok"
