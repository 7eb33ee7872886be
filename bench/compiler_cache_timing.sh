#!/usr/bin/env bash
# bench/compiler_cache_timing.sh [BUILD_DIR]: what the compiler cache (ccache
# inside the build's sandbox; docs/MANUAL.md, "The compiler cache") saves,
# measured in one run with a cache of its own (PERFORMANCE.md, "The grader's
# own costs"):
#  1. grading solutions/F3/attention.cpp at default settings: with
#     --no-cache, the first grade (cold cache), the second (a hit);
#  2. the link with the prebuilt harness alone (what a hit still runs);
#  3. a class of 30 C++ students (copies of the F3 model solution, each with
#     a constant of its own, so none shares an entry) at --jobs 2: with
#     --no-cache, cold, and graded again (every compile a hit).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
export ATTNLAB_CACHE_DIR="$tmp/cache"
unset ATTNLAB_NO_CACHE

seconds() {  # seconds CMD...: wall-clock seconds of one run
  local start=$(date +%s.%N)
  "$@" > "$tmp/last.txt" 2>&1 || true
  awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}'
}

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
sol="$root/solutions/F3/attention.cpp"
echo "1. grading $sol (seconds):"
echo "   --no-cache: $(seconds "$attnlab" grade "$sol" --no-cache)"
echo "   first grade, cold cache: $(seconds "$attnlab" grade "$sol" --verbose) ($(grep -o 'compiler cache: [a-z]*' "$tmp/last.txt"))"
echo "   second grade: $(seconds "$attnlab" grade "$sol" --verbose) ($(grep -o 'compiler cache: [a-z]*' "$tmp/last.txt"))"
harness=$(find "$build/grader" -name 'libattnlab_cpp_harness_f3.a' | head -n 1)
g++ -std=c++20 -O2 -I"$root/exercises/F3" -I/usr/include/eigen3 -c "$sol" -o "$tmp/s.o"
echo "2. the link alone: $(seconds g++ -o "$tmp/s" "$tmp/s.o" -Wl,--whole-archive "$harness" -Wl,--no-whole-archive) s"
for k in $(seq -w 1 30); do
  mkdir -p "$tmp/class/student$k"
  { cat "$sol"; echo "int attnlab_student_$k = $k;"; } > "$tmp/class/student$k/attention.cpp"
done
echo "3. a class of 30 C++ students at --jobs 2 (seconds):"
echo "   --no-cache: $(seconds "$attnlab" grade "$tmp/class" --exercise F3 --jobs 2 --out "$tmp/out0" --no-cache)"
echo "   cold cache: $(seconds "$attnlab" grade "$tmp/class" --exercise F3 --jobs 2 --out "$tmp/out1")"
echo "   again: $(seconds "$attnlab" grade "$tmp/class" --exercise F3 --jobs 2 --out "$tmp/out2")"
