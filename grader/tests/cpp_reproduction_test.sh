#!/bin/sh
# cpp_reproduction_test.sh ATTNLAB SOURCE_DIR
# For a wrong C++ attempt at each operation (attention, tiled attention,
# multi-head attention, the causal mask, the backward pass), the report's "reproduce it (C++"
# block compiles with the student's file and the exercise's folder on the
# include path, and runs: a student can paste it as it is, and build it with
# the report's own command line (the exercise's folder and Eigen's include).
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-cpp-repro-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "cpp_reproduction_test: $*" >&2; exit 1; }

m=exercises/mutants
for pair in $m/f3_no_max_shift.cpp:F3 $m/t1_no_rescale.cpp:T1 $m/m1_heads_reversed.cpp:M1 \
    $m/c1_diagonal_forbidden.cpp:C1 grader/tests/data/cpp/b1_d_term_dropped.cpp:B1; do
  path=${pair%%:*} exercise=${pair##*:}
  file=${path##*/}
  rm -rf "$tmp/work" && mkdir "$tmp/work" && cp "$src/$path" "$tmp/work/$file"
  NO_COLOR=1 "$attnlab" grade "$tmp/work/$file" --cases 40 > "$tmp/report.txt" 2>&1
  [ $? = 1 ] || { cat "$tmp/report.txt"; fail "$file: the wrong attempt did not exit 1"; }
  # The first C++ block: the lines under its heading that start with 4 spaces,
  # then the report's own line that builds and runs it ("  $ c++ ... && ./repro").
  awk '/reproduce it \(C\+\+/ {on = 1; next} on && /^    / {print substr($0, 5); next} on {exit}' \
    "$tmp/report.txt" > "$tmp/work/repro.cpp"
  [ -s "$tmp/work/repro.cpp" ] || { cat "$tmp/report.txt"; fail "$file: no C++ reproduction in the report"; }
  grep -q '// (this operation' "$tmp/work/repro.cpp" && fail "$file: the reproduction is only a comment"
  build=$(sed -n 's/^  \$ //p' "$tmp/report.txt" | head -n 1)
  case "$build" in
    *" -I$src/exercises/$exercise "*"-I"*eigen*" repro.cpp $file -o repro && ./repro") ;;
    *) cat "$tmp/report.txt"; fail "$file: no full command line (exercise folder, Eigen) to build the reproduction: '$build'" ;;
  esac
  (cd "$tmp/work" && sh -c "$build" > "$tmp/out.txt" 2>&1)
  rc=$?
  # A wrong answer prints; a refusal the property did not expect throws (rc != 0).
  [ -x "$tmp/work/repro" ] || { cat "$tmp/work/repro.cpp" "$tmp/out.txt"; fail "$file: the reproduction does not compile with the report's command"; }
  [ -s "$tmp/out.txt" ] || { cat "$tmp/work/repro.cpp"; fail "$file: the reproduction printed nothing (exit $rc)"; }
  echo "$file ($exercise): the reproduction compiles with the report's command line and runs"
done
echo "cpp_reproduction_test: ok"
