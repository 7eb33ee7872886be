#!/bin/sh
# compiler_cache_test.sh ATTNLAB SOURCE_DIR
# The compiler cache of C++ grades (ccache inside the build's sandbox:
# submission/compiler_cache.hpp), end to end:
# - a second sandboxed grade of the same file is a hit (--verbose says so)
#   and scores as the first; --no-cache and ATTNLAB_NO_CACHE build afresh;
# - the precompiled interface header is made once (once for two graders
#   at once), remade when a header it was made from changes, and changes no
#   grade and no compile error;
#   a missing ccache falls back to a plain compile;
# - a file the cache's folder holds cannot be included by a submission
#   (the compiler runs where that folder is an empty one), though ccache,
#   beside it in the same sandbox, reads and writes that folder.
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-cache-test-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "compiler_cache_test: $*" >&2; exit 1; }
export ATTNLAB_CACHE_DIR="$tmp/cache"
unset ATTNLAB_NO_CACHE ATTNLAB_CCACHE
command -v ccache >/dev/null 2>&1 || { echo "compiler_cache_test: ccache is not installed; skipped"; exit 0; }

mkdir -p "$tmp/subs"
cp "$src/solutions/F3/attention.cpp" "$tmp/subs/attention.cpp"
grade() {  # NAME FILE [options...]: the report in $tmp/NAME.txt
  name=$1 file=$2
  shift 2
  "$attnlab" grade "$file" --cases 5 --verbose "$@" > "$tmp/$name.txt" 2>&1
  echo $? > "$tmp/$name.code"
}
says() {  # NAME TEXT
  grep -q "$2" "$tmp/$1.txt" || { cat "$tmp/$1.txt"; fail "$1: the report does not say '$2'"; }
}

grade first "$tmp/subs/attention.cpp"
grep -q "sandbox: *bubblewrap" "$tmp/first.txt" || fail "the sandbox is not active: $(grep 'sandbox:' "$tmp/first.txt")"
says first "compiler cache: miss"
says first "precompiled header: made"
says first "^score: 12 / 12"
ls "$ATTNLAB_CACHE_DIR"/pch/*/attention.hpp.gch >/dev/null 2>&1 || fail "no attention.hpp.gch in $ATTNLAB_CACHE_DIR/pch"
grade second "$tmp/subs/attention.cpp"
says second "compiler cache: hit"
says second "precompiled header: ready"
says second "^score: 12 / 12"
# Two graders at once with an empty cache: one makes it, the other waits and takes it.
cp "$tmp/subs/attention.cpp" "$tmp/subs/twin.cpp"
ATTNLAB_CACHE_DIR="$tmp/cache2" grade twin_a "$tmp/subs/attention.cpp" &
ATTNLAB_CACHE_DIR="$tmp/cache2" grade twin_b "$tmp/subs/twin.cpp"
wait
says twin_a "^score: 12 / 12"
says twin_b "^score: 12 / 12"
made=$(cat "$tmp/twin_a.txt" "$tmp/twin_b.txt" | grep -c "precompiled header: made")
[ "$made" = 1 ] || fail "two graders at once made the precompiled header $made times, not once"
grade off "$tmp/subs/attention.cpp" --no-cache
says off "compiler cache: off: switched off by --no-cache"
says off "precompiled header: none (the compiler cache is off)"
says off "^score: 12 / 12"
# The precompiled header (submission/precompiled_header.hpp): a stamp that no
# longer holds (a header it was made from changed) makes it again; a file
# including <vector> before the interface header (GCC cannot use the .gch
# then) grades as before; a compile error reads as without it.
for stamp in "$ATTNLAB_CACHE_DIR"/pch/*/attention.hpp.gch.stamp; do
  sed -i '1s/^[0-9]*/1/' "$stamp"
done
{ echo "// changed"; cat "$tmp/subs/attention.cpp"; } > "$tmp/subs/changed.cpp"
grade remade "$tmp/subs/changed.cpp"
says remade "precompiled header: made"
says remade "^score: 12 / 12"
{ echo "#include <vector>"; cat "$tmp/subs/attention.cpp"; } > "$tmp/subs/vector_first.cpp"
grade vector_first "$tmp/subs/vector_first.cpp"
says vector_first "precompiled header: ready"
says vector_first "^score: 12 / 12"
{ cat "$tmp/subs/attention.cpp"; echo "namespace f3 { int broken() { return undefined_name; } }"; } > "$tmp/subs/broken.cpp"
grade broken "$tmp/subs/broken.cpp"
grade broken_off "$tmp/subs/broken.cpp" --no-cache
says broken "precompiled header: ready"
says broken "undefined_name"
# (the build folder's random name aside)
grep -v "compiler:\|seconds\|took" "$tmp/broken.txt" | sed "s|attnlab-build-[^/]*|BUILD|g" > "$tmp/broken.a"
grep -v "compiler:\|seconds\|took" "$tmp/broken_off.txt" | sed "s|attnlab-build-[^/]*|BUILD|g" > "$tmp/broken.b"
diff "$tmp/broken.a" "$tmp/broken.b" || fail "a compile error reads differently with the precompiled header"
ATTNLAB_NO_CACHE=1 grade off_env "$tmp/subs/attention.cpp"
says off_env "compiler cache: off: switched off by ATTNLAB_NO_CACHE"
ATTNLAB_CCACHE=/nonexistent/ccache grade missing "$tmp/subs/attention.cpp"
says missing "compiler cache: off: /nonexistent/ccache is not installed"
says missing "^score: 12 / 12"

# A header in the folder the sandboxed ccache uses (as root: the compile's uid's
# own, uid-64099), included by absolute path: the compiler must not find it.
cache_used="$ATTNLAB_CACHE_DIR"
[ "$(id -u)" = 0 ] && cache_used="$ATTNLAB_CACHE_DIR/uid-64099"
[ -d "$cache_used" ] || fail "the sandboxed grades did not use $cache_used"
echo '#define ATTNLAB_CACHE_SEEN 1' > "$cache_used/probe.h"
{ echo "#include \"$cache_used/probe.h\""; cat "$src/solutions/F3/attention.cpp"; } > "$tmp/subs/reads_cache.cpp"
grade reads_cache "$tmp/subs/reads_cache.cpp"
says reads_cache "NOT GRADABLE: the submission did not compile"
says reads_cache "probe.h: No such file"
# Control: unsandboxed, the same file compiles (so the check above can fail).
ATTNLAB_NO_SANDBOX=1 grade reads_cache_control "$tmp/subs/reads_cache.cpp"
says reads_cache_control "^score: 12 / 12"
echo "compiler_cache_test: ok"
