#!/bin/sh
# class_hostile_test.sh ATTNLAB SOURCE_DIR
# A class folder whose students try to take marks or secrets that are not
# theirs, or to break the run (tests/hostile/README.md, "Class folders"):
# symbolic links to the model solution, to another student's file and to a
# secret file of the teacher's (0600, with a marker), an answers file linked
# to the teacher's answer key (also with the marker), a hard link to a file
# outside the class, a FIFO (in a student's folder and directly in the
# class folder), a link to a folder, and archives: a zip and tars holding
# symbolic links, hard links and device entries, a zip bomb (600 MiB of
# zeros in ~600 KB), a tar.gz of 30,000 files, a tar of folders 1,500
# deep (past PATH_MAX: its note stays short), and a zip with junk before
# it (a reader's warning, not an error). Beside them, normal students get
# full marks. Checks every row's status, points and reason (also in the
# student's results.json and JUnit), that the marker is in no report,
# results.json, JUnit or summary, that the run's temporary space is left
# empty, that an upload (Gradescope) refuses the same links (and says in its
# results.json which it ignored beside the file it grades), and that an
# answers file given as a link (--answers LINK, or as the FILE) is refused.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-class-hostile-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_hostile_test: $*" >&2; exit 1; }

marker="TEACHER-SECRET-5e1d-7c42"
mkdir -p "$tmp/teacher" "$tmp/outside" "$tmp/tmpdir"
printf '{"seed": 424242, "note": "%s"}\n' "$marker" > "$tmp/teacher/config.json"
chmod 600 "$tmp/teacher/config.json"
solution="$src/solutions/F3/attention.py"

class="$tmp/class"
mkdir -p "$class"
# Normal students: full marks.
mkdir "$class/good"; cp "$solution" "$class/good/attention.py"
cp "$solution" "$class/loose.py"
# Inside its own folder a link is fine: it is read (the target is the student's).
mkdir -p "$class/inner/lib"; cp "$solution" "$class/inner/attention.py"
printf 'def unused():\n    return 0\n' > "$class/inner/lib/util.py"
ln -s lib/util.py "$class/inner/util.py"
# Links out of the student's folder.
mkdir "$class/link_solution"; ln -s "$solution" "$class/link_solution/attention.py"
mkdir "$class/link_alice"; ln -s ../good/attention.py "$class/link_alice/attention.py"
mkdir "$class/link_secret"
cat > "$class/link_secret/attention.py" <<'PY'
# exercise: F3
import os
_here = os.path.dirname(os.path.abspath(__file__))
try:
    with open(os.path.join(_here, "notes.py")) as f:
        _notes = f.read()
except OSError as e:
    _notes = "no notes (%s)" % e.strerror


def scaled_dot_product_attention(Q, K, V, mask=None):
    raise ValueError("notes: " + _notes)
PY
ln -s "$tmp/teacher/config.json" "$class/link_secret/notes.py"
# An answers file linked to the teacher's answer key (with the marker).
printf '{"exercise": "F4", "buggy_row_sum": 0.3302, "note": "%s"}\n' "$marker" \
  > "$tmp/teacher/answers.json"
