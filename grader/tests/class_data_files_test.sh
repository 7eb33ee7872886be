#!/bin/sh
# class_data_files_test.sh ATTNLAB SOURCE_DIR
# A student's code that reads a data file beside it (MANUAL.md, "Data files
# beside the code"):
# - alice's F3 opens scale.txt at import, ed's reads it with numpy.loadtxt:
#   frank's C++ reads it with std::ifstream at start-up: their data files
#   are staged with the code, full marks, the choice names them;
# - bob handed in no scale.txt, carol's is a link out of her folder (not
#   followed): not gradable, and the student's own text report names
#   scale.txt (and not written.txt, a file the code writes);
# - alice's file named on the command line: the file its code opens beside
#   it is copied too; bob's alone: his report names the missing file.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-data-files-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "class_data_files_test: $*" >&2; exit 1; }
py=/usr/bin/python3
expect() {  # expect FILE REGEX WHAT
  grep -Eq -e "$2" "$1" || { cat "$1"; fail "$3 (no line matching '$2' in $1)"; }
}

mkdir -p "$tmp/c/alice" "$tmp/c/bob" "$tmp/c/carol" "$tmp/c/ed" "$tmp/outside"
for s in alice bob carol; do
  { echo 'with open("scale.txt") as _f:'
    echo '    _ONE = float(_f.read())'
    echo 'def _save(text):'
    echo '    with open("written.txt", "w") as f:'
    echo '        f.write(text)'
    cat "$src/solutions/F3/attention.py"; } > "$tmp/c/$s/attention.py"
done
{ echo 'import numpy'
  echo '_ONE = float(numpy.loadtxt("data/scale.txt"))'
  cat "$src/solutions/F3/attention.py"; } > "$tmp/c/ed/attention.py"
# frank (C++): a std::ifstream read at start-up, which stops the program without its file.
mkdir -p "$tmp/c/frank"
{ cat "$src/solutions/F3/attention.cpp"
  echo '#include <fstream>'
  echo '#include <stdexcept>'
  echo 'static const bool kScaleRead = [] {'
  echo '  std::ifstream in("scale.txt");'
  echo '  if (!in) throw std::runtime_error("cannot read scale.txt");'
  echo '  return true;'
  echo '}();'; } > "$tmp/c/frank/attention.cpp"
echo 1.0 > "$tmp/c/frank/scale.txt"
echo 1.0 > "$tmp/c/alice/scale.txt"
mkdir -p "$tmp/c/ed/data"
echo 1.0 > "$tmp/c/ed/data/scale.txt"
echo 1.0 > "$tmp/outside/scale.txt"
ln -s "$tmp/outside/scale.txt" "$tmp/c/carol/scale.txt"

"$attnlab" grade "$tmp/c" --cases 10 --jobs 2 --out "$tmp/o" > "$tmp/o.log" 2>&1
$py - "$tmp/o" > "$tmp/rows" <<'PY' || { cat "$tmp/o.log"; fail "no summary.json"; }
import json, sys
for r in json.load(open(sys.argv[1] + "/summary.json"))["submissions"]:
    print("%s|%s|%g|%g|%s" % (r["file"], r["status"], r["score"], r["max_score"], r["choice"]))
PY
cat "$tmp/rows"
for s in alice ed frank; do
  grep -Eq "^$s/attention\.(py|cpp)\|graded\|([0-9.]+)\|\2\|" "$tmp/rows" || fail "$s: not full marks with the data file beside the code"
done
expect "$tmp/rows" '^alice/attention\.py\|.*data files: scale\.txt' "alice: the choice does not name the data file"
expect "$tmp/rows" '^ed/attention\.py\|.*data files: data/scale\.txt' "ed: the choice does not name the data file"
for s in bob carol; do
  expect "$tmp/o/students/$s%2Fattention.py.txt" 'note: +the code opens scale\.txt, which is not beside it' \
    "$s: the student's report does not name the missing file"
done
expect "$tmp/rows" '^carol/attention\.py\|.*ignored scale\.txt' "carol: the link out of her folder is not named as ignored"
if grep -q 'opens written\.txt' "$tmp/o/students/bob%2Fattention.py.txt"; then
  fail "bob: a file the code writes is named as missing"
fi

"$attnlab" grade "$tmp/c/alice/attention.py" --cases 10 > "$tmp/alone.txt" 2>&1 ||
  { cat "$tmp/alone.txt"; fail "alice alone: not graded with the file her code opens"; }
"$attnlab" grade "$tmp/c/bob/attention.py" --cases 10 > "$tmp/bob.txt" 2>&1
expect "$tmp/bob.txt" 'note: +the code opens scale\.txt, which is not beside it' "bob alone: the missing file not named"
echo "class_data_files_test: ok"
