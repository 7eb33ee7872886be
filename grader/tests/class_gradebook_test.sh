#!/bin/sh
# class_gradebook_test.sh ATTNLAB SOURCE_DIR
# A class folder of 23 student folders, two archives and one loose file: model solutions,
# the F4 variant, mutants of exercises/mutants, skeletons, a solution with a
# helper it imports, a C++ solution split over a helper .cpp and its
# header, a file that only imports the solution, a notebook, an F4
# attempt with its answers file (one row, 15 / 15). Grades it into OUT, then
# regrades two students (whose files changed) into the same OUT and checks:
# one row per student, the two rows updated, every other row untouched
# (its graded_at too, its lines of summary.csv and of the Canvas and Moodle
# exports the same bytes), the other
# students' archives not unpacked again (rosa's notes.txt is not met), the
# gradebook's fixed columns (every row out of F1+F2+F3+F4's maximum, summed
# here from exercises/*/points.json; "EX (max)", "EX status",
# "EX:property (max)"), the overview (histogram, pass rates,
# misconceptions, timing).
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-class-gradebook-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_gradebook_test: $*" >&2; exit 1; }

class="$tmp/class"
put() { mkdir -p "$class/$1"; cp "$2" "$class/$1/$3"; }

# Solutions (Python and C++), each under the name a student would give it.
put ana "$src/solutions/F1/softmax_rows.py" my_softmax.py
put ben "$src/solutions/F2/masked_softmax.py" masked.py
put ben "$src/solutions/F2/answers.json" answers.json
put cleo "$src/solutions/F3/attention.py" my_attention.py
printf 'def pretty(x):\n    return str(x)\n' > "$class/cleo/helpers.py"
put dan "$src/solutions/F3/attention.cpp" attention.cpp
# F4: code that looks like F3 (no exercise line) + the F4 answers: one row, 15 / 15.
mkdir -p "$class/eva"
grep -v '^# exercise: F4' "$src/solutions/F4/masked_attention.py" > "$class/eva/attempt.py"
cp "$src/solutions/F4/answers.json" "$class/eva/answers.json"
# A solution split over two files: the entry imports its helper.
mkdir -p "$class/finn"
sed 's/^def softmax_rows(/def stable_softmax(/' "$src/solutions/F1/softmax_rows.py" > "$class/finn/rowops.py"
printf 'from rowops import stable_softmax\n\ndef softmax_rows(S):\n    return stable_softmax(S)\n' > "$class/finn/softmax.py"
# A C++ solution split over three files: the entry, a helper .cpp and its header.
cp -r "$src/grader/tests/data/class/jade" "$class/jade"
# A file that only imports the solution: a helper, not a row, not an error.
put gus "$src/solutions/F3/attention.py" attention.py
printf 'from attention import scaled_dot_product_attention\nprint(scaled_dot_product_attention)\n' > "$class/gus/run_me.py"
# A notebook: the F1 solution in a code cell, a magic line, a markdown cell.
/usr/bin/python3 - "$src/solutions/F1/softmax_rows.py" "$class/hana/softmax.ipynb" <<'PY'
import json, os, sys
code = open(sys.argv[1]).read()
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
      "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# My softmax\n"]},
                {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
                 "source": ["%matplotlib inline\n", "!pip list\n"]},
                {"cell_type": "code", "metadata": {}, "execution_count": 2, "outputs": [],
                 "source": code.splitlines(keepends=True)}]}
json.dump(nb, open(sys.argv[2], "w"))
PY
# The F4 variant, mutants and skeletons.
put ivan "$src/exercises/F4/post_softmax_mask.py" attention.py
n=0
for m in f1_wrong_axis.py f1_no_max_shift.py f2_inverted_mask.py f3_no_scale.py f3_scale_twice.py \
         f3_inverted_mask.py f3_transposed_weights.py f3_forbidden_row_nan.py; do
  n=$((n + 1)); put "mutant$n" "$src/exercises/mutants/$m" solution.py
