#!/bin/sh
# gradebook_lms_test.sh ATTNLAB SOURCE_DIR
# The gradebook a teacher signs (grading/gradebook.hpp), on a class of five:
# ann (F2 code and answers), bob (F3 only), cid (an empty folder), dora (F3
# with a syntax error), eli (F2 code without its answers).
# - fixed columns: every row is out of F2's + F3's maximum (summed here from
#   exercises/*/points.json), each exercise a total and a status; bob has
#   "no submission" for F2 (0 of 15), not 12 / 12; cid 0 of the sum, not 0/0;
#   dora "not gradable" only for F3; the version, seed and settings hash in
#   each row;
# - gradebook-canvas.csv: Canvas's import columns (Student, ID, SIS User ID,
#   SIS Login ID, Section, one assignment per exercise), a "Points Possible"
#   row with the maxima, one row per student whose every exercise has a
#   grade (dora's is left out: Canvas's import would clear her grade for an
#   empty cell), numbers only;
# - gradebook-moodle.csv: "Username" then the assignments, the same students
#   (Moodle's import clears a grade for an empty cell too), summary.txt
#   naming dora;
# - summary-anonymous.csv (salt from the configuration): no student's name,
#   ids equal to HMAC-SHA256(salt, student) computed here with Python's hmac,
#   and `attnlab reveal` gives each back (a wrong salt: exit 1);
# - with --exercise F2, bob (only F3 work) is "no submission", not "not gradable".
# - with a configuration naming F2 and F3, a run that holds F3 work only (a
#   shard, a regrade: bob and cid here) says cid's 0 is of F2 and F3, as its
#   maximum counts, not "out of F3's maximum: the only exercise graded here".
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-gradebook-lms-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "gradebook_lms_test: $*" >&2; exit 1; }

class="$tmp/class"
mkdir -p "$class/ann" "$class/bob" "$class/cid" "$class/dora" "$class/eli"
cp "$src/solutions/F2/masked_softmax.py" "$class/ann/masked.py"
cp "$src/solutions/F2/answers.json" "$class/ann/answers.json"
cp "$src/solutions/F3/attention.py" "$class/bob/attention.py"
printf 'import numpy as np\ndef scaled_dot_product_attention(Q, K, V, mask=None)\n    return Q\n' > "$class/dora/attention.py"
cp "$src/solutions/F2/masked_softmax.py" "$class/eli/masked.py"
salt="a teacher's secret salt"
printf '{"cases": 5, "anonymise_salt": "%s"}\n' "$salt" > "$tmp/config.json"

out="$tmp/out"
"$attnlab" grade "$class" --config "$tmp/config.json" --jobs 2 --out "$out" > "$tmp/run.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/run.txt"; fail "expected exit status 1 (dora is not gradable)"; }

/usr/bin/python3 - "$out" "$src" "$salt" <<'PY' || { cat "$tmp/run.txt"; fail "the gradebook is not as expected"; }
import csv, hashlib, hmac, json, os, re, sys
out, src, salt = sys.argv[1], sys.argv[2], sys.argv[3]
def maximum(ex):
    return sum(json.load(open(os.path.join(src, "exercises", ex, "points.json")))["points"].values())
f2, f3 = maximum("F2"), maximum("F3")
s = json.load(open(os.path.join(out, "summary.json")))
rows = {r["student"]: r for r in s["students"]}
assert sorted(rows) == ["ann", "bob", "cid", "dora", "eli"], sorted(rows)
for r in rows.values():
    assert r["max_score"] == f2 + f3, r
    assert r["attnlab_version"] and r["settings_hash"] and r["seed"] == s["seed"], r
    assert set(r["exercise_scores"]) == {"F2", "F3"}, r
