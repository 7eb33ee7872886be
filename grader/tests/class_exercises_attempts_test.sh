#!/bin/sh
# class_exercises_attempts_test.sh ATTNLAB SOURCE_DIR
# Which files of a student are graded, and as what (class_folder.hpp):
# - a Python file defining F2's masked_softmax and the F3 attention that
#   calls it, with F2's answers file beside it: two rows (F2 with its
#   answers, full marks; F3), with and without --exercise (--exercise F2:
#   the F2 row only, its answers paired, nothing "missing"); the same file
#   named on the command line (--out) too; graded alone, its report names F2;
# - several attempts at F3: the latest by modification time by default, the
#   configuration's "entry" with it, every one with "attempts": "best"; the
#   choice and the text report say which and why;
# - a notebook whose plotting cell imports a display module the machine
#   lacks is graded, the cell skipped with a note; a cell importing another
#   missing module stays fatal;
# - the same for C++: a file of F2 and F3 (f3::attention calling its own
#   f2::masked_softmax) with F2's answers gives both rows, with and without
#   --exercise;
# - `-o DIR` is --out DIR, the folder and its parents made;
# - under --exercise F2, a student whose only file is F3 has no submission
#   of F2 (the note names the F3 file), and a file that defines no
#   exercise's function is graded as F2 with a label that says so, never
#   "(defines F2)".
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-class-files-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_exercises_attempts_test: $*" >&2; exit 1; }
py=/usr/bin/python3

# The F2 solution and the F3 solution calling it, in one file.
mkdir -p "$tmp/c1/alice"
$py "$src/grader/tests/make_f2_and_f3.py" "$src" "$tmp/c1/alice/attention.py" || fail "cannot write the F2+F3 file"
cp "$src/solutions/F2/answers.json" "$tmp/c1/alice/answers.json"

# `-o` is --out: the folder (and its parents) made, the gradebook written there.
"$attnlab" grade "$tmp/c1" --cases 5 -o "$tmp/made/by/grade" > "$tmp/short-o.txt" 2>&1
[ -f "$tmp/made/by/grade/summary.json" ] || { cat "$tmp/short-o.txt"; fail "-o DIR: no summary.json made there"; }

# rows OUT: "file exercise status score max_score" per submission, then
# "choice: ..." lines.
rows() {
  $py - "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
for r in s["submissions"]:
    print("%s|%s|%s|%g|%g|%s" % (r["file"], r["exercise"], r["status"], r["score"], r["max_score"], r["note"]))
for r in s["submissions"]:
    print("choice: " + r["choice"])
PY
}
grade() {  # grade OUT ARGS...
  out=$1; shift
  "$attnlab" grade "$@" --cases 20 --jobs 2 --out "$out" > "$out.log" 2>&1
  echo $? > "$out.code"
  rows "$out" > "$out.rows" 2>&1 || { cat "$out.log"; fail "$out: no summary.json"; }
  cat "$out.rows"
}
expect() {  # expect FILE REGEX WHAT
  grep -Eq -e "$2" "$1" || { cat "$1"; fail "$3 (no line matching '$2' in $1)"; }
}
reject() {
  if grep -Eq -e "$2" "$1"; then cat "$1"; fail "$3 (a line matches '$2' in $1)"; fi
}

