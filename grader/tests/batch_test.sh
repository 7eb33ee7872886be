#!/bin/sh
# batch_test.sh ATTNLAB SOURCE_DIR DATA_DIR
# Grades a folder of 8 submissions (model solutions in Python and C++, a copy
# in a subfolder, the F4 variant, two mutants of the catalogue, a C++ file that
# does not compile, a Python file that does not load; plus a notes file that
# is not a submission) with --jobs 2, and checks summary.csv, summary.json,
# the per-submission reports and the combined JUnit file.
set -u
attnlab=$1
src=$2
data=$3
tmp=$(mktemp -d /tmp/attnlab-batch-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "batch_test: $*" >&2; exit 1; }

subs="$tmp/class"
mkdir -p "$subs/group"
cp "$src/solutions/F3/attention.py" "$subs/attention.py"
cp "$src/solutions/F3/attention.cpp" "$subs/attention.cpp"
cp "$src/solutions/F3/attention.py" "$subs/group/attention.py"
cp "$src/exercises/F4/post_softmax_mask.py" "$subs/post_softmax_mask.py"
cp "$src/exercises/mutants/f3_no_scale.py" "$subs/no_scale.py"
cp "$src/exercises/mutants/f3_inverted_mask.py" "$subs/inverted_mask.py"
cp "$data/compile_error.cpp" "$data/load_error.py" "$subs/"
echo "not a submission" > "$subs/notes.txt"

out="$tmp/reports"
"$attnlab" grade "$subs" --exercise F3 --cases 10 --jobs 2 --out "$out" \
  --junit "$tmp/all.junit.xml" > "$tmp/stdout.txt" 2>&1
code=$?
cat "$tmp/stdout.txt"
[ "$code" = 1 ] || fail "expected exit status 1 (some submissions fail), got $code"
grep -q "ignored .*notes.txt" "$tmp/stdout.txt" || fail "notes.txt was not reported as ignored"

/usr/bin/python3 - "$out" "$tmp/all.junit.xml" <<'PY' || fail "the reports are not as expected"
import csv, json, os, sys
import xml.dom.minidom

out, junit = sys.argv[1], sys.argv[2]
expect = {
    "attention.py": "full", "attention.cpp": "full", "group/attention.py": "full",
    "post_softmax_mask.py": "partial", "no_scale.py": "partial", "inverted_mask.py": "partial",
    "compile_error.cpp": "not gradable", "load_error.py": "not gradable",
}
summary = json.load(open(os.path.join(out, "summary.json")))
rows = {r["file"]: r for r in summary["submissions"]}
assert set(rows) == set(expect), sorted(rows)
for name, kind in expect.items():
    r = rows[name]
    assert r["exercise"] == "F3", r
    if kind == "not gradable":
        assert r["status"] == "not gradable", r
        assert r["score"] == 0 and r["max_score"] > 0, r
    else:
        assert r["status"] == "graded", r
        assert r["max_score"] > 0, r
        assert sum(r["points"].values()) == r["score"], r
        if kind == "full":
            assert r["score"] == r["max_score"], r
            assert r["points"] == r["max_points"], r
        else:
            assert r["score"] < r["max_score"], r
    # students/<stem>: '%', '/' and a leading '.' escaped (student_names.hpp report_stem).
    stem = os.path.join("students", name.replace("%", "%25").replace("/", "%2F"))
    assert r["report"] == stem + ".txt", r["report"]
    for ext in (".txt", ".results.json", ".junit.xml"):
        assert os.path.isfile(os.path.join(out, stem + ext)), stem + ext
    res = json.load(open(os.path.join(out, stem + ".results.json")))
    assert res["score"] == r["score"] and res["max_score"] == r["max_score"], (res, r)
    xml.dom.minidom.parse(os.path.join(out, stem + ".junit.xml"))
assert rows["post_softmax_mask.py"]["points"]["row_stochastic"] == 0
assert summary["counts"] == {"graded": 6, "not gradable": 2, "error": 0, "no submission": 0}, summary["counts"]

with open(os.path.join(out, "summary.csv"), newline="") as f:
    table = list(csv.DictReader(f))
assert len(table) == 8, len(table)  # one row per student: 7 loose files and the folder group/
header = list(table[0].keys())
assert header[:6] == ["student", "score", "max_score", "status", "exercises", "files"], header
assert "F3:row_stochastic (2)" in header and header[-1] == "note", header
by_file = {t["files"]: t for t in table}
assert by_file["post_softmax_mask.py"]["F3:row_stochastic (2)"] == "0"
assert by_file["compile_error.cpp"]["status"] == "not gradable"
assert float(by_file["attention.cpp"]["score"]) == rows["attention.cpp"]["max_score"]
assert by_file["group/attention.py"]["student"] == "group"

doc = xml.dom.minidom.parse(junit)
suites = doc.getElementsByTagName("testsuite")
assert len(suites) == 8, len(suites)
failures = sum(int(s.getAttribute("failures")) for s in suites)
assert failures >= 3, failures
print("batch_test: reports ok")
PY
echo "batch_test: ok"