cell = lambda who, ex: rows[who]["exercise_scores"][ex]
assert rows["ann"]["score"] == f2 and cell("ann", "F2")["status"] == "graded", rows["ann"]
assert cell("ann", "F3")["status"] == "no submission" and cell("ann", "F3")["score"] == 0, rows["ann"]
assert rows["bob"]["score"] == f3 and rows["bob"]["status"] == "graded", rows["bob"]
assert cell("bob", "F2") == {"status": "no submission", "score": 0, "file": ""}, rows["bob"]
assert rows["cid"]["status"] == "no submission" and rows["cid"]["score"] == 0, rows["cid"]
assert rows["dora"]["status"] == "not gradable" and cell("dora", "F3")["status"] == "not gradable", rows["dora"]
assert cell("dora", "F2")["status"] == "no submission", rows["dora"]
answers = json.load(open(os.path.join(src, "exercises/F2/points.json")))["points"]["answers"]
assert rows["eli"]["score"] == f2 - answers and cell("eli", "F2")["status"] == "graded", rows["eli"]

# summary.csv: the same columns in every row, a total and a status per exercise.
with open(os.path.join(out, "summary.csv"), newline="") as f:
    table = list(csv.reader(f))
header, body = table[0], table[1:]
assert len(body) == 5 and all(len(r) == len(header) for r in body), table
for name in ("F2 (%g)" % f2, "F2 status", "F3 (%g)" % f3, "F3 status", "F3:oracle_agreement (3)",
             "F2:answers (3)", "attnlab_version", "seed", "settings_hash"):
    assert name in header, (name, header)
by = {r[0]: dict(zip(header, r)) for r in body}
assert by["bob"]["F2 status"] == "no submission" and by["bob"]["F2 (%g)" % f2] == "0", by["bob"]
assert by["bob"]["max_score"] == "%g" % (f2 + f3), by["bob"]

# Canvas: its import columns, the Points Possible row, one row per student
# whose every exercise has a grade. Canvas's import counts an empty cell
# beside an existing grade as a change to no grade
# (app/models/gradebook_importer.rb, no_change_to_value?) and leaves a
# student absent from the file as they are: dora (F3 not gradable) is left
# out, no cell is empty.
unsure = sorted(w for w in rows if any(cell(w, ex)["status"] in ("not gradable", "error") for ex in ("F2", "F3")))
assert unsure == ["dora"], unsure
with open(os.path.join(out, "gradebook-canvas.csv"), newline="") as f:
    canvas = list(csv.reader(f))
assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "attnlab F2", "attnlab F3"], canvas[0]
assert canvas[1][0].strip() == "Points Possible" and [float(x) for x in canvas[1][5:]] == [f2, f3], canvas[1]
students = canvas[2:]
assert sorted(r[0] for r in students) == sorted(set(rows) - set(unsure)) and len(students) == 4, students
for r in students:
    assert len(r) == 7 and r[3] == r[0], r
    for ex, v in zip(("F2", "F3"), r[5:]):
        assert float(v) == cell(r[0], ex)["score"] and 0 <= float(v) <= (f2 if ex == "F2" else f3), r
canvas_by = {r[0]: r for r in students}
assert canvas_by["bob"][5:] == ["0", "%g" % f3] and canvas_by["cid"][5:] == ["0", "0"], canvas_by

# Moodle: the identifier column, then the assignments. Moodle's CSV import
# reads an empty cell (and '-') as no grade and commits it, clearing the
# grade a student has (grade/import/csv/classes/load_data.php,
# update_grade_item): a student with a not gradable or error exercise (dora)
# is left out, the only way its import leaves a grade as it is, and
# summary.txt says so. No cell is empty.
with open(os.path.join(out, "gradebook-moodle.csv"), newline="") as f:
    moodle = list(csv.reader(f))
assert moodle[0] == ["Username", "attnlab F2", "attnlab F3"], moodle[0]
assert sorted(r[0] for r in moodle[1:]) == sorted(set(rows) - set(unsure)), moodle
assert all(len(r) == 3 and "" not in r and "-" not in r for r in moodle[1:]), moodle
for r in moodle[1:]:
    assert r[1:] == canvas_by[r[0]][5:], (r, canvas_by[r[0]])
overview = open(os.path.join(out, "summary.txt")).read()
assert re.search(r"gradebook-canvas\.csv and gradebook-moodle\.csv leave out 1 student \(dora\)", overview), overview

