#!/bin/sh
# installed_prefix_test.sh CMAKE BUILD_DIR SOURCE_DIR
# An installed prefix alone is enough to grade in any language: installs the
# build into a temporary prefix, then runs the installed `attnlab grade` on
# the bundled Python solution of F3 (the prefix's copy) and on the C++ one
# copied to a folder outside the source tree; both must exit 0 (full marks).
# The checkout and the build folder are hidden (an empty tmpfs over them,
# bubblewrap) when bwrap works here, so nothing is found there by accident.
set -u
cmake=$1
build=$2
src=$3
tmp=$(mktemp -d /tmp/attnlab-installed-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "installed_prefix_test: $*" >&2; exit 1; }
prefix="$tmp/prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "cmake --install failed"; }
for f in bin/attnlab share/doc/attnlab/PROTOCOL.md share/attnlab/harness/attnlab_harness.py \
         share/attnlab/exercises/F3/attention.hpp share/attnlab/exercises/F3/points.json \
         share/attnlab/solutions/F3/attention.py lib/attnlab/libattnlab_cpp_harness_f3.a \
         lib/cmake/attnlab/attnlabPropertyTests.cmake; do
  [ -e "$prefix/$f" ] || fail "the prefix has no $f"
done
mkdir -p "$tmp/outside"
cp "$src/solutions/F3/attention.cpp" "$tmp/outside/my_attention.cpp"

hide=""
if bwrap --dev-bind / / --tmpfs "$src" true 2>/dev/null; then
  hide="bwrap --dev-bind / / --tmpfs $src"
  case "$build" in "$src"/*) ;; *) hide="$hide --tmpfs $build" ;; esac
  hide="$hide --"
else
  echo "installed_prefix_test: bwrap cannot hide the checkout here; running without hiding it"
fi
# The grader's own sandbox would nest inside the hiding one: off (the limits hold).
for file in "$prefix/share/attnlab/solutions/F3/attention.py" "$tmp/outside/my_attention.cpp"; do
  (cd "$tmp" && $hide "$prefix/bin/attnlab" grade "$file" --no-sandbox --cases 20) > "$tmp/out.txt" 2>&1
  code=$?
  cat "$tmp/out.txt"
  [ "$code" = 0 ] || fail "installed attnlab grade $file exited with $code"
done
# The report names no path of the checkout: everything came from the prefix.
if grep -F "$src/" "$tmp/out.txt"; then fail "the report names the checkout"; fi
echo "installed_prefix_test: ok"