done
for ex in F1 F2 F3 F4; do put "skel_$ex" "$src/exercises/$ex/skeleton.py" skeleton.py; done
# Archives: a .zip holding a folder, a .tar.gz holding the files.
mkdir -p "$tmp/zipped/quinn" "$tmp/tarred"
cp "$src/solutions/F2/masked_softmax.py" "$tmp/zipped/quinn/masked.py"
(cd "$tmp/zipped" && /usr/bin/python3 -c "import zipfile; z = zipfile.ZipFile('$class/quinn.zip', 'w'); z.write('quinn/masked.py'); z.close()")
cp "$src/solutions/F3/attention.py" "$tmp/tarred/attention.py"
echo "my notes" > "$tmp/tarred/notes.txt"  # ignored, and said so when unpacked
tar -czf "$class/rosa.tar.gz" -C "$tmp/tarred" attention.py notes.txt
# A -1e9 fill instead of -inf (misconceptions/README.md: finite_fill), diagnosed.
mkdir -p "$class/lena"
cat > "$class/lena/attention.py" <<'EOF2'
import numpy as np

def scaled_dot_product_attention(Q, K, V, mask=None):
    if Q.shape[1] != K.shape[1]:
        raise ValueError("d_k mismatch")
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        if mask.all(axis=1).any():
            raise ValueError("fully masked row")
        S = np.where(mask, -1e9, S)
    S = S - S.max(axis=1, keepdims=True)
    E = np.exp(S)
    A = E / E.sum(axis=1, keepdims=True)
    return A @ V, A
