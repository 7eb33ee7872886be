#!/bin/sh
# class_ungradable_lms_test.sh ATTNLAB SOURCE_DIR
# One rule for a student's handed-in work that cannot be graded, in a class
# graded without --exercise (so the exercise of that work is not known):
# a notebook over the 16 MiB limit (bignb), a .cpp holding Python (cpppy),
# and, run as nobody, a student folder and a loose file of mode 000 (locked,
# direct.py). Each is "not gradable" in every exercise column of the class
# (never "no submission" and a 0), the reason in the note (cpppy's says it
# looks like Python: rename it), the run exits 1 (not 2: one student's file
# is not a usage error of the whole run), gradebook-canvas.csv and
# gradebook-moodle.csv leave them out (an empty cell would clear a grade,
# a 0 would record one), and summary.txt counts only the graded files as graded.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-ungradable-XXXXXX)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "class_ungradable_lms_test: $*" >&2; exit 1; }

check() {  # check OUT RUN_LOG STUDENTS_NOT_GRADABLE...
  out=$1; log=$2; shift 2
  /usr/bin/python3 - "$out" "$@" <<'PY' || { cat "$log"; fail "ungradable work is not 'not gradable' with no LMS cell"; }
import csv, json, os, sys
out, ungradable = sys.argv[1], sys.argv[2:]
with open(os.path.join(out, "summary.csv"), newline="") as f:
    rows = {r["student"]: r for r in csv.DictReader(f)}
assert rows["ok"]["status"] == "graded" and rows["ok"]["F3 status"] == "graded", rows["ok"]
for who in ungradable:
    r = rows[who]
    assert r["status"] == "not gradable", r
    assert r["F3 status"] == "not gradable", (who, r["F3 status"], r["note"])
    assert "not counted (not an exercise of the class)" not in r["note"], r["note"]
for name in ("gradebook-canvas.csv", "gradebook-moodle.csv"):
    with open(os.path.join(out, name), newline="") as f:
        ids = [row[0] for row in csv.reader(f)]
    assert "ok" in ids, (name, ids)
    assert not set(ungradable) & set(ids), (name, ids)
summary = open(os.path.join(out, "summary.txt")).read()
assert "1 file graded" in summary, summary.splitlines()[0]
if "cpppy" in rows:
    assert "looks like Python" in rows["cpppy"]["note"], rows["cpppy"]["note"]
PY
}

class="$tmp/class"
mkdir -p "$class/ok" "$class/bignb" "$class/cpppy"
cp "$src/solutions/F3/attention.py" "$class/ok/attention.py"
printf 'import numpy as np\n\ndef scaled_dot_product_attention(Q, K, V, mask=None):\n    return np.zeros((Q.shape[0], V.shape[1]))\n' \
  > "$class/cpppy/attention.cpp"
/usr/bin/python3 - "$class/bignb/hw.ipynb" <<'PY'
import json, sys
cell = {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["x = 1\n"],
        "outputs": [{"output_type": "stream", "name": "stdout", "text": ["y" * (17 << 20)]}]}
json.dump({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, open(sys.argv[1], "w"))
PY
"$attnlab" grade "$class" --cases 5 --jobs 2 --out "$tmp/out" > "$tmp/run.txt" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$tmp/run.txt"; fail "exit $rc, expected 1 (students not gradable)"; }
check "$tmp/out" "$tmp/run.txt" bignb cpppy

# Unreadable work (mode 000): as root nothing is denied, so the grader runs as nobody.
if [ "$(id -u)" != 0 ]; then
  as_user() { "$@"; }
elif command -v setpriv > /dev/null 2>&1 && id nobody > /dev/null 2>&1; then
  as_user() { setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups env HOME="$tmp" "$@"; }
else
  echo "class_ungradable_lms_test: the unreadable part skipped: root without setpriv or nobody"
  exit 0
fi
perm="$tmp/perm"
mkdir -p "$perm/class/ok" "$perm/class/locked" "$perm/out"
cp "$src/solutions/F3/attention.py" "$perm/class/ok/attention.py"
cp "$src/solutions/F3/attention.py" "$perm/class/locked/attention.py"
cp "$src/solutions/F3/attention.py" "$perm/class/direct.py"
chmod -R a+rX "$tmp"
[ "$(id -u)" = 0 ] && chown nobody "$perm/out"
chmod 000 "$perm/class/locked" "$perm/class/direct.py"
as_user "$attnlab" grade "$perm/class" --cases 5 --no-sandbox --jobs 2 --out "$perm/out" > "$tmp/run2.txt" 2>&1
rc=$?
chmod 755 "$perm/class/locked"; chmod 644 "$perm/class/direct.py"
[ $rc = 1 ] || { cat "$tmp/run2.txt"; fail "unreadable work: exit $rc, expected 1"; }
check "$perm/out" "$tmp/run2.txt" locked direct.py
echo "class_ungradable_lms_test: passed"
