#!/bin/sh
# bench/build_cache_timing.sh [ATTNLAB] [SOURCE_DIR]
# The build cache's figures (docs/MEASUREMENTS.md, "C++ grading and the build
# cache"), in one run: F3's model solution graded without the cache, then
# with an empty cache, then twice more; a class of 30 distinct C++ files at
# --jobs 2, graded, then regraded. A cache of its own, removed after.
set -u
a=${1:-build/grader/attnlab}
src=$(cd "${2:-.}" && pwd)
t=$(mktemp -d /tmp/attnlab-cache-timing-XXXXXX)
export ATTNLAB_CACHE_DIR=$t/cache
for i in $(seq -w 1 30); do mkdir -p $t/class/s$i; { cat $src/solutions/F3/attention.cpp; echo "// student $i"; } > $t/class/s$i/attention.cpp; done
now() { date +%s.%N; }
el() { awk "BEGIN { printf \"%.1f\", $2 - $1 }"; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
s=$(now); $a grade $src/solutions/F3/attention.cpp --no-cache > /dev/null 2>&1; e=$(now); echo "F3 model, --no-cache (as before): $(el $s $e) s"
s=$(now); $a grade $src/solutions/F3/attention.cpp > /dev/null 2>&1; e=$(now); echo "F3 model, first grade (cache empty): $(el $s $e) s"
s=$(now); $a grade $src/solutions/F3/attention.cpp --verbose > $t/second.txt 2>&1; e=$(now); echo "F3 model, second grade: $(el $s $e) s ($(grep -c 'built (cached)' $t/second.txt) cached)"
s=$(now); $a grade $src/solutions/F3/attention.cpp > /dev/null 2>&1; e=$(now); echo "F3 model, third grade: $(el $s $e) s"
s=$(now); $a grade $t/class --exercise F3 --out $t/r1 --jobs 2 > /dev/null 2>&1; e=$(now); echo "class of 30 C++ (distinct files), --jobs 2, first: $(el $s $e) s"
s=$(now); $a grade $t/class --exercise F3 --out $t/r2 --jobs 2 > /dev/null 2>&1; e=$(now); echo "class of 30 C++, --jobs 2, regrade: $(el $s $e) s"
ls $t/cache/cpp | wc -l | sed 's/^/cache entries: /'; du -sh $t/cache | cut -f1 | sed 's/^/cache size: /'
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf $t
