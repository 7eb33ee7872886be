#!/bin/sh
# edge_cases_test.sh ATTNLAB SOURCE_DIR DATA_DIR
# Submission files a fresh user may give: names in upper case (SOL.PY,
# A.CPP), a folder (batch mode) holding one, an empty folder, a folder of
# files none of which is a submission; an answers file (or FILE) whose path
# is past PATH_MAX; and the Eigen exp(-inf) warning in every C++ exercise
# header.
set -u
attnlab=$1
src=$2
data=$3
tmp=$(mktemp -d /tmp/attnlab-edge-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "edge_cases_test: $*" >&2; exit 1; }

# Extensions in any case: graded like .py and .cpp (full marks for the model solutions).
cp "$src/solutions/F3/attention.py" "$tmp/SOL.PY"
"$attnlab" grade "$tmp/SOL.PY" --cases 10 > "$tmp/py.txt" 2>&1
code=$?
cat "$tmp/py.txt"
[ "$code" = 0 ] || fail "SOL.PY: expected exit status 0, got $code"
grep -q "language: *Python" "$tmp/py.txt" || fail "SOL.PY is not graded as Python"

cp "$src/solutions/F3/attention.cpp" "$tmp/A.CPP"
"$attnlab" grade "$tmp/A.CPP" --cases 10 > "$tmp/cpp.txt" 2>&1
code=$?
cat "$tmp/cpp.txt"
[ "$code" = 0 ] || fail "A.CPP: expected exit status 0, got $code"
grep -q "language: *C++" "$tmp/cpp.txt" || fail "A.CPP is not graded as C++"

# A folder is batch mode: its one submission is graded, reports go to --out.
mkdir -p "$tmp/class"
cp "$src/solutions/F3/attention.py" "$tmp/class/SOL.PY"
echo "notes" > "$tmp/class/notes.txt"
"$attnlab" grade "$tmp/class" --cases 10 --out "$tmp/reports" > "$tmp/batch.txt" 2>&1
code=$?
cat "$tmp/batch.txt"
[ "$code" = 0 ] || fail "a folder: expected exit status 0, got $code"
grep -q "^SOL.PY,12,12,graded,F3," "$tmp/reports/summary.csv" || fail "summary.csv has no graded row for SOL.PY"
grep -q "ignored .*notes.txt" "$tmp/batch.txt" || fail "notes.txt was not listed as ignored"

# An empty folder: a usage error that says so.
mkdir -p "$tmp/empty"
"$attnlab" grade "$tmp/empty" --out "$tmp/reports2" > "$tmp/empty.txt" 2>&1
code=$?
cat "$tmp/empty.txt"
[ "$code" = 2 ] || fail "an empty folder: expected exit status 2, got $code"
grep -q "no submission to grade: the folder $tmp/empty is empty" "$tmp/empty.txt" ||
  fail "the message for an empty folder does not say it is empty"

# A folder of other files: says none is of a kind attnlab grades.
mkdir -p "$tmp/notes"
echo "a" > "$tmp/notes/readme.txt"
"$attnlab" grade "$tmp/notes" --out "$tmp/reports3" > "$tmp/notes.txt" 2>&1
code=$?
cat "$tmp/notes.txt"
[ "$code" = 2 ] || fail "a folder without submissions: expected exit status 2, got $code"
grep -q "its 1 file is not of a kind attnlab grades" "$tmp/notes.txt" ||
  fail "the message for a folder without submissions does not say why"

# An answers file 900 folders deep (a path of 4,500 bytes, past PATH_MAX):
# the message says the path is too long, not that the file is missing, and
# never crashes; a shorter path to the same file (from a folder nearer to
# it, as the message advises) is graded.
/usr/bin/python3 - "$tmp/deep" "$src/solutions/F2/answers.json" <<'PY' || fail "cannot make the deep folders"
import os, shutil, sys
os.makedirs(sys.argv[1])
os.chdir(sys.argv[1])
for k in range(900):
    os.mkdir("d%03d" % k)
    os.chdir("d%03d" % k)
shutil.copy(sys.argv[2], "answers.json")
PY
near=$(/usr/bin/python3 -c "print('/'.join('d%03d' % k for k in range(450)))")
far=$(/usr/bin/python3 -c "print('/'.join('d%03d' % k for k in range(450, 900)))")
deep="$tmp/deep/$near/$far/answers.json"
for args in "$src/solutions/F2/masked_softmax.py --answers" ""; do
  # shellcheck disable=SC2086
  "$attnlab" grade $args "$deep" --cases 3 > "$tmp/deep.txt" 2>&1
  code=$?
  cut -c1-400 "$tmp/deep.txt"
  [ "$code" = 2 ] || fail "a path past PATH_MAX ($args): expected exit status 2, got $code"
  grep -q "answers.json cannot be opened by this path: it is [0-9]* bytes long, more than the 4096 the system takes (PATH_MAX)" "$tmp/deep.txt" ||
    fail "a path past PATH_MAX ($args): the message does not say the path is too long"
  grep -q "no such" "$tmp/deep.txt" && fail "a path past PATH_MAX ($args): the message says the file is missing"
  [ "$(wc -c < "$tmp/deep.txt")" -lt 1000 ] || fail "a path past PATH_MAX ($args): the message is not shortened"
done
(cd "$tmp/deep/$near" && "$attnlab" grade "$src/solutions/F2/masked_softmax.py" --answers "$far/answers.json" \
  --cases 3 > "$tmp/near.txt" 2>&1) || { cut -c1-400 "$tmp/near.txt"; fail "the shorter path to the deep answers file is not graded"; }
grep -q "PASS.*answers" "$tmp/near.txt" || { cut -c1-400 "$tmp/near.txt"; fail "the deep answers file was not graded"; }

# Every C++ exercise header warns about Eigen's vectorised exp(-inf).
for h in F1/softmax_rows.hpp F2/masked_softmax.hpp F3/attention.hpp F4/masked_attention.hpp; do
  grep -q "Eigen's vectorised exp" "$src/exercises/$h" || fail "exercises/$h has no exp(-inf) warning"
done
echo "edge_cases_test: all checks passed"