# both_exercises OUT CLASS STUDENT FILE: CLASS holds STUDENT/FILE (F2 and
# F3, F3 calling the file's own F2) and F2's answers.json beside it. Without
# --exercise: two rows, full marks each, the answers with F2, exit status
# 0, the student's gradebook row full in both exercises' columns; with
# --exercise F2 the F2 row alone, its answers paired (nothing missing);
# with --exercise F3 the F3 row alone (the F2 answers are not F3's).
both_exercises() {
  o=$1 class=$2 who=$3 file=$4
  f=$(printf '%s' "$file" | sed 's/\./\\./g')
  grade "$o-all" "$class"
  expect "$o-all.rows" "^$who/$f \\(F2\\)\\|F2\\|graded\\|([0-9.]+)\\|\\1\\|\$" "$file: the F2 row is not full marks with its answers"
  expect "$o-all.rows" "^$who/$f \\(F3\\)\\|F3\\|graded\\|([0-9.]+)\\|\\1\\|\$" "$file: the F3 row is not full marks"
  [ "$(grep -c "^$who/" "$o-all.rows")" = 2 ] || fail "$file: expected two rows of $who"
  expect "$o-all.rows" "^choice: entry $f \\(defines F2 and F3; graded as F2\\); answers answers\\.json" "$file: the F2 choice"
  [ "$(cat "$o-all.code")" = 0 ] || { cat "$o-all.log"; fail "$file: expected exit status 0, got $(cat "$o-all.code")"; }
  $py - "$o-all" "$who" <<'PY' || fail "$file: the student's row does not hold both exercises in full"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/summary.csv", newline="")))
g = [r for r in rows if r["student"] == sys.argv[2]][0]
f2 = [k for k in g if k.startswith("F2 (")][0]
f3 = [k for k in g if k.startswith("F3 (")][0]
assert float(g[f2]) == float(f2[4:-1]) > 0 and float(g[f3]) == float(f3[4:-1]) > 0, g
assert float(g["score"]) == float(g["max_score"]) == float(f2[4:-1]) + float(f3[4:-1]), g
PY
  for ex in F2 F3; do
    grade "$o-$ex" "$class" --exercise $ex
    expect "$o-$ex.rows" "^$who/$f\\|$ex\\|graded\\|([0-9.]+)\\|\\1\\|\$" "$file --exercise $ex: not full marks"
    [ "$(grep -c "^$who/" "$o-$ex.rows")" = 1 ] || fail "$file --exercise $ex: expected one row"
    reject "$o-$ex.rows" 'missing' "$file --exercise $ex: something reported missing"
  done
}

# 1. Both exercises of the file, each with full marks, the answers with F2.
both_exercises "$tmp/o1" "$tmp/c1" alice attention.py

# The file named on the command line: a row per exercise too.
grade "$tmp/o4" "$tmp/c1/alice/attention.py"
[ "$(grep -Ec '\|graded\|' "$tmp/o4.rows")" = 2 ] || fail "a named file: expected two graded rows"
expect "$tmp/o4.rows" '\(F2\)\|F2\|graded' "a named file: no F2 row"
# Alone, one report: F3, which names F2 and how to grade it.
"$attnlab" grade "$tmp/c1/alice/attention.py" --cases 5 > "$tmp/alone.txt" 2>&1
expect "$tmp/alone.txt" 'recognised: +F3 .*it also defines F2 \(graded one at a time with --exercise F2' "graded alone: F2 not named"