EOF2
# Two folder names that are not UTF-8 and differ in one byte: two students.
mkdir -p "$class/$(printf 'jos\351')" "$class/$(printf 'jos\350')"
cp "$src/solutions/F3/attention.py" "$class/$(printf 'jos\351')/att.py"
cp "$class/lena/attention.py" "$class/$(printf 'jos\350')/att.py"
# Half an F4: the code without its answers file, the answers file without code.
put nina "$src/solutions/F4/masked_attention.py" attention.py
put omar "$src/solutions/F4/answers.json" answers.json
# Nothing gradable: an empty folder, a folder with only a README.txt.
mkdir -p "$class/otto" "$class/pia"
echo "I will hand it in tomorrow" > "$class/pia/README.txt"
# Not gradable (a syntax error): beside the histogram, not a 0 in it.
mkdir -p "$class/rex"
printf 'import numpy as np\ndef scaled_dot_product_attention(Q, K, V, mask=None)\n    return Q\n' > "$class/rex/attention.py"
# A loose file at the top level: a student of its own.
cp "$src/solutions/F1/softmax_rows.py" "$class/zoe.py"
count=$(find "$class" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$count" -ge 20 ] || fail "only $count student folders"
students=$((count + 3))  # and the two archives and the loose file (empty folders too)

out="$tmp/out"
"$attnlab" grade "$class" --cases 10 --jobs 2 --out "$out" > "$tmp/first.txt" 2>&1
code=$?
[ "$code" = 1 ] || { cat "$tmp/first.txt"; fail "expected exit status 1 (skeletons fail), got $code"; }
grep -q "most common diagnosed misconceptions:" "$tmp/first.txt" && grep -q "  finite_fill: " "$tmp/first.txt" ||
  { cat "$tmp/first.txt"; fail "the overview does not list finite_fill"; }
grep -q "entry my_attention.py (defines F3); helpers: helpers.py" "$tmp/first.txt" ||
  { cat "$tmp/first.txt"; fail "the entry choice of cleo is not reported"; }
grep -q "entry attention.cpp (defines F3); helpers: row_softmax.cpp, test_row_softmax.cpp, row_softmax.hpp" "$tmp/first.txt" ||
  { cat "$tmp/first.txt"; fail "the entry choice of jade is not reported"; }
grep -q "class overview: $students students" "$tmp/first.txt" || { cat "$tmp/first.txt"; fail "no overview"; }
cp "$out/summary.json" "$tmp/first.json"
cp "$out/summary.csv" "$tmp/first.csv"
cp "$out/gradebook-canvas.csv" "$tmp/first-canvas.csv"
cp "$out/gradebook-moodle.csv" "$tmp/first-moodle.csv"
grep -q "ignored .*notes.txt" "$tmp/first.txt" || { cat "$tmp/first.txt"; fail "rosa's archive was not unpacked (notes.txt not ignored)"; }

SRC="$src" /usr/bin/python3 - "$out" "$students" <<'PY' || { cat "$tmp/first.txt"; fail "the first gradebook is not as expected"; }
import csv, json, os, sys
out, students = sys.argv[1], int(sys.argv[2])
s = json.load(open(os.path.join(out, "summary.json")))
rows = {r["student"]: r for r in s["students"]}
assert len(rows) == students, sorted(rows)
def maximum(ex):
    return sum(json.load(open(os.path.join(os.environ["SRC"], "exercises", ex, "points.json")))["points"].values())
maxima = {ex: maximum(ex) for ex in ("F1", "F2", "F3", "F4")}
total = sum(maxima.values())
def cell(name, ex):
    return rows[name]["exercise_scores"][ex]
def full_marks(name):  # every exercise handed in has its maximum
    r = rows[name]
    return all(c["score"] == maxima[ex] for ex, c in r["exercise_scores"].items() if c["status"] != "no submission")
for r in rows.values():  # fixed columns: one maximum for every row
    assert r["max_score"] == total and set(r["exercise_scores"]) == set(maxima), r
    assert r["seed"] == s["seed"] and r["settings_hash"], r
with open(os.path.join(out, "summary.csv"), newline="") as f:
    table = list(csv.DictReader(f))
assert len(table) == students and len({t["student"] for t in table}) == students
header = list(table[0].keys())
assert header[:6] == ["student", "score", "max_score", "status", "exercises", "files"], header
for ex, m in maxima.items():
    assert "%s (%g)" % (ex, m) in header and ex + " status" in header, header
assert "F3:oracle_agreement (3)" in header and "F4:answers (3)" in header, header
assert "F1:oracle_agreement (2)" in header  # no column shared between exercises
full = ["ana", "ben", "cleo", "dan", "eva", "finn", "gus", "hana", "jade", "zoe.py", "rosa"]
# quinn's F2 code came without its answers file: 0 of the answers item's points.
assert rows["quinn"]["score"] == maxima["F2"] - 3 and "missing the answers file" in rows["quinn"]["note"], rows["quinn"]
for name in full:
    r = rows[name]
    assert r["status"] == "graded" and r["score"] > 0 and full_marks(name), r
    assert sum(c["status"] == "graded" for c in r["exercise_scores"].values()) == 1, r
# cleo handed in F3 only: F1, F2 and F4 are "no submission", 0 of their maxima.
assert [ex for ex, c in rows["cleo"]["exercise_scores"].items() if c["status"] == "no submission"] == ["F1", "F2", "F4"], rows["cleo"]
assert rows["eva"]["exercises"] == ["F4"] and rows["eva"]["score"] == 15, rows["eva"]
assert len([x for x in s["submissions"] if x["student"] == "eva"]) == 1
assert rows["gus"]["files"] == ["gus/attention.py"], rows["gus"]
assert rows["hana"]["files"] == ["hana/softmax.ipynb"], rows["hana"]
for name in ["ivan"] + ["mutant%d" % k for k in range(1, 9)] + ["skel_F%d" % k for k in range(1, 5)]:
    assert rows[name]["score"] < rows[name]["max_score"] and not full_marks(name), rows[name]
for r in rows.values():
    assert r["graded_at"] and r["attnlab_version"], r
o = s["overview"]
graded = [r for r in rows.values() if r["status"] == "graded"]
assert sum(b["students"] for b in o["score_histogram"]) == len(graded), o
assert o["not_in_histogram"]["not gradable"] >= 1 and o["not_in_histogram"]["no submission"] == 2, o
assert len(graded) + sum(o["not_in_histogram"].values()) == students, o
assert rows["rex"]["status"] == "not gradable" and cell("rex", "F3")["status"] == "not gradable", rows["rex"]
assert cell("rex", "F1")["status"] == "no submission", rows["rex"]
for name in ("otto", "pia"):
    r = rows[name]
    assert r["status"] == "no submission" and r["score"] == 0 and r["files"] == [], r
    assert r["max_score"] == total and all(c["status"] == "no submission" for c in r["exercise_scores"].values()), r
assert "README.txt" in rows["pia"]["note"], rows["pia"]
# Half an F4 is out of F4's full maximum (exercises/F4/points.json), the missing part 0.
f4 = json.load(open(os.path.join(os.environ["SRC"], "exercises/F4/points.json")))["points"]
f4_max, f4_answers = sum(f4.values()), f4["answers"]
assert maxima["F4"] == f4_max and rows["nina"]["score"] == f4_max - f4_answers, rows["nina"]
assert "missing the answers file" in rows["nina"]["note"], rows["nina"]
assert rows["omar"]["score"] == f4_answers and cell("omar", "F4")["status"] == "graded", rows["omar"]
assert "missing the code" in rows["omar"]["note"], rows["omar"]
assert rows["eva"]["score"] == f4_max and "missing" not in rows["eva"]["note"], rows["eva"]
# Non-UTF-8 names: distinct, reversible ids (class_folder.hpp student_id).
assert rows["jos%E9"]["score"] == maxima["F3"] == 12, rows["jos%E9"]
assert rows["jos%E8"]["score"] < maxima["F3"], rows["jos%E8"]
assert rows["jos%E9"]["files"] == ["jos%E9/att.py"], rows["jos%E9"]
# A diagnosed misconception reaches the gradebook and the overview.
assert "finite_fill" in rows["lena"]["misconceptions"], rows["lena"]
lena_csv = [t for t in table if t["student"] == "lena"][0]
assert "finite_fill" in lena_csv["misconceptions"].split(), lena_csv
assert any(m["misconception"] == "finite_fill" for m in o["misconceptions"]), o["misconceptions"]
assert o["pass_rate"]["F4:row_stochastic"]["graded"] >= 2, o["pass_rate"]
assert o["submissions"] == len([x for x in s["submissions"] if x["status"] != "no submission"]) and o["median_seconds_per_submission"] > 0
assert any(m["students"] >= 1 for m in o["misconceptions"]), o["misconceptions"]
print("first grading ok")
PY

# Regrade two students whose files changed: ivan fixed his code, skel_F1 submitted at last.
sleep 1
cp "$src/solutions/F3/attention.py" "$class/ivan/attention.py"
echo '# exercise: F4' >> "$class/ivan/attention.py"
cp "$src/solutions/F4/answers.json" "$class/ivan/answers.json"  # the whole F4 this time
cp "$src/solutions/F1/softmax_rows.py" "$class/skel_F1/skeleton.py"
"$attnlab" grade "$class" --students ivan,skel_F1 --cases 10 --jobs 2 --out "$out" > "$tmp/second.txt" 2>&1
code=$?
[ "$code" = 0 ] || { cat "$tmp/second.txt"; fail "expected exit status 0 for the two regraded, got $code"; }
grep -q "notes.txt" "$tmp/second.txt" && { cat "$tmp/second.txt"; fail "regrading two students unpacked rosa's archive"; }
grep -q "pia/README.txt" "$tmp/second.txt" && { cat "$tmp/second.txt"; fail "regrading two students walked pia's folder"; }

/usr/bin/python3 - "$tmp/first.json" "$out" "$students" "$tmp/first.csv" <<'PY' || { cat "$tmp/second.txt"; fail "the regrade did not keep the other rows"; }
import csv, json, os, sys
first = json.load(open(sys.argv[1]))
out, students = sys.argv[2], int(sys.argv[3])
second = json.load(open(os.path.join(out, "summary.json")))
a = {r["student"]: r for r in first["students"]}
b = {r["student"]: r for r in second["students"]}
assert set(a) == set(b) and len(b) == students, (sorted(a), sorted(b))
with open(os.path.join(out, "summary.csv"), newline="") as f:
    table = list(csv.DictReader(f))
assert len(table) == students, len(table)
# The other students' lines of summary.csv are the same bytes.
def lines(path):
    out = {}
    with open(path, newline="") as f:
        raw = f.read().split("\n")
    for line in raw[1:]:
        if line:
            out[next(csv.reader([line]))[0]] = line
    return raw[0], out
head_a, lines_a = lines(sys.argv[4])
head_b, lines_b = lines(os.path.join(out, "summary.csv"))
assert head_a == head_b and set(lines_a) == set(lines_b), (head_a, head_b)
for name, line in lines_a.items():
    if name not in ("ivan", "skel_F1"):
        assert lines_b[name] == line, (line, lines_b[name])
assert lines_b["ivan"] != lines_a["ivan"]
# So are their lines of the LMS exports (Canvas: two header rows, the student
# in the first column; Moodle: one, the username first; neither has a line
# for a student with a not gradable exercise), and the headers.
who_in = {}
for lms, heads in (("canvas", 2), ("moodle", 1)):
    def rows_of(path):
        with open(path, newline="") as f:
            raw = f.read().split("\n")
        return raw[:heads], {next(csv.reader([l]))[0]: l for l in raw[heads:] if l}
    ha, la = rows_of(os.path.join(os.path.dirname(sys.argv[4]), "first-" + lms + ".csv"))
    hb, lb = rows_of(os.path.join(out, "gradebook-" + lms + ".csv"))
    regraded = {"ivan", "skel_F1"}
    assert ha == hb and set(la) - regraded == set(lb) - regraded, (lms, ha, hb, sorted(la), sorted(lb))
    who_in[lms] = set(lb)
    for name, line in la.items():
        if name not in regraded:
            assert lb[name] == line, (lms, line, lb[name])
    assert "ivan" in lb and lb["ivan"] != la.get("ivan"), (lms, la.get("ivan"), lb.get("ivan"))
assert who_in["canvas"] == who_in["moodle"] and len(who_in["canvas"]) < students, who_in
for name in a:
    if name in ("ivan", "skel_F1"):
        ex = b[name]["exercises"][0]
        assert b[name]["exercise_scores"][ex]["score"] > 0 and b[name]["exercise_scores"][ex]["status"] == "graded", b[name]
        assert b[name]["score"] > a[name]["score"], (a[name], b[name])
        assert b[name]["graded_at"] >= a[name]["graded_at"], (a[name], b[name])
        assert b[name] != a[name]
    else:
        assert a[name] == b[name], (a[name], b[name])
print("regrade ok")
PY
# A non-UTF-8 student is regradable by its id and by its raw name, the other kept.
cp "$out/summary.json" "$tmp/before_jos.json"
"$attnlab" grade "$class" --students 'jos%E9' --cases 10 --out "$out" > "$tmp/jos.txt" 2>&1 &&
"$attnlab" grade "$class" --students "$(printf 'jos\350')" --cases 10 --out "$out" >> "$tmp/jos.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/jos.txt"; fail "regrading the non-UTF-8 students failed"; }
grep -q "^\[1/1\] jos%E9/att.py: graded, 12 / 12" "$tmp/jos.txt" && grep -q "^\[1/1\] jos%E8/att.py: graded" "$tmp/jos.txt" ||
  { cat "$tmp/jos.txt"; fail "--students did not pick the non-UTF-8 students"; }