chmod 600 "$tmp/teacher/answers.json"
mkdir "$class/link_answers"; cp "$solution" "$class/link_answers/attention.py"
ln -s "$tmp/teacher/answers.json" "$class/link_answers/answers.json"
# A hard link to a file outside the class; a FIFO; a link to a folder.
cp "$solution" "$tmp/outside/attention.py"
mkdir "$class/hardlink"; ln "$tmp/outside/attention.py" "$class/hardlink/attention.py"
mkdir "$class/fifo"; mkfifo "$class/fifo/attention.py"
# Hard links between two students' files, all inside the class folder: both
# graded, each row naming the other; so are two loose files; a hard link to a
# file in a hidden folder of the class (not a student's) is refused.
mkdir "$class/alice_hl" "$class/bob_hl"; cp "$solution" "$class/alice_hl/attention.py"
ln "$class/alice_hl/attention.py" "$class/bob_hl/attention.py"
cp "$solution" "$class/loose_a.py"; ln "$class/loose_a.py" "$class/loose_b.py"
mkdir -p "$class/.teacher" "$class/hidden_hl"; cp "$solution" "$class/.teacher/solution.py"
ln "$class/.teacher/solution.py" "$class/hidden_hl/attention.py"
# ... and so is one to a teacher's file left directly in the class folder
# (no student's: a configuration with the marker), read as a helper.
printf '{"seed": 424242, "note": "%s"}\n' "$marker" > "$class/course-notes.txt"
chmod 600 "$class/course-notes.txt"
mkdir "$class/teacher_hl"; cp "$class/link_secret/attention.py" "$class/teacher_hl/attention.py"
ln "$class/course-notes.txt" "$class/teacher_hl/notes.py"
# A plain folder nested past PATH_MAX (1,500 folders, 7,500 bytes): said too
# deep, like an archive's, not "the folder is empty".
/usr/bin/python3 - "$class" "$solution" <<'PY' || fail "cannot make the deep folder"
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.mkdir("deep_dir", dir_fd=fd)
fd = os.open("deep_dir", os.O_RDONLY, dir_fd=fd)
for k in range(1500):
    name = "d%03d" % (k % 1000)
    os.mkdir(name, dir_fd=fd)
    fd = os.open(name, os.O_RDONLY, dir_fd=fd)
out = os.open("attention.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
os.write(out, open(sys.argv[2], "rb").read())
PY
mkfifo "$class/zed.py"
ln -s "$src/solutions/F3" "$class/linkdir"

/usr/bin/python3 - "$class" "$solution" "$tmp/teacher/config.json" <<'PY' || fail "cannot make the archives"
import io, os, sys, tarfile, zipfile
cls, solution, secret = sys.argv[1:4]
code = open(solution, "rb").read()

def zip_symlink(z, name, target):
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix: the mode in external_attr
    info.external_attr = (0o120777 << 16)
    z.writestr(info, target)

with zipfile.ZipFile(os.path.join(cls, "zip_links.zip"), "w") as z:
    zip_symlink(z, "attention.py", solution)
    zip_symlink(z, "notes.py", secret)

def tar_add(t, name, kind, data=b"", link="", dev=(0, 0)):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.devmajor, info.devminor = dev
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    info.mode = 0o644
    t.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)

with tarfile.open(os.path.join(cls, "tar_links.tar"), "w") as t:
    tar_add(t, "attention.py", tarfile.SYMTYPE, link=solution)
    tar_add(t, "notes.py", tarfile.LNKTYPE, link=secret.lstrip("/"))
    tar_add(t, "null.py", tarfile.CHRTYPE, dev=(1, 3))
    tar_add(t, "pipe.py", tarfile.FIFOTYPE)
    tar_add(t, "../escape.py", tarfile.REGTYPE, code)

# A normal file beside a device, a link and a hard link: graded, the rest named.
with tarfile.open(os.path.join(cls, "tar_mixed.tar.gz"), "w:gz") as t:
    tar_add(t, "mixed/attention.py", tarfile.REGTYPE, code)
    tar_add(t, "mixed/dev.py", tarfile.CHRTYPE, dev=(1, 5))
    tar_add(t, "mixed/notes.py", tarfile.SYMTYPE, link=secret)
    tar_add(t, "mixed/copy.py", tarfile.LNKTYPE, link="mixed/attention.py")

