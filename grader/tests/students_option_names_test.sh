#!/bin/sh
# students_option_names_test.sh ATTNLAB SOURCE_DIR
# A student is named to the grader as summary.csv's student column has it:
# --only-student NAME (repeatable) takes a name whole, commas and quotes included
# ('jo, "q" Zoë', which --students a,b cannot name), and the guarded form of
# a name starting with - (summary.csv writes '-jdoe, an apostrophe before it
# against spreadsheet formulas) names that student, under --only-student and
# --students alike. The others (bob) are not graded.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-student-option-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "students_option_names_test: $*" >&2; exit 1; }
jo='jo, "q" Zoë'
for who in "$jo" -jdoe bob; do
  mkdir -p "$tmp/class/$who"
  cp "$src/solutions/F1/softmax_rows.py" "$tmp/class/$who/softmax.py"
done
graded() {  # graded OUT: the students of OUT/summary.csv, one a line, as summary.csv has them
  /usr/bin/python3 -c 'import csv, sys; print("\n".join(sorted(r["student"] for r in csv.DictReader(open(sys.argv[1], newline="")))))' "$1/summary.csv"
}
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/o1" --only-student "$jo" --only-student "'-jdoe" > "$tmp/r1.txt" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$tmp/r1.txt"; fail "--only-student: exit $rc, expected 0"; }
[ "$(graded "$tmp/o1")" = "'-jdoe
$jo" ] || { graded "$tmp/o1"; fail "--only-student did not grade exactly jo and -jdoe"; }
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/o2" --students "'-jdoe,bob" > "$tmp/r2.txt" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$tmp/r2.txt"; fail "--students with summary.csv's '-jdoe: exit $rc, expected 0"; }
[ "$(graded "$tmp/o2")" = "'-jdoe
bob" ] || { graded "$tmp/o2"; fail "--students did not grade exactly -jdoe and bob"; }
"$attnlab" grade "$tmp/class" --cases 5 --out "$tmp/o3" --only-student "" > "$tmp/r3.txt" 2>&1
rc=$?
[ $rc = 2 ] || { cat "$tmp/r3.txt"; fail "--only-student '': exit $rc, expected 2"; }
grep -q "an empty name names no student" "$tmp/r3.txt" || { cat "$tmp/r3.txt"; fail "--only-student '': the empty name not said"; }
# Two folders whose summary.csv names look alike: -jdoe (written '-jdoe) and
# '-jdoe itself. A name that is a student's own folder name names that folder
# alone: the model solution in '-jdoe is graded (12 of 12), the skeleton in
# -jdoe is not.
mkdir -p "$tmp/twins/-jdoe" "$tmp/twins/'-jdoe"
cp "$src/solutions/F1/softmax_rows.py" "$tmp/twins/'-jdoe/softmax.py"
cp "$src/exercises/F1/skeleton.py" "$tmp/twins/-jdoe/skeleton.py"
"$attnlab" grade "$tmp/twins" --cases 5 --out "$tmp/o4" --only-student "'-jdoe" > "$tmp/r4.txt" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$tmp/r4.txt"; fail "--only-student \"'-jdoe\" beside -jdoe: exit $rc, expected 0"; }
rows=$(/usr/bin/python3 -c 'import csv, sys; print(" ".join(r["files"] + ":" + r["score"] for r in csv.DictReader(open(sys.argv[1], newline=""))))' "$tmp/o4/summary.csv")
[ "$rows" = "'-jdoe/softmax.py:12" ] || { echo "$rows"; fail "--only-student \"'-jdoe\" did not grade the folder '-jdoe alone"; }
echo "students_option_names_test: passed"