/usr/bin/python3 - "$tmp/before_jos.json" "$out/summary.json" <<'PY' || fail "regrading jos%E9 and jos%E8 changed other rows"
import json, sys
a = {r["student"]: r for r in json.load(open(sys.argv[1]))["students"]}
b = {r["student"]: r for r in json.load(open(sys.argv[2]))["students"]}
assert set(a) == set(b)
assert b["jos%E9"]["score"] == 12 and b["jos%E8"]["score"] < 12, (b["jos%E9"], b["jos%E8"])
for name in a:
    if name not in ("jos%E9", "jos%E8"):
        assert a[name] == b[name], name
PY

# A student with nothing gradable is regradable by name, and with the
# exercise fixed counts 0 of its maximum (exercises/F3/points.json).
"$attnlab" grade "$class" --students otto --exercise F3 --cases 10 --out "$tmp/otto" > "$tmp/otto.txt" 2>&1
code=$?
[ "$code" = 1 ] || { cat "$tmp/otto.txt"; fail "otto: expected exit status 1 (no submission), got $code"; }
/usr/bin/python3 - "$tmp/otto/summary.json" "$src/exercises/F3/points.json" <<'PY' || { cat "$tmp/otto.txt"; fail "otto's row is not as expected"; }
import json, sys
s = json.load(open(sys.argv[1]))
points = json.load(open(sys.argv[2]))
table = points.get("points", points)
maximum = sum(v for v in table.values() if isinstance(v, (int, float)))
[r] = s["students"]
assert r["student"] == "otto" and r["status"] == "no submission", r
assert r["score"] == 0 and r["max_score"] == maximum > 0, (r, maximum)
assert "empty" in r["note"], r
print("no submission ok")
PY
echo "class_gradebook_test: ok"
