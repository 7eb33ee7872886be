#!/bin/sh
# gradebook_lms_ids_test.sh ATTNLAB SOURCE_DIR
# The LMS exports' id columns round-trip exactly (gradebook.hpp csv_id_cell):
# students "-jdoe" (an F3 solution), "+x", "@x" and "=SUM(1)" (empty
# folders) are their own ids in Canvas's "SIS Login ID" and Moodle's
# "Username", with no leading "'", while free text keeps the formula guard
# (Canvas's "Student" display name, summary.csv's student: "'=SUM(1)").
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-lms-ids-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "gradebook_lms_ids_test: $*" >&2; exit 1; }

class="$tmp/class"
mkdir -p "$class/-jdoe" "$class/+x" "$class/@x" "$class/=SUM(1)"
cp "$src/solutions/F3/attention.py" "$class/-jdoe/attention.py"
"$attnlab" grade "$class" --exercise F3 --cases 5 --jobs 2 --out "$tmp/out" > "$tmp/run.txt" 2>&1
[ -f "$tmp/out/gradebook-moodle.csv" ] || { cat "$tmp/run.txt"; fail "no gradebook-moodle.csv"; }

/usr/bin/python3 - "$tmp/out" <<'PY' || { cat "$tmp/run.txt"; fail "an id does not round-trip"; }
import csv, os, sys
out = sys.argv[1]
ids = sorted(["-jdoe", "+x", "@x", "=SUM(1)"])
read = lambda name: list(csv.reader(open(os.path.join(out, name), newline="")))
canvas = read("gradebook-canvas.csv")
assert canvas[0][3] == "SIS Login ID", canvas[0]
assert sorted(r[3] for r in canvas[2:]) == ids, [r[3] for r in canvas[2:]]
by = {r[3]: r for r in canvas[2:]}
assert by["=SUM(1)"][0] == "'=SUM(1)", by["=SUM(1)"]  # the display name keeps the guard
assert by["-jdoe"][5] not in ("", "0"), by["-jdoe"]   # graded, under its own id
moodle = read("gradebook-moodle.csv")
assert moodle[0][0] == "Username", moodle[0]
assert sorted(r[0] for r in moodle[1:]) == ids, [r[0] for r in moodle[1:]]
assert {r[0]: r[1] for r in moodle[1:]}["-jdoe"] == by["-jdoe"][5], moodle
summary = read("summary.csv")
assert "'=SUM(1)" in [r[0] for r in summary[1:]], [r[0] for r in summary[1:]]
PY
echo "gradebook_lms_ids_test: ok"
