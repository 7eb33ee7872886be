#!/usr/bin/env bash
# bench/grader_costs.sh [BUILD_DIR]: the grader's own costs, measured in one
# run (PERFORMANCE.md, "The grader's own costs"):
#  1. grading the F3 model solution in Python and in C++ at the default case
#     count, wall-clock, best of 3, and the C++ compile alone (the grader's
#     g++ command: compile the file, link the prebuilt harness);
#  2. the oracle's cost per case (attnlab_oracle_bench);
#  3. the diagnosis battery on failing submissions: the median and worst over
#     the mutant catalogue, as `attnlab mutants` prints them (ATTNLAB_COSTS_MUTANTS=0
#     skips this, the longest step).
# The whole test suite's time is ctest's own "Total Test time".
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

best_of_3() {  # best_of_3 CMD...: the least wall-clock seconds of three runs
  local best="" t
  for _ in 1 2 3; do
    local start=$(date +%s.%N)
    "$@" > /dev/null 2>&1 || true
    t=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')
    if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN {exit !(t < b)}'; then best=$t; fi
  done
  printf '%.2f' "$best"
}

echo "machine: $(nproc) cores, $(uname -m); $(date -u +%Y-%m-%d)"
echo "1. grading the F3 model solution at the default case count (best of 3, seconds):"
echo "   Python: $(best_of_3 "$attnlab" grade "$root/solutions/F3/attention.py")"
# --no-cache: each of the three compiles (a repeat would hit the compiler
# cache; bench/compiler_cache_timing.sh measures that).
echo "   C++ (compile included): $(best_of_3 "$attnlab" grade "$root/solutions/F3/attention.cpp" --no-cache)"
harness=$(find "$build/grader" -name 'libattnlab_cpp_harness_f3.a' | head -n 1)
eigen=$(pkg-config --cflags eigen3 2>/dev/null || echo -I/usr/include/eigen3)
# shellcheck disable=SC2086
echo "   C++ compile and link alone: $(best_of_3 sh -c "g++ -std=c++20 -O2 -I$root/exercises/F3 $eigen \
  -c $root/solutions/F3/attention.cpp -o $tmp/s.o && g++ -o $tmp/s $tmp/s.o -Wl,--whole-archive $harness \
  -Wl,--no-whole-archive")"
echo "2. the oracle per case (exact attention + error bound, causal T x T, d = T):"
"$build/bench/attnlab_oracle_bench" --benchmark_format=console 2>/dev/null |
  awk '/BM_oracle_case/ {printf "   %s: %s %s\n", $1, $2, $3}'
if [ "${ATTNLAB_COSTS_MUTANTS:-1}" != 0 ]; then
  echo "3. the diagnosis battery over the mutant catalogue:"
  "$attnlab" mutants 2>&1 | grep -A1 -i "battery cost" | sed 's/^/   /' || true
fi