# 600 MiB of zeros in one member (~600 KB of zip).
with zipfile.ZipFile(os.path.join(cls, "bomb.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    with z.open("attention.py", "w", force_zip64=True) as f:
        block = b"\0" * (1 << 20)
        for _ in range(600):
            f.write(block)
assert os.path.getsize(os.path.join(cls, "bomb.zip")) < 2 << 20

with tarfile.open(os.path.join(cls, "many.tar.gz"), "w:gz") as t:
    tar_add(t, "attention.py", tarfile.REGTYPE, code)
    for k in range(30000):
        tar_add(t, "f/%05d.txt" % k, tarfile.REGTYPE)

# Folders 1,500 deep (7,500-byte paths, past PATH_MAX): five files the
# system cannot unpack there; the note names the first shortened, and a count.
deep = "/".join("d%03d" % (k % 1000) for k in range(1500))
with tarfile.open(os.path.join(cls, "deep.tar"), "w") as t:
    for k in range(5):
        tar_add(t, "%s/attention%d.py" % (deep, k), tarfile.REGTYPE, code)

# Member names with a newline, a carriage return, ESC and a forged score
# line: escaped wherever they are shown (note, report, console, summary).
forged = "x\nscore: 12 / 12\r\x1b[32mall passed\x1b[0m"
with zipfile.ZipFile(os.path.join(cls, "ctrl_names.zip"), "w") as z:
    z.writestr(forged + ".py", code)
    zip_symlink(z, forged + "_link.py", "/etc/passwd")
with tarfile.open(os.path.join(cls, "ctrl_tar.tar"), "w") as t:
    tar_add(t, forged + ".py", tarfile.REGTYPE, code)
    tar_add(t, forged + "_dev.py", tarfile.CHRTYPE, dev=(1, 3))

# Junk before the zip: unzip warns ("extra bytes at beginning"), the files are whole.
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("attention.py", code)
open(os.path.join(cls, "warned.zip"), "wb").write(b"junk before the archive\n" * 4 + buf.getvalue())
PY

out="$tmp/reports"
start=$(date +%s)
TMPDIR="$tmp/tmpdir" timeout 600 "$attnlab" grade "$class" --exercise F3 --cases 10 --jobs 2 \
  --out "$out" > "$tmp/stdout.txt" 2>&1
code=$?
[ "$code" = 1 ] || { cat "$tmp/stdout.txt"; fail "expected exit status 1, got $code"; }
echo "class_hostile_test: graded in $(( $(date +%s) - start )) s"

/usr/bin/python3 - "$out" <<'PY' || { cat "$tmp/stdout.txt"; fail "the gradebook is not as expected"; }
import json, os, re, sys
out = sys.argv[1]
rows = {}
for r in json.load(open(os.path.join(out, "summary.json")))["submissions"]:
    rows.setdefault(r["student"], []).append(r)

def one(student):
    assert student in rows, (student, sorted(rows))
    assert len(rows[student]) == 1, rows[student]
    return rows[student][0]

full = {"good": "", "loose.py": "", "inner": "", "warned": "",
        "alice_hl": r"attention\.py is the same file as bob_hl/attention\.py",
        "bob_hl": r"attention\.py is the same file as alice_hl/attention\.py",
        "loose_a.py": r"loose_a\.py is the same file as loose_b\.py",
        "loose_b.py": r"loose_b\.py is the same file as loose_a\.py",
        "ctrl_names": r"ignored x%0Ascore: 12 / 12%0D%1B\[32mall passed%1B\[0m_link\.py: a symbolic link",
        "ctrl_tar": r"ignored x%0Ascore: 12 / 12%0D%1B\[32mall passed%1B\[0m_dev\.py: a character device",
        "link_answers": r"ignored answers\.json: a symbolic link to a file outside the student's folder",
        "tar_mixed":
        r"ignored mixed/copy\.py: a hard link.*ignored mixed/dev\.py: a character device"
        r".*ignored mixed/notes\.py: a symbolic link"}
for student, note in full.items():
    r = one(student)
    assert r["status"] == "graded" and r["score"] == r["max_score"] > 0, r
    assert re.search(note, r["note"]) if note else "ignored" not in r["note"], (student, r["note"])
# No marks for a link, never the linked file's: "no submission" with why.
refused = {
    "link_solution": r"ignored attention\.py: a symbolic link to a file outside the student's folder",
    "link_alice": r"ignored attention\.py: a symbolic link to a file outside the student's folder",
    "hardlink": r"ignored attention\.py: a hard link \(the file has 2 names, not all among the class's students' files\)",
    "hidden_hl": r"ignored attention\.py: a hard link \(the file has 2 names, not all among the class's students' files\)",
    "deep_dir": r"ignored d000/\S*\.\.\.\S*: its path is too long to read \(\d+ bytes, \d+ names deep; not read\)",
    "fifo": r"ignored attention\.py: a FIFO, not a regular file",
    "zed.py": r"zed\.py is a FIFO, not a regular file",
    "linkdir": r"linkdir is a symbolic link",
    "zip_links": r"ignored attention\.py: a symbolic link \(not unpacked\)",
    "tar_links": r"ignored \.\./escape\.py: a path leading out.*ignored attention\.py: a symbolic link",
    "bomb": r"its archive bomb\.zip unpacks to more than 64 MiB",
    "many": r"its archive many\.tar\.gz holds more than 2000 files and folders",
    "deep": r"ignored d000/d001/d002/\S*\.\.\.\S*/d499/attention0\.py: its path is too long to unpack "
            r"\(7513 bytes, 1501 names deep; not unpacked\).*; and 2 more ignored",
}
import xml.etree.ElementTree as ET
for student, why in refused.items():
    r = one(student)
    assert r["status"] == "no submission" and r["score"] == 0, r
    assert re.search(why, r["note"]), (student, r["note"])
    # ... and in the student's results.json and JUnit, not only the text report.
    stem = os.path.join(out, r["report"][:-4])
    res = json.load(open(stem + ".results.json"))
    assert res["score"] == 0 and re.search(why, res["output"]), (student, res)
    said = "".join(ET.parse(stem + ".junit.xml").getroot().itertext())
    assert re.search(why, said), (student, said)
# So is the one whose notes.py is a teacher's file of the class folder.
r = one("teacher_hl")
assert r["status"] == "graded" and r["score"] < r["max_score"], r
assert re.search(r"ignored notes\.py: a hard link \(the file has 2 names, not all among", r["note"]), r
# The entry that reads its linked notes.py is graded without it (and fails).
r = one("link_secret")
assert r["status"] == "graded" and r["score"] < r["max_score"], r
assert "ignored notes.py: a symbolic link to a file outside the student's folder" in r["note"], r
assert "ignored notes.py" in open(os.path.join(out, "students", "link_secret%2Fattention.py.txt")).read()
# The reason is in the student's results.json ("output") and JUnit (the
# suite's <system-out>) too, not only in the text report.
for stem, why in [("link_secret%2Fattention.py", "ignored notes.py: a symbolic link to a file outside"),
                  ("link_answers%2Fattention.py", "ignored answers.json: a symbolic link to a file outside")]:
    res = json.load(open(os.path.join(out, "students", stem + ".results.json")))
    assert why in res["output"], (stem, res["output"])
    suite = ET.parse(os.path.join(out, "students", stem + ".junit.xml")).getroot().find("testsuite")
    said = suite.findtext("system-out") or ""
    assert why in said, (stem, ET.tostring(suite, encoding="unicode")[-2000:])
# The hard-linked students' notes are in their results.json and JUnit too.
for stem, other in [("alice_hl%2Fattention.py", "bob_hl/attention.py"),
                    ("bob_hl%2Fattention.py", "alice_hl/attention.py")]:
    res = json.load(open(os.path.join(out, "students", stem + ".results.json")))
    assert "is the same file as " + other in res["output"], (stem, res["output"])
    assert "is the same file as " + other in open(os.path.join(out, "students", stem + ".txt")).read()
# Every note stays readable: no row's note runs to thousands of characters.
for student, rs in rows.items():
    for r in rs:
        assert len(r["note"]) <= 800, (student, len(r["note"]), r["note"][:300])
print("class_hostile_test: %d students as expected" % len(rows))
PY

# No control character of a member's name reaches the console, a report or
# the summary, and no line but the grader's own starts with "score:".
/usr/bin/python3 - "$out" "$tmp/stdout.txt" <<'PY' || fail "a member's name reached a report or the console raw"
import os, re, sys
out, stdout = sys.argv[1], sys.argv[2]
files = [stdout] + [os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs]
for path in files:
    text = open(path, "rb").read().decode("utf-8", "replace")
    bad = re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)
    assert not bad, (path, repr(text[max(0, bad.start() - 80):bad.end() + 40]))
    for line in text.splitlines():
        # The grader's own line reads "score: 12 / 12 points", whole.
        assert not re.match(r"\s*score: 12 / 12(?! points$)", line), (path, line)
PY

# The secret is nowhere: reports, results.json, JUnit, summaries, the run's output.
if grep -rl "$marker" "$out" "$tmp/stdout.txt"; then fail "the secret marker leaked (files above)"; fi
grep -q "notes: no notes" "$out/students/link_secret%2Fattention.py.txt" ||
  fail "link_secret's report does not show its submission ran without notes.py"
# Every archive's and notebook's folder is gone.
left=$(find "$tmp/tmpdir" -mindepth 1 | head -5)
[ -z "$left" ] || fail "the run left files in its TMPDIR: $left"

# An upload (Gradescope, PrairieLearn) follows no link either.
upload="$tmp/upload"
mkdir "$upload"; ln -s "$solution" "$upload/attention.py"
"$attnlab" grade "$upload" --exercise F3 --cases 10 --results-json "$tmp/upload.json" \
  > "$tmp/upload.txt" 2>&1
code=$?
[ "$code" = 2 ] || { cat "$tmp/upload.txt"; fail "a linked upload: expected exit status 2, got $code"; }
grep -q "symbolic link to a file outside" "$tmp/upload.txt" ||
  { cat "$tmp/upload.txt"; fail "a linked upload does not say why it is refused"; }
# An upload graded beside a refused link says why in its results.json (what
# a Gradescope student sees), not only on the hidden stdout.
upload2="$tmp/upload2"
mkdir "$upload2"; cp "$solution" "$upload2/attention.py"; ln -s "$src/solutions/F3" "$upload2/lib"
"$attnlab" grade "$upload2" --exercise F3 --cases 10 --results-json "$tmp/upload2.json" \
  > "$tmp/upload2.txt" 2>&1
code=$?
[ "$code" = 0 ] || { cat "$tmp/upload2.txt"; fail "an upload beside a link: expected exit status 0, got $code"; }
/usr/bin/python3 - "$tmp/upload2.json" <<'PY' || fail "an upload's results.json does not say which link it ignored"
import json, sys
out = json.load(open(sys.argv[1]))["output"]
assert "ignored lib: a symbolic link to a folder outside the student's folder" in out, out
PY
# An answers file is never read through a link, not even one named with
# --answers or as the FILE: refused with the file named, the key not read.
ln -s "$tmp/teacher/answers.json" "$tmp/answers_link.json"
"$attnlab" grade "$src/solutions/F4/masked_attention.py" --answers "$tmp/answers_link.json" \
  --cases 10 --results-json "$tmp/answers_link.results.json" > "$tmp/answers_link.txt" 2>&1
code=$?
[ "$code" = 2 ] || { cat "$tmp/answers_link.txt"; fail "--answers LINK: expected exit status 2, got $code"; }
grep -q "answers_link.json is a symbolic link (not followed)" "$tmp/answers_link.txt" ||
  { cat "$tmp/answers_link.txt"; fail "--answers LINK does not say the link is not followed"; }
"$attnlab" grade "$tmp/answers_link.json" --cases 10 > "$tmp/answers_alone.txt" 2>&1
code=$?
[ "$code" = 2 ] || { cat "$tmp/answers_alone.txt"; fail "grade LINK.json: expected exit status 2, got $code"; }
grep -q "answers_link.json is a symbolic link (not followed)" "$tmp/answers_alone.txt" ||
  { cat "$tmp/answers_alone.txt"; fail "grade LINK.json does not say the link is not followed"; }
if grep -ls "$marker" "$tmp/answers_link.txt" "$tmp/answers_link.results.json" \
  "$tmp/answers_alone.txt"; then
  fail "the teacher's answer key leaked through a linked answers file"
fi
# A file the user names on the command line may be a link (the user chose it).
ln -s "$solution" "$tmp/chosen.py"
"$attnlab" grade "$tmp/chosen.py" --cases 10 > "$tmp/chosen.txt" 2>&1 ||
  { cat "$tmp/chosen.txt"; fail "a link named on the command line is not graded"; }
echo "class_hostile_test: ok"