# The anonymous gradebook: no names, ids keyed by the salt, sorted by id.
with open(os.path.join(out, "summary-anonymous.csv"), newline="") as f:
    anon_cells = list(csv.reader(f))
for name in rows:
    for r in anon_cells:
        assert all(c != name and name + "/" not in c for c in r), (name, r)
with open(os.path.join(out, "summary-anonymous.csv"), newline="") as f:
    anon = list(csv.DictReader(f))
expected = {"anon-" + hmac.new(salt.encode(), n.encode(), hashlib.sha256).hexdigest()[:16]: n for n in rows}
assert sorted(a["anonymous_id"] for a in anon) == sorted(expected), (anon, expected)
assert [a["anonymous_id"] for a in anon] == sorted(a["anonymous_id"] for a in anon)
for a in anon:
    assert float(a["score"]) == rows[expected[a["anonymous_id"]]]["score"], a
assert "anonymise_salt" not in json.dumps(s["settings"]), s["settings"]
open(os.path.join(out, "expected_ids.txt"), "w").write(
    "".join("%s\t%s\n" % (k, v) for k, v in sorted(expected.items())))
print("gradebook ok")
PY

# attnlab reveal: every id back to its student, with the configuration's salt or --salt.
"$attnlab" reveal --out "$out" --config "$tmp/config.json" > "$tmp/all.txt" 2>&1 ||
  { cat "$tmp/all.txt"; fail "reveal failed"; }
cmp -s "$tmp/all.txt" "$out/expected_ids.txt" || { cat "$tmp/all.txt"; fail "reveal does not give the students back"; }
bob_id=$(grep "	bob$" "$out/expected_ids.txt" | cut -f1)
[ "$("$attnlab" reveal --out "$out" --salt "$salt" "$bob_id")" = "$bob_id	bob" ] || fail "reveal --salt of bob's id"
"$attnlab" reveal --out "$out" --salt "another salt" "$bob_id" > "$tmp/wrong.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/wrong.txt"; fail "reveal with a wrong salt did not exit 1"; }

# The exercise fixed: bob's F3 work is no submission of F2.
"$attnlab" grade "$class" --exercise F2 --cases 5 --jobs 2 --out "$tmp/f2" > "$tmp/f2.txt" 2>&1
/usr/bin/python3 - "$tmp/f2/summary.json" <<'PY' || { cat "$tmp/f2.txt"; fail "with --exercise F2, bob is not 'no submission'"; }
import json, sys
rows = {r["student"]: r for r in json.load(open(sys.argv[1]))["students"]}
assert rows["bob"]["status"] == "no submission", rows["bob"]
assert "no work of F2" in rows["bob"]["note"] and "attention.py: F3" in rows["bob"]["note"], rows["bob"]
assert rows["bob"]["max_score"] == rows["ann"]["max_score"] == rows["ann"]["score"], (rows["bob"], rows["ann"])
assert list(rows["bob"]["exercise_scores"]) == ["F2"], rows["bob"]
PY
# The configuration names F2 and F3; the run holds F3 work only.
printf '{"cases": 5, "exercises": {"F2": {}, "F3": {}}}\n' > "$tmp/two.json"
"$attnlab" grade "$class" --config "$tmp/two.json" --students bob,cid --out "$tmp/two" > "$tmp/two.txt" 2>&1
/usr/bin/python3 - "$tmp/two/summary.json" "$src" <<'PY' || { cat "$tmp/two.txt"; fail "an empty folder's note does not name the configuration's exercises"; }
import json, os, sys
src = sys.argv[2]
def maximum(ex):
    return sum(json.load(open(os.path.join(src, "exercises", ex, "points.json")))["points"].values())
rows = {r["student"]: r for r in json.load(open(sys.argv[1]))["students"]}
cid = rows["cid"]
assert cid["max_score"] == maximum("F2") + maximum("F3"), cid
assert "F2 and F3" in cid["note"] and "only exercise graded here" not in cid["note"], cid["note"]
PY
# Without the salt, no anonymous gradebook is left behind to disagree.
[ -f "$tmp/f2/summary-anonymous.csv" ] && fail "summary-anonymous.csv written without a salt"
echo "gradebook_lms_test: ok"
