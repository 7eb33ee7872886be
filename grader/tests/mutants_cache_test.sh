#!/bin/sh
# mutants_cache_test.sh ATTNLAB SOURCE_DIR
# `attnlab mutants` compiles its C++ mutants through the compiler cache, as
# grade and check do (submission/compiler_cache.hpp): a catalogue of one C++
# mutant graded into an empty cache folder leaves that folder holding
# ccache's entries, and a second run is a hit; with --no-cache the folder
# stays empty.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-mutants-cache-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "mutants_cache_test: $*" >&2; exit 1; }
unset ATTNLAB_NO_CACHE ATTNLAB_CCACHE
command -v ccache >/dev/null 2>&1 || { echo "mutants_cache_test: ccache is not installed; skipped"; exit 0; }
mkdir -p "$tmp/catalogue"
cp "$src/exercises/mutants/c1_diagonal_forbidden.cpp" "$tmp/catalogue/"
run() {  # NAME CACHE_DIR [options...]: the output in $tmp/NAME.txt, exit 0 expected
  name=$1 dir=$2
  shift 2
  ATTNLAB_CACHE_DIR="$dir" "$attnlab" mutants --catalogue "$tmp/catalogue" --no-solutions \
    --jobs 1 --seed 1 --cases 10 "$@" > "$tmp/$name.txt" 2>&1 ||
    { cat "$tmp/$name.txt"; fail "$name: attnlab mutants did not end with every mutant caught"; }
}
# ccache's entries (its results and manifests), not its stats, tags or the precompiled header.
objects() { find "$1" -path "$1/pch" -prune -o -type f ! -name stats ! -name CACHEDIR.TAG ! -name '*.lock' -print 2>/dev/null | wc -l; }
run first "$tmp/cache"
[ "$(objects "$tmp/cache")" -gt 0 ] || fail "the first run left no entry in the compiler cache's folder"
CCACHE_DIR="$tmp/cache" ccache -z > /dev/null
run second "$tmp/cache"
hits=$(CCACHE_DIR="$tmp/cache" ccache --print-stats | awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" {n += $2} END {print n + 0}')
[ "$hits" -gt 0 ] || fail "the second run of the same catalogue was no hit in the compiler cache"
run off "$tmp/off" --no-cache
[ "$(objects "$tmp/off")" = 0 ] || fail "--no-cache still wrote entries into the cache's folder"
echo "mutants_cache_test: a cache hit on the second run; --no-cache leaves the folder empty"