# 2. Attempts at F3: v1 and v3 skeletons, v2 the solution; v3 modified last.
mkdir -p "$tmp/c2/bob"
cp "$src/exercises/F3/skeleton.py" "$tmp/c2/bob/attention_v1.py"
cp "$src/solutions/F3/attention.py" "$tmp/c2/bob/attention_v2.py"
cp "$src/exercises/F3/skeleton.py" "$tmp/c2/bob/attention_v3.py"
touch -d '2024-01-01 10:00' "$tmp/c2/bob/attention_v1.py"
touch -d '2024-01-02 10:00' "$tmp/c2/bob/attention_v2.py"
touch -d '2024-01-03 10:00' "$tmp/c2/bob/attention_v3.py"
grade "$tmp/o5" "$tmp/c2"
[ "$(grep -c '^bob/' "$tmp/o5.rows")" = 1 ] || fail "latest: expected one row"
expect "$tmp/o5.rows" '^bob/attention_v3\.py\|F3\|' "latest: v3 not graded"
expect "$tmp/o5.rows" 'choice: .*graded attention_v3\.py: latest of 3 attempts at F3 by modification time \(not graded: attention_v1\.py, attention_v2\.py\)' "latest: the choice does not say why"
expect "$tmp/o5/students/bob%2Fattention_v3.py.txt" 'note: +graded attention_v3\.py: latest of 3 attempts' "latest: the text report does not say why"
# The modification time decides, not the name: v1 made newest.
touch -d '2024-01-04 10:00' "$tmp/c2/bob/attention_v1.py"
grade "$tmp/o6" "$tmp/c2"
expect "$tmp/o6.rows" '^bob/attention_v1\.py\|F3\|' "latest: v1 (newest) not graded"
# Equal modification times: the last by name is graded, and the note says so.
touch -d '2024-01-05 10:00' "$tmp/c2/bob/attention_v1.py" "$tmp/c2/bob/attention_v2.py" "$tmp/c2/bob/attention_v3.py"
grade "$tmp/o6t" "$tmp/c2"
expect "$tmp/o6t.rows" '^bob/attention_v3\.py\|F3\|' "equal times: v3 (last by name) not graded"
expect "$tmp/o6t.rows" 'latest of 3 attempts at F3 by modification time \(equal times: the last by name\)' "equal times: the note does not say the name decided"
touch -d '2024-01-04 10:00' "$tmp/c2/bob/attention_v1.py"
touch -d '2024-01-02 10:00' "$tmp/c2/bob/attention_v2.py"
touch -d '2024-01-03 10:00' "$tmp/c2/bob/attention_v3.py"
# The configuration's entry.
printf '{"entry": "attention_v2.py"}\n' > "$tmp/named.json"
grade "$tmp/o7" "$tmp/c2" --config "$tmp/named.json"
expect "$tmp/o7.rows" '^bob/attention_v2\.py\|F3\|graded\|([0-9.]+)\|\1\|' "named: v2 not graded (full marks)"
expect "$tmp/o7.rows" 'choice: .*graded attention_v2\.py: the file the teacher configuration names as entry' "named: the choice does not say why"
expect "$tmp/o7/students/bob%2Fattention_v2.py.txt" 'note: +graded attention_v2\.py: the file the teacher configuration names as entry' "named: the text report does not say why"
# Every attempt with "best"; the student's row counts the best (v2).
printf '{"attempts": "best"}\n' > "$tmp/best.json"
grade "$tmp/o8" "$tmp/c2" --config "$tmp/best.json"
[ "$(grep -c '^bob/' "$tmp/o8.rows")" = 3 ] || fail "best: expected three rows"
$py - "$tmp/o8" <<'PY' || fail "best: the student's row does not count the best attempt"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/summary.csv", newline="")))
bob = [r for r in rows if r["student"] == "bob"][0]
assert float(bob["score"]) == float(bob["max_score"]) > 0, bob
PY
# A bad value is refused, naming the member.
printf '{"attempts": "all"}\n' > "$tmp/bad.json"
"$attnlab" grade "$tmp/c2" --out "$tmp/o9" --config "$tmp/bad.json" > "$tmp/bad.txt" 2>&1
[ $? = 2 ] || fail "attempts \"all\": expected exit status 2"
expect "$tmp/bad.txt" 'attempts is "all"; it must be "latest"' "attempts \"all\": the message"

# 3. Notebooks: a plotting cell importing a display module this machine lacks.
missing=""
for m in matplotlib seaborn plotly tqdm bokeh altair; do
  $py -c "import $m" 2>/dev/null || { missing=$m; break; }
done
[ -n "$missing" ] || fail "every listed display module is installed here: cannot test skipping"
# A later cell that uses the name the skipped import would have bound
# (plt.imshow after `import matplotlib.pyplot as plt`) is skipped too, and
# named; a later cell failing for another reason is still an error.
mkdir -p "$tmp/c3/carol" "$tmp/c3/dave" "$tmp/c3/hana" "$tmp/c3/juno"
$py - "$src/solutions/F1/softmax_rows.py" "$tmp/c3" "$missing" <<'PY'
import json, sys
code = open(sys.argv[1]).read()
def notebook(path, *later):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": source} for source in (code.splitlines(keepends=True),) + later]
    json.dump({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}, open(path, "w"))
