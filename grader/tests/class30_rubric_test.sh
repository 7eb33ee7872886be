#!/bin/sh
# class30_rubric_test.sh ATTNLAB SOURCE_DIR
# Grades the class of grader/tests/data/class30/class (34 students: C++, NumPy,
# notebooks, macOS zips, helper modules, two attempts, an empty folder; F2, F3
# or both) as a teacher would (`attnlab grade CLASS --out DIR`, fixed seed, two
# jobs) and holds every student's points per exercise in summary.json to the
# teacher's rubric written before any grading (data/class30/rubric.tsv, reasons
# in RUBRIC.md): a correct student must get full marks, a single-fault student
# must land within the rubric's tolerance (the points of the exercise's largest
# property), the empty folder must be a `no submission` row with 0 points, and
# no student may get a row for an exercise the rubric does not list. Prints the
# whole table, and fails on any deviation.
set -u
attnlab=$1
src=$2
data="$src/grader/tests/data/class30"
tmp=$(mktemp -d /tmp/attnlab-class30-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class30_rubric_test: $*" >&2; exit 1; }

# Grade a copy: the reports never go into the source tree, and the empty
# folder is really empty (git keeps it with a hidden .gitkeep, which the class
# folder rules skip anyway).
cp -R "$data/class" "$tmp/class" || fail "cannot copy $data/class"
rm -f "$tmp/class/fynn/.gitkeep"
[ -d "$tmp/class/fynn" ] || fail "the empty folder fynn is missing"

# CLASS30_OUT=DIR keeps the reports there (an empty or absent folder) to read them.
out="${CLASS30_OUT:-$tmp/out}"
# Generous limits: the machine may be busy (a C++ compile took over 120 s under load).
"$attnlab" grade "$tmp/class" --out "$out" --seed 20261129 --jobs 2 \
  --compile-timeout 900 --timeout 120 > "$tmp/grade.txt" 2>&1
code=$?
# 1: some students fail properties (the rubric says so); 0 would mean no fault
# was found at all. 2 (a student attnlab could not grade, or a usage error) is
# judged by the table below when there is a gradebook: such a row deviates.
[ "$code" = 1 ] || [ "$code" = 2 ] || { cat "$tmp/grade.txt"; fail "expected exit status 1, got $code"; }
[ -f "$out/summary.json" ] || { cat "$tmp/grade.txt"; fail "no summary.json in $out"; }

/usr/bin/python3 - "$data/rubric.tsv" "$out/summary.json" "$data/known_disagreements.tsv" <<'PY' || { echo "--- attnlab's output:"; tail -n 60 "$tmp/grade.txt"; fail "the grader disagrees with the rubric (table above; known disagreements: $data/RUBRIC.md)"; }
import csv, json, sys

rubric_path, summary_path, known_path = sys.argv[1], sys.argv[2], sys.argv[3]
# Disagreements already found and recorded (RUBRIC.md, "Known disagreements"):
# student, exercise, the grader's points then, and a person's decision. A row
# a person decided for the grader ("grader": the rubric was wrong) is DECIDED
# while the grader gives those points, which counts as agreeing; an undecided
# row is KNOWN, not a pass. A listed row that now agrees with the rubric, or
# moved to other points, fails the test until this list is brought up to date.
with open(known_path, newline="") as f:
    known_rows = list(csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t"))
known = {(r["student"], r["exercise"]): float(r["grader_points"]) for r in known_rows}
decided = {(r["student"], r["exercise"]) for r in known_rows if (r.get("decision") or "") == "grader"}
with open(rubric_path, newline="") as f:
    rubric = list(csv.DictReader(f, delimiter="\t"))
summary = json.load(open(summary_path))
for key in ("students", "submissions"):
    if key not in summary:
        sys.exit("summary.json has no '%s' list" % key)
students = {s["student"]: s for s in summary["students"]}

# Per student and exercise, the file that counts (the best one, as the gradebook
# counts it) and which of its properties lost points.
best = {}
for sub in summary["submissions"]:
    key = (sub["student"], sub["exercise"])
    if key not in best or sub["score"] > best[key]["score"]:
        best[key] = sub

def lost(sub):
    pts, mx = sub.get("points", {}), sub.get("max_points", {})
    return ", ".join("%s %g" % (k, mx[k]) for k in sub.get("items", mx) if pts.get(k, 0) < mx[k])

rows, bad = [], 0
for r in rubric:
    who, ex, fault = r["student"], r["exercise"], r["fault"]
    want, tol = float(r["expected_points"]), float(r["tolerance"])
    if ex == "-":  # nothing handed in: a no-submission row with 0 points
        s = students.get(who)
        got = None if s is None else float(s["score"])
        ok = s is not None and s["status"] == "no submission" and got == 0
        rows.append((who, ex, fault, want, got, "-", "ok" if ok else "DEVIATES",
                     "no row" if s is None else "status: " + s["status"]))
        bad += not ok
        continue
    sub = best.get((who, ex))
    if sub is None:
        rows.append((who, ex, fault, want, None, r["max_points"], "DEVIATES", "no graded file of " + ex))
        bad += 1
        continue
    got, mx = float(sub["score"]), float(sub["max_score"])
    if fault.startswith("none"):
        ok = got == mx == want
    else:
        ok = abs(got - want) <= tol and float(r["max_points"]) == mx
    note = sub["status"] + ("" if sub["status"] == "graded" else ": " + sub.get("note", "")[:90])
    failed = lost(sub)
    detail = note if sub["status"] != "graded" else ("lost: " + failed if failed else "")
    rows.append((who, ex, fault, want, got, "%g" % mx, "ok" if ok else "DEVIATES", detail))
    bad += not ok

# No exercise the rubric does not list (a file recognised as the wrong exercise).
# (A no-submission row has no exercise: the rubric's "-".)
listed = {(r["student"], "" if r["exercise"] == "-" else r["exercise"]) for r in rubric}
for (who, ex), sub in sorted(best.items()):
    if (who, ex) not in listed:
        rows.append((who, ex, "(not in the rubric)", None, float(sub["score"]), "%g" % float(sub["max_score"]),
                     "DEVIATES", "graded file " + sub["file"]))
        bad += 1
missing = sorted(set(students) - {r["student"] for r in rubric})
for who in missing:
    rows.append((who, "?", "(not in the rubric)", None, None, "-", "DEVIATES", "a student the rubric does not know"))
    bad += 1

# Known disagreements: DECIDED (decided for the grader) or KNOWN (undecided)
# when the grader still gives those points.
for k, row in enumerate(rows):
    who, ex, fault, want, got, mx, verdict, detail = row
    if (who, ex) not in known:
        continue
    if verdict == "DEVIATES" and got == known[(who, ex)]:
        rows[k] = (who, ex, fault, want, got, mx, "DECIDED" if (who, ex) in decided else "KNOWN", detail)
        bad -= 1
    else:
        rows[k] = (who, ex, fault, want, got, mx, "CHANGED", detail +
                   " (known_disagreements.tsv says %g: update it)" % known[(who, ex)])
        bad += verdict != "DEVIATES"
fmt = "%-8s %-3s %6s %7s %4s  %-8s  %-44s  %s"
print(fmt % ("student", "ex", "rubric", "grader", "max", "verdict", "fault", "properties that lost points"))
show = lambda v: "-" if v is None else "%g" % v
for who, ex, fault, want, got, mx, verdict, detail in rows:
    print(fmt % (who, ex, show(want), show(got), mx, verdict, fault[:44], detail))
print("class30_rubric_test: %d rubric rows, %d agree, %d decided for the grader, %d known (undecided), %d deviate"
      % (len(rubric), sum(r[6] == "ok" for r in rows), sum(r[6] == "DECIDED" for r in rows),
         sum(r[6] == "KNOWN" for r in rows), bad))
sys.exit(1 if bad else 0)
PY
echo "class30_rubric_test: ok"
