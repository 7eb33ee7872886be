#!/bin/sh
# cpp_reproduction_test.sh ATTNLAB SOURCE_DIR
# For a wrong C++ attempt at each operation (attention, tiled attention,
# multi-head attention, the causal mask), the report's "reproduce it (C++"
# block compiles with the student's file and the exercise's folder on the
# include path, and runs: a student can paste it as it is.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-cpp-repro-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "cpp_reproduction_test: $*" >&2; exit 1; }
eigen=$(pkg-config --cflags eigen3 2>/dev/null || echo -I/usr/include/eigen3)

for pair in f3_no_max_shift.cpp:F3 t1_no_rescale.cpp:T1 m1_heads_reversed.cpp:M1 c1_diagonal_forbidden.cpp:C1; do
  file=${pair%%:*} exercise=${pair##*:}
  NO_COLOR=1 "$attnlab" grade "$src/exercises/mutants/$file" --cases 40 > "$tmp/report.txt" 2>&1
  [ $? = 1 ] || { cat "$tmp/report.txt"; fail "$file: the wrong attempt did not exit 1"; }
  # The first C++ block: the lines under its heading that start with 4 spaces.
  awk '/reproduce it \(C\+\+/ {on = 1; next} on && /^    / {print substr($0, 5); next} on {exit}' \
    "$tmp/report.txt" > "$tmp/repro.cpp"
  [ -s "$tmp/repro.cpp" ] || { cat "$tmp/report.txt"; fail "$file: no C++ reproduction in the report"; }
  grep -q '// (this operation' "$tmp/repro.cpp" && fail "$file: the reproduction is only a comment"
  # shellcheck disable=SC2086
  g++ -std=c++20 -O1 $eigen -I"$src/exercises/$exercise" "$tmp/repro.cpp" \
      "$src/exercises/mutants/$file" -o "$tmp/repro" 2> "$tmp/cc.txt" ||
    { cat "$tmp/repro.cpp" "$tmp/cc.txt"; fail "$file: the reproduction does not compile"; }
  "$tmp/repro" > "$tmp/out.txt" 2>&1
  rc=$?
  # A wrong answer prints; a refusal the property did not expect throws (rc != 0).
  [ -s "$tmp/out.txt" ] || { cat "$tmp/repro.cpp"; fail "$file: the reproduction printed nothing (exit $rc)"; }
  echo "$file ($exercise): the reproduction compiles and runs"
done
echo "cpp_reproduction_test: ok"
