#!/bin/sh
# class_missing_part_zero_test.sh ATTNLAB SOURCE_DIR
# Half of an F2 handed in (code without its answers file, or answers
# without code) is out of F2's full maximum, the missing part 0 "missing
# the answers file: 0 of 3 points": summary.csv's columns of the missing
# items read 0 as the note says, not empty (an empty cell means "not
# graded"), and the columns of the graded part their points.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-missing-part-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_missing_part_zero_test: $*" >&2; exit 1; }
mkdir -p "$tmp/class/eli" "$tmp/class/ann"
cp "$src/solutions/F2/masked_softmax.py" "$tmp/class/eli/masked.py"
cp "$src/solutions/F2/answers.json" "$tmp/class/ann/answers.json"
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/out" > "$tmp/run.txt" 2>&1
rc=$?
[ $rc -le 1 ] || { cat "$tmp/run.txt"; fail "exit $rc"; }
/usr/bin/python3 - "$tmp/out/summary.csv" "$src" <<'PY' || { cat "$tmp/out/summary.csv"; fail "a missing part's columns are not 0"; }
import csv, json, os, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1], newline=""))}
points = json.load(open(os.path.join(sys.argv[2], "exercises", "F2", "points.json")))["points"]
col = lambda item: "F2:%s (%g)" % (item, points[item])
eli, ann = rows["eli"], rows["ann"]
assert "missing the answers file: 0 of %g points" % points["answers"] in eli["note"], eli["note"]
assert eli[col("answers")] == "0", (col("answers"), eli[col("answers")])
props = [p for p in points if p != "answers"]
assert all(eli[col(p)] == "%g" % points[p] for p in props), eli
assert "missing the code" in ann["note"], ann["note"]
assert all(ann[col(p)] == "0" for p in props), ann
assert ann[col("answers")] == "%g" % points["answers"], ann
PY
echo "class_missing_part_zero_test: passed"
