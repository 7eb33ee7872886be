#!/bin/sh
# build_cache_poison_test.sh ATTNLAB SOURCE_DIR
# A submission cannot poison the build cache (submission/build_cache.hpp):
# a C++ submission that, when run, overwrites every entry of the cache
# folder it is told of, adds one, and rewrites its own executable leaves the
# cache as it was: the model solution graded after it is a cache hit with
# the same points. With bubblewrap (which does not show the folder) and,
# as root, without it (the submission's own uid may not write there).
set -u
attnlab=$1
src=$2
tmp=$(mktemp -d /tmp/attnlab-cache-poison-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# Passable by the submission's uid, so that only the cache's own folder keeps it out.
chmod 0755 "$tmp"
fail() { echo "build_cache_poison_test: $*" >&2; exit 1; }
cache="$tmp/cache"
export ATTNLAB_CACHE_DIR="$cache"
unset ATTNLAB_NO_CACHE

cat > "$tmp/poison.cpp" <<CPP
// Tries to overwrite the grader's build cache from inside the run.
#include "attention.hpp"
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <string>
namespace f3 {
AttentionResult attention(const Matrix& Q, const Matrix&, const Matrix& V,
                          const std::optional<Mask>&) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    const std::string dir = "$cache/cpp";
    if (DIR* d = opendir(dir.c_str())) {
      while (dirent* e = readdir(d)) {
        const std::string p = dir + "/" + e->d_name;
        int fd = open(p.c_str(), O_WRONLY | O_TRUNC);
        if (fd >= 0) { (void)!write(fd, "poison", 6); close(fd); }
      }
      closedir(d);
    }
    int fd = open((dir + "/poison").c_str(), O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) { (void)!write(fd, "poison", 6); close(fd); }
    fd = open("/proc/self/exe", O_WRONLY | O_TRUNC);
    if (fd >= 0) close(fd);
  }
  AttentionResult r;
  r.A = Matrix::Zero(Q.rows(), V.rows());
  r.O = Matrix::Zero(Q.rows(), V.cols());
  return r;
}
}  // namespace f3
CPP
cp "$src/solutions/F3/attention.cpp" "$tmp/model.cpp"

grade() {  # grade FILE OUT [env...]
  file=$1; out=$2; shift 2
  env "$@" "$attnlab" grade "$file" --exercise F3 --verbose --cases 20 > "$out" 2>&1
}

for mode in bwrap own-uid; do
  rm -rf "$cache"
  extra=""
  if [ $mode = own-uid ]; then
    [ "$(id -u)" = 0 ] || { echo "build_cache_poison_test: not root, own-uid case skipped"; continue; }
    extra="ATTNLAB_NO_SANDBOX=1"
  fi
  grade "$tmp/model.cpp" "$tmp/m1.txt" $extra
  ! grep -q "built (cached)" "$tmp/m1.txt" || fail "$mode: the first build says cached"
  [ -n "$(ls "$cache/cpp")" ] || fail "$mode: nothing stored in $cache/cpp"
  before=$(cd "$cache/cpp" && sha256sum *)
  grade "$tmp/poison.cpp" "$tmp/p1.txt" $extra
  grade "$tmp/poison.cpp" "$tmp/p2.txt" $extra
  grep -q "built (cached)" "$tmp/p2.txt" || fail "$mode: the poison's regrade is not a cache hit: $(grep compiler: "$tmp/p2.txt")"
  ! [ -e "$cache/cpp/poison" ] || fail "$mode: the submission wrote into the cache"

  echo "$before" | while read -r sum name; do
    grep -q "$sum  $name" <<LIST || fail "$mode: entry $name changed or gone"
$(cd "$cache/cpp" && sha256sum *)
LIST
  done || exit 1
  grade "$tmp/model.cpp" "$tmp/m2.txt" $extra
  grep -q "built (cached)" "$tmp/m2.txt" || fail "$mode: the model's regrade is not a cache hit"
  [ "$(grep -cE '^\[PASS' "$tmp/m1.txt")" = "$(grep -cE '^\[PASS' "$tmp/m2.txt")" ] ||
    fail "$mode: the model's regrade passes other properties"
  [ "$(grep -c '^\[FAIL' "$tmp/m2.txt")" = 0 ] || fail "$mode: the model fails after the poison ran"
done
echo "build_cache_poison_test: ok"
