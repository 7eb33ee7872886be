#!/bin/sh
# notebook_test.sh ATTNLAB SOURCE_DIR
# Jupyter notebooks (grader/src/submission/notebook.hpp): a working
# notebook with IPython syntax (a %%bash cell, display(), get_ipython(), an
# indented !pip, an IPython import) gets full marks, alone and in a class
# folder, with one note of what was skipped; so does one whose solution is
# under %%time (with %time and %%capture NAME: their Python runs once); a malformed notebook is not
# gradable and its report says what is malformed (never a copy error); a
# notebook over 16 MiB is refused by its size; one just under it is read in
# bounded memory (its outputs are never held).
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-notebook-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "notebook_test: $*" >&2; exit 1; }
mkdir -p "$tmp/class/alice" "$tmp/class/bob" "$tmp/class/carl" "$tmp/class/dora" "$tmp/class/emil"

/usr/bin/python3 - "$src/solutions/F3/attention.py" "$tmp" <<'PY'
import json, sys
code, tmp = open(sys.argv[1]).read(), sys.argv[2]

def cell(source, kind="code"):
    return {"cell_type": kind, "metadata": {}, "source": source.splitlines(keepends=True),
            **({"execution_count": 1, "outputs": []} if kind == "code" else {})}

def notebook(cells, path):
    with open(path, "w") as f:
        json.dump({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}, f,
                  separators=(",", ":"))

working = [
    cell("# Attention\n", "markdown"),
    cell("%%bash\necho installing\npip install numpy\n"),
    cell("%matplotlib inline\nfrom IPython.display import display, Markdown as md\n"
         "get_ipython().run_line_magic('load_ext', 'autoreload')\n"
         "if True:\n    !pip install numpy\n"
         "files = !ls\n"
         "x = '''\n%not a magic: inside a string\n'''\n"),
    cell(code),
    cell("import numpy as np\nO, A = scaled_dot_product_attention(np.eye(2), np.eye(2), np.eye(2))\n"
         "display(A)\nmd('done')\nip = get_ipython()\nip.system('echo hi')\nA\n"),
]
notebook(working, tmp + "/working.ipynb")
# IPython's execution magics run their Python: the solution under %%time.
notebook([cell("%%time\n" + code), cell("%time t = 1\nassert t == 1\n"),
          cell("%%capture --no-stderr cap\nprint('hidden')\n"), cell("cap.show()\n")],
         tmp + "/timed.ipynb")
notebook(working, tmp + "/class/alice/attention.ipynb")
with open(tmp + "/class/bob/attention.ipynb", "w") as f:  # cut off mid-way
    f.write(json.dumps({"nbformat": 4, "cells": [cell(code)]})[:300])
with open(tmp + "/class/carl/attention.ipynb", "w") as f:
    json.dump({"nbformat": 4, "metadata": {}}, f)
bad = [cell("# notes\n", "markdown"), cell(code), cell(code)]
bad[2]["source"] = 42
notebook(bad, tmp + "/class/dora/attention.ipynb")

# Outputs of millions of small strings: 17 MiB (refused), 15 MiB (graded).
def big(path, mib):
    n = (mib << 20) // 4
    out = [{"output_type": "stream", "name": "stdout", "text": ["a"] * n}]
    c = cell(code)
    c["outputs"] = out
    notebook([c], path)
big(tmp + "/class/emil/attention.ipynb", 17)
big(tmp + "/large.ipynb", 15)
PY

# A working notebook alone: full marks, one note of what was skipped.
"$attnlab" grade "$tmp/working.ipynb" --cases 10 > "$tmp/working.txt" 2>&1
code=$?
cat "$tmp/working.txt"
[ "$code" = 0 ] || fail "working.ipynb: expected exit status 0, got $code"
grep -q "^score: 12 / 12 points" "$tmp/working.txt" || fail "working.ipynb: not full marks"
note="note: *skipped 1 cell magic, 1 line magic, 2 shell lines, 1 get_ipython\\(\\) call, 1 IPython import of the notebook"
grep -Eq "$note" "$tmp/working.txt" || fail "working.ipynb: no note of what was skipped"
[ "$(grep -c 'skipped' "$tmp/working.txt")" = 1 ] || fail "working.ipynb: the note is said more than once"

# The solution in a %%time cell is graded; %time runs its statement.
"$attnlab" grade "$tmp/timed.ipynb" --cases 10 > "$tmp/timed.txt" 2>&1
code=$?
[ "$code" = 0 ] || { cat "$tmp/timed.txt"; fail "timed.ipynb: expected exit status 0, got $code"; }
grep -q "^score: 12 / 12 points" "$tmp/timed.txt" || { cat "$tmp/timed.txt"; fail "timed.ipynb: not full marks"; }
grep -q "ran the Python of 3 %time/%%time/%%timeit/%%capture magics once, untimed" "$tmp/timed.txt" ||
  { cat "$tmp/timed.txt"; fail "timed.ipynb: no note of the magics run as Python"; }

# A class folder: the working one graded in full, each malformed one not
# gradable with what is malformed, the oversize one refused by its size.
"$attnlab" grade "$tmp/class" --out "$tmp/out" --cases 10 > "$tmp/class.txt" 2>&1
cat "$tmp/class.txt"
grep -rq "cannot copy" "$tmp/out" "$tmp/class.txt" && fail "a report speaks of a copy error"
/usr/bin/python3 - "$tmp/out" <<'PY' || fail "the class folder's rows or reports are wrong"
import json, re, sys
out = sys.argv[1]
rows = {r["student"]: r for r in json.load(open(out + "/summary.json"))["submissions"]}
def report(who):
    return open("%s/%s" % (out, rows[who]["report"])).read()
problems = []
if rows["alice"]["status"] != "graded" or rows["alice"]["score"] != rows["alice"]["max_score"]:
    problems.append("alice: %r" % rows["alice"])
if "skipped 1 cell magic" not in report("alice"):
    problems.append("alice's report has no note")
for who, why in (("bob", r"not JSON at byte [0-9]+"), ("carl", r'it has no "cells" list'),
                 ("dora", r"cell 3's source is not text"),
                 ("emil", r"is [0-9]+ bytes, more than the 16 MiB a notebook may have")):
    if rows[who]["status"] != "not gradable":
        problems.append("%s: status %r, expected not gradable" % (who, rows[who]["status"]))
    if not re.search(why, report(who)):
        problems.append("%s's report does not say %r:\n%s" % (who, why, report(who)))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY

# 15 MiB of outputs: graded in bounded memory (a JSON tree of it takes hundreds of MiB).
/usr/bin/python3 - "$attnlab" "$tmp" <<'PY' || fail "the 15 MiB notebook was not graded in bounded memory"
import resource, subprocess, sys
attnlab, tmp = sys.argv[1], sys.argv[2]
run = subprocess.run([attnlab, "grade", tmp + "/large.ipynb", "--out", tmp + "/out-large",
                      "--cases", "5"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(run.stdout[-2000:])
print("exit %d, the largest process peaked at %.0f MiB" % (run.returncode, peak_mib))
sys.exit(0 if run.returncode == 0 and peak_mib < 150 else 1)
PY
echo "notebook_test: ok"