d, m = sys.argv[2], sys.argv[3]
notebook(d + "/carol/softmax.ipynb", "import numpy as np\nimport %s as shown\nx = '''\n  text\n'''\nshown.show(np.ones(2))\n" % m)
notebook(d + "/dave/softmax.ipynb", "import not_a_display_module_attnlab\n")
notebook(d + "/hana/softmax.ipynb", "import numpy as np\nimport %s as shown\n" % m,
         "A = softmax_rows(np.ones((2, 2)))\nshown.imshow(A)\n")
notebook(d + "/juno/softmax.ipynb", "import numpy as np\nimport %s as shown\n" % m,
         "not_defined_attnlab(1)\nshown.imshow(np.ones(2))\n")
PY
grade "$tmp/o10" "$tmp/c3"
expect "$tmp/o10.rows" '^carol/softmax\.ipynb\|F1\|graded\|([0-9.]+)\|\1\|' "a plotting cell made the notebook fail"
expect "$tmp/o10/students/carol%2Fsoftmax.ipynb.txt" "cell 2 \\($missing\\) imports a display or plotting module" "no note of the skipped cell"
expect "$tmp/o10.rows" '^dave/softmax\.ipynb\|F1\|not gradable\|' "a cell importing another missing module is not fatal"
expect "$tmp/o10.rows" '^hana/softmax\.ipynb\|F1\|graded\|([0-9.]+)\|\1\|' "a cell using plt after a skipped plt import made the notebook fail"
expect "$tmp/o10/students/hana%2Fsoftmax.ipynb.txt" "cell 3 \\(shown\\) uses a name" "no note of the cell using the skipped import's name"
expect "$tmp/o10.rows" '^juno/softmax\.ipynb\|F1\|not gradable\|' "a cell failing for another reason was skipped"

# 4. Under --exercise F2: another exercise's work is no submission of F2; a
# file that defines no exercise's function is the fallback, and says so.
mkdir -p "$tmp/c4/erin" "$tmp/c4/finn"
cp "$src/solutions/F3/attention.py" "$tmp/c4/erin/attention.py"
printf 'import numpy as np\n\ndef my_softmax(S, mask=None):\n    return S\n' > "$tmp/c4/finn/work.py"
grade "$tmp/o11" "$tmp/c4" --exercise F2
expect "$tmp/o11.rows" '^erin/\|F2\|no submission\|0\|15\|it holds no work of F2 \(attention\.py: F3\)' "F3 work under --exercise F2"
expect "$tmp/o11.rows" '^choice: entry work\.py \(the only code file; graded as F2, the exercise fixed for this run\)' "the fallback's label"
reject "$tmp/o11.rows" '\(defines F2\)' "a file is said to define F2"
# 5. C++: a student's file of F2 and F3 (f3::attention calling the file's
# own f2::masked_softmax, both interface headers included: data/cpp/
# f2_and_f3.cpp) with F2's answers beside it: two rows, full marks each,
# the answers with F2; under --exercise F2 the F2 row alone with its
# answers, under --exercise F3 the F3 row alone.
mkdir -p "$tmp/c5/gina"
cp "$src/grader/tests/data/cpp/f2_and_f3.cpp" "$tmp/c5/gina/attention.cpp"
cp "$src/solutions/F2/answers.json" "$tmp/c5/gina/answers.json"
both_exercises "$tmp/o12" "$tmp/c5" gina attention.cpp
# Alone: F3, naming F2 and how to grade it; as F2 with its answers: full marks.
"$attnlab" grade "$tmp/c5/gina/attention.cpp" --cases 5 > "$tmp/cpp-alone.txt" 2>&1
expect "$tmp/cpp-alone.txt" 'recognised: +F3 .*it defines f3::attention, which uses f2::masked_softmax; it also defines F2' "C++ graded alone: F2 not named"
"$attnlab" grade "$tmp/c5/gina/attention.cpp" --exercise F2 --answers "$tmp/c5/gina/answers.json" \
  --cases 5 > "$tmp/cpp-f2.txt" 2>&1 || { cat "$tmp/cpp-f2.txt"; fail "C++ graded alone as F2 with its answers did not pass"; }

echo "class_exercises_attempts_test: ok"
