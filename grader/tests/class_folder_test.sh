#!/bin/sh
# class_folder_test.sh ATTNLAB SOURCE_DIR
# A teacher's run on a whole class: a folder of at least 20 submissions (every
# model solution and answers file, every skeleton, the F4 variants), graded
# without --exercise (each file is recognised), two at a time, every attempt
# graded ("attempts": "best"). Checks that
# summary.csv and summary.json have a row per submission, that solutions get
# full marks and skeletons do not, and that every results.json carries every
# documented field (Gradescope: score, max_score, output, tests[] with name,
# score, max_score, status, output, visibility).
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-class-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_folder_test: $*" >&2; exit 1; }

class="$tmp/class"
for ex in F1 F2 F3 F4; do
  mkdir -p "$class/solutions_$ex" "$class/skeletons_$ex"
  cp "$src"/solutions/$ex/*.py "$src"/solutions/$ex/*.cpp "$class/solutions_$ex/"
  [ -f "$src/solutions/$ex/answers.json" ] && cp "$src/solutions/$ex/answers.json" "$class/solutions_$ex/"
  cp "$src"/exercises/$ex/skeleton.py "$src"/exercises/$ex/skeleton.cpp "$class/skeletons_$ex/"
done
mkdir -p "$class/variants"
cp "$src"/exercises/F4/post_softmax_mask.py "$src"/exercises/F4/post_softmax_mask.cpp "$class/variants/"
count=$(find "$class" -type f | wc -l)
[ "$count" -ge 20 ] || fail "only $count submissions in the class folder"
# Each folder is a student: its code files are graded, its answers file is
# paired with the first code file of its exercise (not a row of its own).
count=$(find "$class" -type f \( -name '*.py' -o -name '*.cpp' \) | wc -l)

out="$tmp/reports"
# Every attempt graded (a folder's .py and .cpp of one exercise are two attempts).
printf '{"attempts": "best"}\n' > "$tmp/best.json"
"$attnlab" grade "$class" --cases 20 --jobs 2 --out "$out" --config "$tmp/best.json" > "$tmp/stdout.txt" 2>&1
code=$?
[ "$code" = 1 ] || { cat "$tmp/stdout.txt"; fail "expected exit status 1 (skeletons fail), got $code"; }

students=$(find "$class" -mindepth 1 -maxdepth 1 -type d | wc -l)
/usr/bin/python3 - "$out" "$count" "$students" <<'PY' || { cat "$tmp/stdout.txt"; fail "the reports are not as expected"; }
import csv, json, os, sys
out, count, students = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
summary = json.load(open(os.path.join(out, "summary.json")))
rows = summary["submissions"]
assert len(rows) == count, (len(rows), count)
with open(os.path.join(out, "summary.csv"), newline="") as f:
    table = list(csv.DictReader(f))
assert len(table) == students, len(table)  # one row per student folder
for r in rows:
    name = r["file"]
    assert r["status"] == "graded", r
    assert r["exercise"] in ("F1", "F2", "F3", "F4"), r
    if name.startswith("solutions_"):
        # the folder's one answers file pairs with one entry; the other
        # entry of F2/F4 is out of the whole maximum, its answers item 0
        missing = r["note"].startswith("missing the answers file: 0 of 3 points")
        assert r["score"] == r["max_score"] - (3 if missing else 0) > 0, r
    else:  # skeletons and the F4 variants
        assert r["score"] < r["max_score"], r
    res = json.load(open(os.path.join(out, "students", name.replace("%", "%25").replace("/", "%2F") + ".results.json")))
    for key in ("score", "max_score", "output", "tests"):
        assert key in res, (name, key)
    assert res["tests"], name
    for t in res["tests"]:
        for key in ("name", "score", "max_score", "status", "output", "visibility"):
            assert key in t, (name, key, t)
        assert t["status"] in ("passed", "failed"), t
        assert t["visibility"] in ("visible", "hidden", "after_due_date", "after_published"), t
print("class_folder_test: %d submissions, reports ok" % count)
PY
echo "class_folder_test: ok"
