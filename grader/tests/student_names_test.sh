#!/bin/sh
# student_names_test.sh ATTNLAB SOURCE_DIR
# Names that once broke the gradebook (student_names.hpp, class_folder.hpp):
# - names starting with = + - @ are written to summary.csv behind a "'"
#   (OWASP's rule against formulas), and as they are in summary.json;
# - x/sub/attention.py and x__sub/attention.py get reports of their own;
# - a folder alice, an archive alice.tar.gz and a folder alice~2 are three
#   students with three reports (the second alice is alice%~2);
# - a student named summary keeps its report, and summary.txt stays the
#   class's overview;
# - a name whose report name would pass 255 bytes gets a shortened one,
#   its full name kept in the gradebook;
# - NFC/NFD (José) and zero-width (a<U+200B>na) look-alikes are flagged;
# - a read-only --out is refused at the start, before anyone is graded
#   (as root: a read-only tmpfs, where mount works; else chmod).
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-names-test-XXXXXX)
mnt=""
cleanup() { [ -n "$mnt" ] && umount "$mnt" 2>/dev/null; chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "student_names_test: $*" >&2; exit 1; }

class="$tmp/class"
sol="$src/solutions/F1/softmax_rows.py"
for n in "=1+2" "+sum" "-x" "@at" "summary" "alice~2" "José" "$(printf 'Jose\314\201')" "ana" "$(printf 'a\342\200\213na')"; do
  mkdir -p "$class/$n"
done
mkdir -p "$class/x/sub" "$class/x__sub" "$class/alice" "$tmp/arch"
cp "$sol" "$class/x/sub/attention.py"
cp "$src/exercises/mutants/f1_wrong_axis.py" "$class/x__sub/attention.py"
cp "$sol" "$class/alice/a.py"
cp "$src/exercises/mutants/f1_wrong_axis.py" "$tmp/arch/a.py"
tar -czf "$class/alice.tar.gz" -C "$tmp/arch" a.py
long=$(printf 'L%.0s' $(seq 1 200))
mkdir -p "$class/$long"
cp "$sol" "$class/$long/$(printf 'f%.0s' $(seq 1 100)).py"
pct=$(printf '%%%.0s' $(seq 1 120))  # 120 '%': an id of 360 bytes (%25 each)
mkdir -p "$class/$pct"

out="$tmp/out"
"$attnlab" grade "$class" --cases 5 --jobs 2 --out "$out" > "$tmp/run.txt" 2>&1
[ $? = 1 ] || { cat "$tmp/run.txt"; fail "expected exit status 1"; }
/usr/bin/python3 - "$out" "$long" "$pct" <<'PY' || { cat "$tmp/run.txt"; fail "the gradebook is not as expected"; }
import csv, json, os, sys
out, long, pct = sys.argv[1], sys.argv[2], sys.argv[3]
s = json.load(open(os.path.join(out, "summary.json")))
students = {r["student"]: r for r in s["students"]}
with open(os.path.join(out, "summary.csv"), newline="") as f:
    table = list(csv.DictReader(f))
cells = [t["student"] for t in table]
for n in ("=1+2", "+sum", "-x", "@at"):
    assert n in students, sorted(students)          # JSON: the name itself
    assert "'" + n in cells and n not in cells, cells  # CSV: behind a quote
for t in table:
    for k, v in t.items():
        assert not v or v[0] not in "=+-@\t\r", (k, v)
subs = {r["file"]: r for r in s["submissions"]}
# Every submission has its own report files.
reports = [r["report"] for r in s["submissions"]]
assert len(set(reports)) == len(reports), reports
for r in s["submissions"]:
    path = os.path.join(out, r["report"])
    assert os.path.isfile(path), r
    assert len(os.path.basename(path).encode()) <= 255 - len(".results.json") + len(".txt"), path
a, b = subs["x/sub/attention.py"], subs["x__sub/attention.py"]
assert a["score"] == a["max_score"] and b["score"] < b["max_score"], (a, b)
ra = json.load(open(os.path.join(out, a["report"][:-4] + ".results.json")))
rb = json.load(open(os.path.join(out, b["report"][:-4] + ".results.json")))
assert ra["score"] == a["score"] and rb["score"] == b["score"], (ra["score"], rb["score"])
# alice, alice%~2 (the archive) and the real alice~2: three students.
assert {"alice", "alice%~2", "alice~2"} <= set(students), sorted(students)
assert students["alice"]["score"] == students["alice"]["max_score"], students["alice"]
assert students["alice%~2"]["score"] < students["alice%~2"]["max_score"], students["alice%~2"]
assert students["alice~2"]["status"] == "no submission", students["alice~2"]
# summary: a student like any other; summary.txt is the class's overview.
assert "summary" in students and os.path.isfile(os.path.join(out, "students", "summary.txt")), sorted(students)
assert open(os.path.join(out, "summary.txt")).read().startswith("class overview"), "summary.txt"
# Long names: full name in the gradebook, a short report name.
lf = long + "/" + "f" * 100 + ".py"
assert lf in subs and subs[lf]["score"] == subs[lf]["max_score"], sorted(subs)
assert "%25" * 120 in students, sorted(students)
# Look-alikes flagged (summary.json's overview and summary.txt).
groups = [sorted(g) for g in s["overview"]["look_alike_names"]]
assert sorted(["José", "Jose\u0301"]) in groups and sorted(["ana", "a\u200bna"]) in groups, groups
assert len(groups) == 2, groups
txt = open(os.path.join(out, "summary.txt")).read()
assert "look alike" in txt and "Jose<U+0301>" in txt and "a<U+200B>na" in txt, txt
print("names ok")
PY

# A read-only --out: refused before anyone is graded.
ro=""
if [ "$(id -u)" = 0 ]; then
  if mkdir -p "$tmp/ro" && mount -t tmpfs -o size=1m tmpfs "$tmp/ro" 2>/dev/null; then
    mnt="$tmp/ro"; mkdir -p "$mnt/out"; mount -o remount,ro "$mnt" && ro="$mnt/out"
  fi
else
  mkdir -p "$tmp/ro_out" && chmod 555 "$tmp/ro_out" && ro="$tmp/ro_out"
fi
if [ -n "$ro" ]; then
  "$attnlab" grade "$class" --cases 5 --out "$ro" > "$tmp/ro.txt" 2>&1
  code=$?
  [ "$code" = 2 ] || { cat "$tmp/ro.txt"; fail "a read-only --out: expected exit status 2, got $code"; }
  grep -q "the output folder $ro cannot be written" "$tmp/ro.txt" || { cat "$tmp/ro.txt"; fail "the message does not name the read-only folder"; }
  grep -q "^\[1/" "$tmp/ro.txt" && { cat "$tmp/ro.txt"; fail "someone was graded before the read-only --out was found"; }
else
  echo "student_names_test: no read-only folder can be made here: that part is skipped"
fi
echo "student_names_test: ok"
