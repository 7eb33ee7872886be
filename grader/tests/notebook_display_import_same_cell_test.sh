#!/bin/sh
# notebook_display_import_same_cell_test.sh ATTNLAB SOURCE_DIR
# A notebook whose solution shares its cell with `import <display module> as
# shown` (matplotlib, say, not installed here) keeps the solution: only the
# import statement is skipped, the rest of the cell runs (the function is
# defined; the statement using `shown` after it is skipped), and the
# report's note says that only the import was skipped. Before, the rest of
# the cell after the failing import was skipped, the solution with it.
set -u
attnlab=$1
src=$2
py=/usr/bin/python3
tmp=$(mktemp -d /tmp/attnlab-nb-same-cell-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "notebook_display_import_same_cell_test: $*" >&2; exit 1; }
missing=""
for m in matplotlib seaborn plotly tqdm bokeh altair; do
  $py -c "import $m" 2>/dev/null || { missing=$m; break; }
done
[ -n "$missing" ] || { echo "notebook_display_import_same_cell_test: every display module is installed here: skipped"; exit 0; }
mkdir -p "$tmp/class/sam"
$py - "$src/solutions/F1/softmax_rows.py" "$tmp/class/sam/hw.ipynb" "$missing" <<'PY'
import json, sys
code, out, m = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
source = "import %s as shown\nimport numpy as np\n%s\nshown.show(softmax_rows(np.ones((2, 2))))\n" % (m, code)
cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
        "source": source.splitlines(keepends=True)}
json.dump({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}, open(out, "w"))
PY
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/out" > "$tmp/run.txt" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$tmp/run.txt"; cat "$tmp/out/students/"*.txt; fail "exit $rc, expected 0 (the solution graded)"; }
$py - "$tmp/out" "$src" "$missing" <<'PY' || { cat "$tmp/out/students/"*.txt; fail "the solution in the import's cell was not graded in full"; }
import csv, json, os, sys
out, src, m = sys.argv[1], sys.argv[2], sys.argv[3]
full = sum(json.load(open(os.path.join(src, "exercises", "F1", "points.json")))["points"].values())
rows = {r["student"]: r for r in csv.DictReader(open(os.path.join(out, "summary.csv"), newline=""))}
assert rows["sam"]["status"] == "graded" and float(rows["sam"]["score"]) == full, rows["sam"]
report = open(os.path.join(out, "students", "sam%2Fhw.ipynb.txt")).read()
said = "cell 1 (%s) imports a display or plotting module: where it is not installed, only that import statement is skipped" % m
assert said in report, report[:2000]
PY
echo "notebook_display_import_same_cell_test: passed"
